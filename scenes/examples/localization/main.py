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
180 degrees ahead, 8 m at most, so from most places it cannot see the corridor's ends.
Only the doorway recess half-way along the first leg, the corner and the dead end tell
places apart. So the program keeps many guesses spread along the corridor while it
drives slowly towards those features (the weights are multiplied from scan to scan and
only resampled when they have become uneven, so the guesses along the corridor are
not thinned out by chance), and it only says it is sure, speeds up and keeps fewer
guesses once the cloud has shrunk around one place.

The first guesses cover the whole corridor (every free cell inside it, every
heading): that is what "somewhere in the corridor" means. Set SEARCH_WHOLE_MAP = True to
spread them over the whole lab instead: much harder, because the spaces between the
corridor's walls and the room's walls look like corridors too. CANDIDATES first guesses
are scored against the first scan while the robot stands still, and the best
PARTICLES of them kept.

A program has about 21 ms of CPU per control step (docs/programs.md). Weighing 2000
guesses against a scan takes far longer, so the filter is written as a *generator*
(localize() below): it does a little work, then `yield`s the control step back, and the
main loop resumes it at the next step. No step takes more than a few milliseconds; an
update takes as many steps as it needs while the robot drives on. The guesses stay
where they were at the scan until it is weighed, then catch up with the odometry.

Only the standard library is used. Ground coordinates are those of the odometry and
the map: x along the lab's X axis, y along -Z, headings counter-clockwise seen from
above.
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
FREE_BEAMS = 4           # beams that hit nothing checked per scan (each costs more)
SIGMA = 0.12             # how far (m) a beam's end may miss a wall and still count
Z_RANDOM = 0.05          # share of readings that fit nothing (another robot, noise)
INDEPENDENT = 12.0       # the beams count as this many independent ones: neighbouring
                         # beams see the same wall, so they do not all count in full
MAX_FIELD = 0.5          # distances to walls beyond this are all "far"
CHUNK = 40               # guesses weighed per control step (CPU per step)
FIRST_CHUNK = 250        # first guesses drawn and scored per control step
SLOW, FAST = 0.1, 0.2    # forward speed (m/s) while unsure, and once sure
SHOWN = 500              # guesses drawn (at most)
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
# In metres; less half a cell, because a wall's face is half a cell from the centre
# of its outermost cell (a beam should end there, not at the centre).
distance = [max(0.0, math.sqrt(d2) - 0.5) * RES for d2 in dist2]
del dist2, nearest

# Each beam's log-likelihood, looked up by where it ends: a Gaussian around the walls,
# plus a floor for readings that fit nothing. Looked up, not computed, for speed.
#
# A beam stops at a wall's face, but a point anywhere inside the wall is as near a wall
# as the face is: guesses whose beams end 5 cm deep in the walls ahead would fit as well,
# and the estimate would lean into them. So each beam is looked up half a cell short of
# its end (where it should be in free space, just before a wall), and a point inside a
# wall counts as SIGMA away from one.
def beam_log_likelihood(d):
    return math.log((1 - Z_RANDOM) * math.exp(-d * d / (2 * SIGMA * SIGMA)) + Z_RANDOM)


field = [beam_log_likelihood(SIGMA if walls[i] else distance[i]) for i in range(W * H)]
log_random = math.log(Z_RANDOM)


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
def motion_since(before, now):
    """How the robot moved between two odometry readings, in its frame at ``before``:
    (forward, sideways, turn)."""
    dx, dy = now[0] - before[0], now[1] - before[1]
    cos_h, sin_h = math.cos(before[2]), math.sin(before[2])
    turn = (now[2] - before[2] + math.pi) % (2 * math.pi) - math.pi
    return dx * cos_h + dy * sin_h, -dx * sin_h + dy * cos_h, turn


def moved(pose, forward, sideways, turn):
    """``pose`` moved by (forward, sideways, turn) in its own frame."""
    x, y, h = pose
    cos_h, sin_h = math.cos(h), math.sin(h)
    heading = (h + turn + math.pi) % (2 * math.pi) - math.pi
    return x + forward * cos_h - sideways * sin_h, y + forward * sin_h + sideways * cos_h, heading


