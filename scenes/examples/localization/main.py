"""Monte Carlo localization: where am I, from a map, odometry and a lidar?

The exercise: the robot has been put down somewhere in the L-shaped corridor of the
corridor lab (scenes/corridor.vlab), facing any way, and must find out where. It knows
the lab's map (robot.map(): the walls) and reads its own sensors only: the lidar and
the odometry. It never asks where it really is.

It keeps a cloud of guesses of its pose (x, y, heading), the *particles*, and repeats:

1. Motion: when the odometry says the robot moved, every guess moves the same way (in
   its own frame) plus a little noise, because odometry drifts.
2. Measurement: when a lidar scan arrives, every guess is weighed by how well the scan
   fits the map seen from there. A beam that hit something should end on a wall: how
   far its end is from the nearest wall comes from a *likelihood field* computed once
   from the map. A beam that hit nothing within the lidar's range says something too:
   there is no wall along it, so a guess from which that beam would run into a wall is
   unlikely.
3. Resampling: when a few guesses carry most of the weight, the guesses are drawn
   again in proportion to their weights, so good ones multiply and bad ones die out.

Why it is hard here: a straight corridor looks the same all along, and the lidar sees
180 degrees ahead, 8 m at most, so it cannot see the corridor's ends from the middle.
Only the doorway recess half-way along the first leg, the corner and the dead end tell
places apart. So the program keeps many guesses spread along the corridor while it
drives past those features (the weights are multiplied from scan to scan and only
resampled when needed, so the guesses are not thinned out by chance), and it only
says it is sure once the cloud has shrunk around one place.

The first guesses cover the whole corridor (every free cell inside it, every
heading): that is what "somewhere in the corridor" means. Set SEARCH_WHOLE_MAP = True to
spread them over the whole lab instead: much harder, because the spaces between the
corridor's walls and the room's walls look like corridors too. Many first guesses are
scored against the first scan while the robot stands still, and the best of them kept.

To keep within its CPU share (a control step is 21 ms; see docs/programs.md), the
weighing is spread over several control steps, CHUNK guesses at a time, while the
robot drives on; the guesses stay where they were at the scan until it is done, then
catch up with the odometry. Only the standard library is used.

Ground coordinates are those of the odometry and the map: x along the lab's X axis,
y along -Z, headings counter-clockwise seen from above.
"""
import heapq
import math
import random
import time

from vlab import Robot

# --- Settings: try changing them ----------------------------------------------------
SEARCH_WHOLE_MAP = False # True: the first guesses cover the whole lab, not the corridor
CANDIDATES = 40000       # first guesses, scored against the first scan
PARTICLES = 2000         # guesses kept while the robot is unsure
TRACKING = 500           # guesses kept once it is sure where it is
SURE = 0.25              # "sure": the guesses' spread (m) is below this
BEAM_EVERY = 2           # use every 2nd lidar beam (90 of 180)
FIRST_BEAM_EVERY = 10    # the first guesses are scored with every 10th beam only
FREE_BEAMS = 8           # beams that hit nothing checked per scan (each costs more)
SIGMA = 0.12             # how far (m) a beam's end may miss a wall and still count
Z_RANDOM = 0.05          # share of readings that fit nothing (another robot, noise)
INDEPENDENT = 12.0       # the beams count as this many independent ones: neighbouring
                         # beams see the same wall, so they do not all count in full
MAX_FIELD = 0.5          # distances to walls beyond this are all "far"
CHUNK = 150              # guesses weighed per control step (CPU per step)
FIRST_CHUNK = 1000       # first guesses drawn and scored per control step
SPEED = 0.2              # forward speed, m/s
CORRIDOR = [             # the exercise's "somewhere in the corridor", as rectangles
    (2.0, -13.0, 3.9, -1.0),    # (x_min, y_min, x_max, y_max): the first leg,
    (3.9, -6.9, 4.5, -6.0),     # its doorway recess,
    (2.0, -14.95, 11.0, -13.0), # and the second leg up to the dead end
]

robot = Robot()
lidar = robot.sensor("lidar")
odom = robot.sensor("odom")
drive = robot.actuator("drive")

