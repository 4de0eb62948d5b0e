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

tex = os.path.join(root, "textures")
os.makedirs(tex, exist_ok=True)
png(os.path.join(tex, "tiles.png"), 128, 128, tiles)
png(os.path.join(tex, "redstripes.png"), 64, 64, stripes)
png(os.path.join(tex, "pattern.png"), 64, 64, pattern)
png(os.path.join(tex, "wood.png"), 128, 128, wood)

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