def move(particles, forward, sideways, turn):
    """Moves each guess by the odometry's motion, in its own frame, with its own noise."""
    gauss = random.gauss
    forward_noise = 0.05 * abs(forward) + 0.002
    side_noise = 0.02 * abs(forward) + 0.001
    turn_noise = 0.05 * abs(turn) + 0.02 * abs(forward) + 0.002
    for p in particles:
        f = forward + gauss(0, forward_noise)
        s = sideways + gauss(0, side_noise)
        cos_h, sin_h = math.cos(p[2]), math.sin(p[2])
        p[0] += f * cos_h - s * sin_h
        p[1] += f * sin_h + s * cos_h
        p[2] = (p[2] + turn + gauss(0, turn_noise) + math.pi) % (2 * math.pi) - math.pi


def prepare(ranges, angles, every, free_beams):
    """The beams to weigh a scan by: each hit as a point in the robot's frame, in
    cells, half a cell short of its end; and a few beams that hit nothing, as angles."""
    hits, misses = [], []
    for i in range(0, len(ranges), every):
        r, a = ranges[i], angles[i]
        if r < RANGE - 0.05:
            short = (r - RES / 2) / RES
            hits.append((short * math.cos(a), short * math.sin(a)))
        else:
            misses.append(a)
    if not free_beams:
        return hits, []
    return hits, misses[::max(1, len(misses) // free_beams)][:free_beams]


def weigh(p, hits, misses):
    """A guess's log-likelihood of the scan: the field at each hit's end seen from the
    guess, and, for each beam that hit nothing, whether the map lets it run the lidar's
    whole range from there."""
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
    """Weights that add up to 1, from logarithms (less the largest first, so nothing
    underflows)."""
    top = max(log_weights)
    weights = [math.exp(l - top) for l in log_weights]
    total = sum(weights)
    return [w / total for w in weights]


def resample(particles, weights, n):
    """``n`` guesses drawn in proportion to their weights by low-variance resampling
    (one random offset, then evenly spaced picks), as copies."""
    step = 1.0 / n
    pick = random.uniform(0, step)
    cumulative, i = weights[0], 0
    drawn = []
    for _ in range(n):
        while pick > cumulative and i < len(particles) - 1:
            i += 1
            cumulative += weights[i]
        drawn.append(list(particles[i]))
        pick += step
    return drawn


def jitter(particles):
    """Nudges each guess a little, so the copies of one guess spread out again."""
    gauss = random.gauss
    for p in particles:
        p[0] += gauss(0, 0.02)
        p[1] += gauss(0, 0.02)
        p[2] += gauss(0, 0.01)


def summary(particles, weights):
    """The weighted mean pose (headings averaged as unit vectors) and the spread: the
    root mean square distance of the guesses from the mean."""
    x = sum(w * p[0] for p, w in zip(particles, weights))
    y = sum(w * p[1] for p, w in zip(particles, weights))
    c = sum(w * math.cos(p[2]) for p, w in zip(particles, weights))
    s = sum(w * math.sin(p[2]) for p, w in zip(particles, weights))
    spread = math.sqrt(sum(w * ((p[0] - x) ** 2 + (p[1] - y) ** 2) for p, w in zip(particles, weights)))
    return (x, y, math.atan2(s, c)), spread


def draw(particles):
    """Draws (at most SHOWN of) the guesses, until the next update."""
    shown = particles[::max(1, len(particles) // SHOWN)]
    robot.clear_drawings()
    robot.draw_points([(p[0], p[1]) for p in shown], color="orange", keep=True)


def pieces(items, size):
    """``items`` in slices of ``size``."""
    return (items[i:i + size] for i in range(0, len(items), size))


# --- The filter, a little at every control step ---------------------------------------
# What the main loop reads at each step, for the filter to use.
scan = None             # (ranges, angles) of the latest scan
scan_number = 0         # counts the scans (a new one: the number changes)
pose = None             # the latest odometry reading
# What the filter says, for the main loop.
estimate = None         # the latest estimate, (x, y, heading) ...
estimate_at = None      # ... when the odometry read this
sure = False            # the guesses have gathered in one place
started = False         # the first guesses are scored: the robot may drive


def localize():
    """The particle filter. A generator: each ``yield`` gives the control step back to
    the lab, and the main loop resumes it at the next one."""
    global estimate, estimate_at, sure, started
    # The first guesses: CANDIDATES of them over the corridor, scored against the first
    # scan with a few beams, FIRST_CHUNK a step; the best PARTICLES are kept.
    hits, misses = prepare(*scan, FIRST_BEAM_EVERY, 0)
    odometry = pose
    best = []
    for _ in range(0, CANDIDATES, FIRST_CHUNK):
        batch = [random_guess() for _ in range(FIRST_CHUNK)]
        best = heapq.nlargest(PARTICLES, best + [(weigh(p, hits, misses), p) for p in batch],
                              key=lambda scored: scored[0])
        yield
    particles = [p for _, p in best]
    log_weights = [0.0] * len(particles)
    robot.log(f"kept the best {len(particles)} of {CANDIDATES} first guesses")
    draw(particles)
    started = True
    seen = scan_number
    report_at = 0.0
    while True:
        while scan_number == seen:              # wait for a new scan
            yield
        seen = scan_number
        # Motion: catch up with the odometry since the guesses last moved.
        forward, sideways, turn = motion_since(odometry, pose)
        odometry = pose
        if abs(forward) + abs(sideways) + abs(turn) > 1e-4:
            for piece in pieces(particles, 1000):
                move(piece, forward, sideways, turn)
            if estimate is not None:
                estimate, estimate_at = moved(estimate, forward, sideways, turn), odometry
            yield
        # Measurement: this scan against every guess, CHUNK guesses a step.
        hits, misses = prepare(*scan, BEAM_EVERY, FREE_BEAMS)
        for i, piece in enumerate(pieces(particles, CHUNK)):
            for j, p in enumerate(piece):
                log_weights[i * CHUNK + j] += weigh(p, hits, misses)
            yield
        weights = normalize(log_weights)
        estimate, spread = summary(particles, weights)
        estimate_at = odometry
        if not sure and spread < SURE:
            x, y, heading = estimate
            robot.log(f"sure where it is at t = {robot.time():.1f} s: ({x:.2f}, {y:.2f}), "
                      f"heading {math.degrees(heading):.0f} degrees")
        sure = spread < SURE
        yield
        # Resampling, when the weights have become uneven (the "effective" number of
        # guesses, 1 / the sum of the squared weights, is under half of them), or to
        # keep fewer guesses once sure (more if it becomes unsure again).
        wanted = TRACKING if sure else PARTICLES
        if 1.0 / sum(w * w for w in weights) < len(particles) / 2 or wanted != len(particles):
            particles = resample(particles, weights, wanted)
            log_weights = [0.0] * len(particles)
            yield
            for piece in pieces(particles, 1000):
                jitter(piece)
            yield
        draw(particles)
        if robot.time() >= report_at:
            report_at = robot.time() + 5.0
            x, y, heading = estimate
            robot.log(f"t = {robot.time():.1f} s: {len(particles)} guesses, spread {spread:.2f} m, "
                      f"estimate ({x:.2f}, {y:.2f}, {math.degrees(heading):.0f} deg), "
                      f"busiest step {busiest * 1000:.1f} ms of CPU")


# --- Driving --------------------------------------------------------------------------
def wander(ranges, angles):
    """Forward, towards the more open side; turn on the spot when blocked ahead. In the
    corridor this drives past the recess and round the corner to the dead end, and
    back. Slowly while unsure, so that it sees more scans on its way."""
    ahead = min(r for r, a in zip(ranges, angles) if abs(a) < 0.35)
    left = sum(r for r, a in zip(ranges, angles) if 0.35 <= a <= 1.4)
    right = sum(r for r, a in zip(ranges, angles) if -1.4 <= a <= -0.35)
    if ahead < 0.45:
        drive.set(0.0, 1.2)
    else:
        balance = (left - right) / max(left + right, 1e-6)
        drive.set(min(FAST if sure else SLOW, 0.6 * (ahead - 0.3)), 1.5 * balance)


# --- The loop -----------------------------------------------------------------------
filter_steps = None
busiest = 0.0           # the most CPU (s) one control step took, for the console
cpu_before = None
last_ranges = None
while robot.step():
    # CPU since the previous step: what this program costs per control step.
    cpu = time.process_time()
    if cpu_before is not None:
        busiest = max(busiest, cpu - cpu_before)
    cpu_before = cpu
    ranges = lidar.ranges()
    pose = odom.value()
    if not ranges or pose is None:
        continue
    if ranges != last_ranges:
        scan, scan_number, last_ranges = (ranges, lidar.angles()), scan_number + 1, ranges
        RANGE = lidar.max_range()
    if filter_steps is None:
        filter_steps = localize()
    next(filter_steps)
    if started:
        wander(*scan)
    else:
        drive.set(0.0, 0.0)
    if estimate is not None:
        # The estimate is where the guesses put the robot when the odometry read
        # estimate_at; since then it has moved as the odometry says. Published at every
        # step, so it does not lag behind while a scan is being weighed.
        robot.publish_estimate(*moved(estimate, *motion_since(estimate_at, pose)))
