# Track a red post with the camera: turn on the spot until something red shows, then
# keep it in the middle of the image and drive up to it; stop when it fills a third
# of the image's width.
#
# The camera gives a new image five times a second (robot.sensor("eye").image()): its
# pixels are (r, g, b) from the top-left. Only the rows around the middle are looked
# at, where a post standing on the floor shows whatever its distance. Try another
# colour test in is_red, or a faster turn, and see when it overshoots.

from vlab import Robot

SEARCH_TURN = 0.8   # rad/s while nothing red is in view
SPEED = 0.15        # m/s towards the post
GAIN = 1.5          # turn per unit of offset (-1: left edge of the image, +1: right edge)
NEAR = 1 / 3        # stop when red fills this share of the image's width


def is_red(pixel):
    r, g, b = pixel
    return r > 60 and r > 1.8 * g and r > 1.8 * b


def red_columns(image):
    """The columns of the middle rows where something red shows."""
    middle = image.height // 2
    columns = set()
    for y in (middle - 2, middle, middle + 2):
        for x, pixel in enumerate(image.row(y)):
            if is_red(pixel):
                columns.add(x)
    return sorted(columns)


robot = Robot()
eye = robot.sensor("eye")
drive = robot.actuator("drive")

state = ""
last_image = None
v, omega = 0.0, SEARCH_TURN
while robot.step():
    image = eye.image()
    if image is None or image is last_image:
        drive.set(v, omega)         # no new image: keep going as decided
        continue
    last_image = image
    columns = red_columns(image)
    if not columns:
        new_state = "searching: turning on the spot"
        v, omega = 0.0, SEARCH_TURN
    else:
        centre = (columns[0] + columns[-1]) / 2
        offset = (centre - (image.width - 1) / 2) / (image.width / 2)   # -1 .. 1, right positive
        width = (columns[-1] - columns[0] + 1) / image.width
        if width >= NEAR:
            new_state = "reached the red post"
            v, omega = 0.0, 0.0
        else:
            new_state = "tracking: driving to the red post"
            # Red to the right of centre: turn right (negative omega turns clockwise).
            v, omega = SPEED, -GAIN * offset
    if new_state != state:
        state = new_state
        robot.log(f"{robot.time():.1f} s: {state}")
    drive.set(v, omega)
