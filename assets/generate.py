"""Generates VLab's procedural textures (PNG) and the wheel mesh (OBJ): python3 assets/generate.py assets"""
import json, math, os, struct, zlib, sys

root = sys.argv[1]

def png(path, w, h, pixel):
    raw = bytearray()
    for y in range(h):
        raw.append(0)
        for x in range(w):
            raw.extend(pixel(x, y))
    def chunk(kind, data):
        c = struct.pack(">I", len(data)) + kind + data
        return c + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
    data = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    data += chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(data)

def tiles(x, y):
    # 4x4 light/dark tiles with grout lines.
    if x % 32 < 2 or y % 32 < 2:
        return (60, 62, 66)
    v = 128 if ((x // 32) + (y // 32)) % 2 == 0 else 108
    n = ((x * 7 + y * 13) % 9) - 4
    return (v + n, v + 2 + n, v + 6 + n)

def stripes(x, y):
    return (200, 60, 52) if ((x + y) // 16) % 2 == 0 else (236, 226, 214)

def pattern(x, y):
    cx, cy = x % 32 - 16, y % 32 - 16
    if cx * cx + cy * cy < 64:
        return (150, 120, 84)
    return (204, 194, 172)

def wood(x, y):
    ring = math.sin((x * 0.35) + 3 * math.sin(y * 0.05)) * 0.5 + 0.5
    return (int(130 + 50 * ring), int(90 + 36 * ring), int(50 + 22 * ring))

# The materials scenes written for the original VLAB name (Legno, Piastrelle2, ...):
# simple pictures of what their names say.
def legno(x, y):
    # Planks 16 texels wide, each with its own shade and grain.
    plank = x // 16
    grain = round((math.sin(y * 0.4 + plank * 2.1 + 2 * math.sin(x * 0.3)) * 0.5 + 0.5) * 3) / 3
    shade = (plank * 37) % 3 * 10
    if x % 16 == 0:
        return (70, 44, 24)
    return (int(120 + shade + 30 * grain), int(78 + shade + 20 * grain), int(40 + shade // 2 + 10 * grain))

def piastrelle2(x, y):
    # Small white and blue-grey tiles, 16 texels, thin grout.
    if x % 16 == 0 or y % 16 == 0:
        return (90, 90, 96)
    return (226, 228, 232) if ((x // 16) + (y // 16)) % 2 == 0 else (150, 166, 186)

def pattern2(x, y):
    # Diamonds on a warm plaster.
    cx, cy = x % 16 - 8, y % 16 - 8
    return (120, 140, 150) if abs(cx) + abs(cy) < 5 else (214, 206, 186)

def murorigherosso(x, y):
    # A white wall with horizontal red stripes.
    return (190, 40, 36) if y % 32 < 8 else (236, 232, 224)

def test2d(x, y):
    # A painting: a framed landscape (sky, sun, hills, grass).
    w, h = 64, 48
    if x < 4 or y < 4 or x >= w - 4 or y >= h - 4:
        return (120, 84, 36)
    if (x - 46) ** 2 + (y - 14) ** 2 < 36:
        return (250, 210, 70)
    hill = 30 + 6 * math.sin(x * 0.15)
    if y > hill:
        return (70, 140, 60) if y > 38 else (96, 160, 80)
    return (130, 180, 230)

def schema(x, y):
    # A poster with a block diagram: three boxes joined by arrows, on white.
    boxes = [(8, 8, 28, 20), (36, 8, 56, 20), (22, 40, 42, 52)]
    for x0, y0, x1, y1 in boxes:
        if x0 <= x <= x1 and y0 <= y <= y1:
            edge = x in (x0, x1) or y in (y0, y1)
            return (30, 60, 140) if edge else (210, 224, 246)
    if y == 14 and 28 < x < 36 or x == 32 and 20 < y < 40:
        return (30, 30, 30)
    return (248, 248, 244)

def basepiattaforma(x, y):
    # A platform top: a steel plate inside a yellow and black border.
    if x < 6 or y < 6 or x >= 58 or y >= 58:
        return (230, 190, 30) if ((x + y) // 6) % 2 == 0 else (30, 30, 30)
    return (150, 154, 160) if (x // 8 + y // 8) % 2 == 0 else (138, 142, 148)

def attenzionerobot(x, y):
    # A "caution: robots" sign: a black-edged yellow triangle with a small robot inside.
    u, v = x - 32, 56 - y
    inside = v >= 0 and v <= 52 and abs(u) <= (52 - v) * 0.6
    inner = v >= 5 and v <= 44 and abs(u) <= (44 - v) * 0.6
    if not inside:
        return (244, 244, 244)
    if not inner:
        return (20, 20, 20)
    robot = (
        (-5 <= u <= 5 and 24 <= v <= 30)      # head
        or (-8 <= u <= 8 and 10 <= v <= 22)   # body
        or (-6 <= u <= -3 and 6 <= v <= 10)   # wheels
        or (3 <= u <= 6 and 6 <= v <= 10)
        or (u == 0 and 30 < v <= 34)          # antenna
    )
    return (20, 20, 20) if robot else (246, 200, 30)

tex = os.path.join(root, "textures")
os.makedirs(tex, exist_ok=True)
png(os.path.join(tex, "tiles.png"), 128, 128, tiles)
png(os.path.join(tex, "redstripes.png"), 64, 64, stripes)
png(os.path.join(tex, "pattern.png"), 64, 64, pattern)
png(os.path.join(tex, "wood.png"), 128, 128, wood)
pictures = [
    ("legno.png", 64, 64, legno), ("piastrelle2.png", 64, 64, piastrelle2), ("pattern2.png", 32, 32, pattern2),
    ("murorigherosso.png", 32, 64, murorigherosso), ("test2d.png", 64, 48, test2d), ("schema.png", 64, 64, schema),
    ("basepiattaforma.png", 64, 64, basepiattaforma), ("attenzionerobot.png", 64, 64, attenzionerobot),
]
for name, w, h, pixel in pictures:
    png(os.path.join(tex, name), w, h, pixel)
    # materials.json's colour is the picture's average look.
    texels = [pixel(x, y) for y in range(h) for x in range(w)]
    print(name, [round(sum(t[i] for t in texels) / len(texels)) for i in range(3)])

# A wheel: tyre of radius 85 and width 70 (units: the cart scales it by 0.01), axis Z,
# centred, with a recessed hub and a bevelled rim. Outline as (radius, z) from the axle
# across one face, around the tread and back across the other face.
segments = 24
outline = [
    (0.0, 26.0), (22.0, 26.0), (26.0, 30.0), (60.0, 30.0), (66.0, 35.0),
    (80.0, 35.0), (85.0, 30.0), (85.0, -30.0), (80.0, -35.0), (66.0, -35.0),
    (60.0, -30.0), (26.0, -30.0), (22.0, -26.0), (0.0, -26.0),
]
lines = ["# VLab wheel: radius 85, width 70, axis Z (scale 0.01 in scenes/cart.vlab)", "o wheel"]
n = len(outline)
# Each outline edge gets its own ring of vertices, so the hub, rim and tread keep crisp
# edges; normals are the edge's normal in the (r, z) plane, turned around the axis.
for i in range(segments):
    a = 2 * math.pi * i / segments
    c, s = math.cos(a), math.sin(a)
    for j in range(n - 1):
        for r, z in (outline[j], outline[j + 1]):
            lines.append(f"v {r * c:.4f} {r * s:.4f} {z:.4f}")
for i in range(segments):
    a = 2 * math.pi * i / segments
    c, s = math.cos(a), math.sin(a)
    for j in range(n - 1):
        (r0, z0), (r1, z1) = outline[j], outline[j + 1]
        nr, nz = -(z1 - z0), (r1 - r0)
        length = math.hypot(nr, nz)
        nr, nz = nr / length, nz / length
        lines.append(f"vn {nr * c:.4f} {nr * s:.4f} {nz:.4f}")
def v(i, j, k):
    return ((i % segments) * (n - 1) + j) * 2 + k + 1
def vn(i, j):
    return (i % segments) * (n - 1) + j + 1
faces = 0
for i in range(segments):
    for j in range(n - 1):
        a, b, c2, d = (v(i, j, 0), vn(i, j)), (v(i + 1, j, 0), vn(i + 1, j)), (v(i + 1, j, 1), vn(i + 1, j)), (v(i, j, 1), vn(i, j))
        # Counter-clockwise seen from outside: the outline runs +z face -> tread -> -z face.
        for tri in ((a, d, c2), (a, c2, b)):
            lines.append("f " + " ".join(f"{p}//{q}" for p, q in tri))
            faces += 1
with open(os.path.join(root, "wheel.obj"), "w") as f:
    f.write("\n".join(lines) + "\n")
print("wheel faces", faces)

# A glTF binary (GLB) to exercise that loader: a unit pyramid (square base 1x1 at y=0, apex at y=1) with flat normals, as GLB.
base = [(-.5,0,-.5),(.5,0,-.5),(.5,0,.5),(-.5,0,.5)]
apex = (0,1,0)
tris = [(base[0],base[1],base[2]),(base[0],base[2],base[3])]  # base (facing down after fix)
tris = [(a,c,b) for a,b,c in tris]
for i in range(4):
    tris.append((base[i], apex, base[(i+1)%4]))
pos=[];nor=[]
def sub(a,b): return [a[i]-b[i] for i in range(3)]
def cross(a,b): return [a[1]*b[2]-a[2]*b[1], a[2]*b[0]-a[0]*b[2], a[0]*b[1]-a[1]*b[0]]
for a,b,c in tris:
    n=cross(sub(b,a),sub(c,a)); l=sum(x*x for x in n)**.5; n=[x/l for x in n]
    for p in (a,b,c): pos.append(p); nor.append(n)
pb=b''.join(struct.pack('<3f',*p) for p in pos); nb=b''.join(struct.pack('<3f',*n) for n in nor)
binc=pb+nb
mn=[min(p[i] for p in pos) for i in range(3)]; mx=[max(p[i] for p in pos) for i in range(3)]
g={"asset":{"version":"2.0"},"scene":0,"scenes":[{"nodes":[0]}],"nodes":[{"mesh":0}],
 "meshes":[{"primitives":[{"attributes":{"POSITION":0,"NORMAL":1}}]}],
 "buffers":[{"byteLength":len(binc)}],
 "bufferViews":[{"buffer":0,"byteOffset":0,"byteLength":len(pb)},{"buffer":0,"byteOffset":len(pb),"byteLength":len(nb)}],
 "accessors":[{"bufferView":0,"componentType":5126,"count":len(pos),"type":"VEC3","min":mn,"max":mx},
              {"bufferView":1,"componentType":5126,"count":len(nor),"type":"VEC3"}]}
js=json.dumps(g).encode(); js+=b' '*((4-len(js)%4)%4); binc+=b'\0'*((4-len(binc)%4)%4)
out=struct.pack('<III',0x46546C67,2,12+8+len(js)+8+len(binc))+struct.pack('<II',len(js),0x4E4F534A)+js+struct.pack('<II',len(binc),0x004E4942)+binc
with open(os.path.join(root, 'pyramid.glb'), 'wb') as f:
    f.write(out)
print('pyramid.glb', len(out), 'bytes')