# --- The map and its likelihood field ------------------------------------------------
# The lidar scans 5 cm above the floor: only what stands at that height counts (the
# coloured plates higher up on the walls are invisible to it).
grid = robot.map(resolution=0.05, low=0.02, high=0.12)
RES = grid.resolution
RANGE = 8.0                        # the lidar's range (read from the scans later)
# The field covers the map and a margin around it as wide as the lidar's range, so a
# beam's end never falls off it (the margin counts as far from any wall).
PAD = int(RANGE / RES) + 2
W, H = grid.width + 2 * PAD, grid.height + 2 * PAD
X0, Y0 = grid.x0 - PAD * RES, grid.y0 - PAD * RES


def index(x, y):
    """The field's flat index of ground point (x, y)."""
    return int((x - X0) / RES) + W * int((y - Y0) / RES)


# Distance from every cell to the nearest wall (metres, at most MAX_FIELD), by a
# "brushfire" from all wall cells at once that carries along which wall cell is the
# nearest, so the distance is Euclidean rather than counted in steps.
far2 = (MAX_FIELD / RES) ** 2
dist2 = [far2] * (W * H)
nearest = [0] * (W * H)
walls = bytearray(W * H)
frontier = []
for row in range(grid.height):
    line = grid.rows[row]
    for col in range(grid.width):
        if line[col]:
            i = col + PAD + W * (row + PAD)
            walls[i] = 1
            dist2[i] = 0.0
            nearest[i] = i
            frontier.append(i)
NEIGHBOURS = (1, -1, W, -W, W + 1, W - 1, -W + 1, -W - 1)
while frontier:
    grown = []
    for i in frontier:
        source = nearest[i]
        sc, sr = source % W, source // W
        for step in NEIGHBOURS:
            j = i + step
            dc, dr = j % W - sc, j // W - sr
            d2 = dc * dc + dr * dr
            if d2 < dist2[j]:
                dist2[j] = d2
                nearest[j] = source
                grown.append(j)
    frontier = grown
distance = [math.sqrt(d2) * RES for d2 in dist2]       # metres
del dist2, nearest

# Each beam's log-likelihood, looked up by where it ends: a Gaussian around the walls,
# plus a floor for readings that fit nothing. Looked up, not computed, for speed.
log_random = math.log(Z_RANDOM)
field = [math.log((1 - Z_RANDOM) * math.exp(-d * d / (2 * SIGMA * SIGMA)) + Z_RANDOM) for d in distance]


def free_up_to(x, y, cos_a, sin_a, length):
    """How far a beam from (x, y) along (cos_a, sin_a) runs before a wall (up to
    ``length``): it jumps ahead by the distance to the nearest wall each time, which
    cannot skip a wall ("sphere tracing" on the distance field)."""
    run = 0.0
    while run < length:
        i = index(x + run * cos_a, y + run * sin_a)
        if walls[i]:
            return run
        run += max(distance[i], RES)
    return length


# --- Where the first guesses may be ----------------------------------------------------
def in_corridor(x, y):
    return any(x0 <= x <= x1 and y0 <= y <= y1 for x0, y0, x1, y1 in CORRIDOR)


free_cells = [grid.center(col, row) for row in range(grid.height) for col in range(grid.width)
              if not grid.rows[row][col] and distance[col + PAD + W * (row + PAD)] >= 0.1]
region = free_cells if SEARCH_WHOLE_MAP else [c for c in free_cells if in_corridor(*c)]
if not region:                     # another lab: no corridor there, use the whole map
    region = free_cells
robot.log(f"map of {grid.width} x {grid.height} cells and its likelihood field ready "
          f"({time.process_time():.2f} s of CPU); first guesses over {len(region) * RES * RES:.0f} m2")


def random_guess():
    x, y = random.choice(region)
    return [x + random.uniform(-RES, RES) / 2, y + random.uniform(-RES, RES) / 2, random.uniform(-math.pi, math.pi)]


# --- The three steps ----------------------------------------------------------------
def move(particles, forward, sideways, turn):
    """Moves every guess by the odometry's motion, expressed in the robot's frame,
    each with its own noise."""
    gauss = random.gauss
    distance_noise = 0.05 * abs(forward) + 0.002
    side_noise = 0.02 * abs(forward) + 0.001
    turn_noise = 0.05 * abs(turn) + 0.02 * abs(forward) + 0.002
    for p in particles:
        f = forward + gauss(0, distance_noise)
        s = sideways + gauss(0, side_noise)
        cos_h, sin_h = math.cos(p[2]), math.sin(p[2])
        p[0] += f * cos_h - s * sin_h
        p[1] += f * sin_h + s * cos_h
        p[2] = (p[2] + turn + gauss(0, turn_noise) + math.pi) % (2 * math.pi) - math.pi


def prepare(ranges, angles, every, free_beams):
    """The beams to weigh a scan by: each hit as its end point in the robot's frame,
    scaled to field cells; and a few beams that hit nothing, as directions."""
    hits, misses = [], []
    for i in range(0, len(ranges), every):
        r, a = ranges[i], angles[i]
        if r < RANGE - 0.05:
            hits.append((r * math.cos(a) / RES, r * math.sin(a) / RES))
        else:
            misses.append(a)
    if misses and free_beams:
        misses = misses[::max(1, len(misses) // free_beams)][:free_beams]
    else:
        misses = []
    return hits, misses


def weigh(p, hits, misses):
    """A guess's log-likelihood of the scan: the field at each hit's end point seen
    from the guess, and, for each beam that hit nothing, whether the map lets it run
    the lidar's whole range from there."""
    x, y, h = p
    cos_h, sin_h = math.cos(h), math.sin(h)
    px, py = (x - X0) / RES, (y - Y0) / RES
    if not (PAD <= px < W - PAD and PAD <= py < H - PAD) or walls[int(px) + W * int(py)]:
        return -1e6                 # inside a wall or off the map: impossible
    total = sum([field[int(px + cos_h * u - sin_h * v) + W * int(py + sin_h * u + cos_h * v)]
                 for u, v in hits])
    for a in misses:
        if free_up_to(x, y, math.cos(h + a), math.sin(h + a), RANGE - 0.3) < RANGE - 0.3:
            total += log_random     # the map has a wall where the lidar saw none
    return total * INDEPENDENT / max(1, len(hits) + len(misses))


def normalize(log_weights):
    """Weights that add up to 1, from logarithms (subtracting the largest first, so
    nothing underflows)."""
    top = max(log_weights)
    weights = [math.exp(l - top) for l in log_weights]
    total = sum(weights)
    return [w / total for w in weights]


def resample(particles, weights, n):
    """``n`` guesses drawn in proportion to their weights by low-variance resampling
    (one random offset, then evenly spaced picks), each nudged a little so copies of
    one guess spread out."""
    step = 1.0 / n
    pick = random.uniform(0, step)
    cumulative, i = weights[0], 0
    drawn = []
    for _ in range(n):
        while pick > cumulative and i < len(particles) - 1:
            i += 1
            cumulative += weights[i]
        x, y, h = particles[i]
        drawn.append([x + random.gauss(0, 0.02), y + random.gauss(0, 0.02), h + random.gauss(0, 0.01)])
        pick += step
    return drawn


def summary(particles, weights):
    """The weighted mean pose (headings averaged as unit vectors) and the spread: the
    root mean square distance of the guesses from the mean."""
    x = sum(w * p[0] for p, w in zip(particles, weights))
    y = sum(w * p[1] for p, w in zip(particles, weights))
    c = sum(w * math.cos(p[2]) for p, w in zip(particles, weights))
    s = sum(w * math.sin(p[2]) for p, w in zip(particles, weights))
    spread = math.sqrt(sum(w * ((p[0] - x) ** 2 + (p[1] - y) ** 2) for p, w in zip(particles, weights)))
    return x, y, math.atan2(s, c), spread


def draw(particles):
    """Draws (at most 1000 of) the guesses, until the next update."""
    shown = particles[::max(1, len(particles) // 1000)]
    robot.clear_drawings()
    robot.draw_points([(p[0], p[1]) for p in shown], color="orange", keep=True)


# --- Driving --------------------------------------------------------------------------
def wander(ranges, angles):
    """Forward, towards the more open side; turn on the spot when blocked ahead. In the
    corridor this drives past the recess and round the corner to the dead end, and
    back."""
    ahead = min(r for r, a in zip(ranges, angles) if abs(a) < 0.35)
    left = sum(r for r, a in zip(ranges, angles) if 0.35 <= a <= 1.4)
    right = sum(r for r, a in zip(ranges, angles) if -1.4 <= a <= -0.35)
    if ahead < 0.45:
        drive.set(0.0, 1.2)
    else:
        balance = (left - right) / max(left + right, 1e-6)
        drive.set(min(SPEED, 0.6 * (ahead - 0.3)), 1.5 * balance)


# --- The loop -----------------------------------------------------------------------
particles = []          # [x, y, heading] each
log_weights = []        # their log-weights since the last resampling
scores = []             # the scan being weighed: each guess's log-likelihood so far
job = None              # (hits, misses) of the scan being weighed, or None
last_ranges = None
last_pose = None        # the odometry when the guesses were last moved
sure = False
busiest = 0.0           # the most CPU (s) one control step took, for the console
next_report = 0.0

while robot.step():
    started = time.process_time()
    ranges = lidar.ranges()
    pose = odom.value()
    if not ranges or pose is None:
        continue
    angles = lidar.angles()
    RANGE = lidar.max_range()
    new_scan = ranges != last_ranges
    last_ranges = ranges

    if not particles:
        # The first scan: the robot stands still while CANDIDATES first guesses are
        # drawn and scored with a few beams, FIRST_CHUNK a step, keeping the best
        # PARTICLES of them so far; then those become the particles.
        drive.set(0.0, 0.0)
        if job is None:
            job = prepare(ranges, angles, FIRST_BEAM_EVERY, 0)
            best, drawn = [], 0
            last_pose = pose
        hits, misses = job
        batch = [random_guess() for _ in range(min(FIRST_CHUNK, CANDIDATES - drawn))]
        drawn += len(batch)
        best = heapq.nlargest(PARTICLES, best + [(weigh(p, hits, misses), p) for p in batch],
                              key=lambda scored: scored[0])
        if drawn == CANDIDATES:
            particles = [p for _, p in best]
            log_weights = [0.0] * len(particles)
            draw(particles)
            job = None
            robot.log(f"kept the best {len(particles)} of {CANDIDATES} first guesses")
    else:
        wander(ranges, angles)
        if job is None and new_scan:
            # Catch up with the odometry: how far the robot went since the guesses last
            # moved, in the frame of the robot then.
            dx, dy = pose[0] - last_pose[0], pose[1] - last_pose[1]
            cos_h, sin_h = math.cos(last_pose[2]), math.sin(last_pose[2])
            forward, sideways = dx * cos_h + dy * sin_h, -dx * sin_h + dy * cos_h
            turn = (pose[2] - last_pose[2] + math.pi) % (2 * math.pi) - math.pi
            if abs(forward) + abs(sideways) + abs(turn) > 1e-4:
                move(particles, forward, sideways, turn)
            last_pose = pose
            job = prepare(ranges, angles, BEAM_EVERY, FREE_BEAMS)
            scores = []
        elif job is not None:
            hits, misses = job
            for p in particles[len(scores):len(scores) + CHUNK]:
                scores.append(weigh(p, hits, misses))
            if len(scores) == len(particles):
                job = None
                log_weights = [l + s for l, s in zip(log_weights, scores)]
                weights = normalize(log_weights)
                x, y, heading, spread = summary(particles, weights)
                robot.publish_estimate(x, y, heading)
                if not sure and spread < SURE:
                    robot.log(f"sure where it is at t = {robot.time():.1f} s: ({x:.2f}, {y:.2f}), "
                              f"heading {math.degrees(heading):.0f} degrees")
                sure = spread < SURE
                # Resample when the weights have become uneven: when the "effective"
                # number of guesses (1 / sum of squared weights) is under half.
                effective = 1.0 / sum(w * w for w in weights)
                wanted = TRACKING if sure else PARTICLES
                if effective < len(particles) / 2 or wanted != len(particles):
                    particles = resample(particles, weights, wanted)
                    log_weights = [0.0] * len(particles)
                draw(particles)
                if robot.time() >= next_report:
                    next_report = robot.time() + 5.0
                    robot.log(f"t = {robot.time():.1f} s: {len(particles)} guesses, spread {spread:.2f} m, "
                              f"estimate ({x:.2f}, {y:.2f}, {math.degrees(heading):.0f} deg), "
                              f"busiest step {busiest * 1000:.0f} ms of CPU")
    busiest = max(busiest, time.process_time() - started)
