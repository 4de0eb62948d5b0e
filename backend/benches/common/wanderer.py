from vlab import Robot

robot = Robot()
lidar, drive = robot.sensor("lidar"), robot.actuator("drive")
while robot.step():
    ranges = lidar.ranges() or [8.0] * 180
    front = min(ranges[80:100])
    left, right = min(ranges[100:180]), min(ranges[0:80])
    if front < 0.4:
        drive.set(0.0, 1.5 if left > right else -1.5)
    else:
        drive.set(0.15, 0.3 if left > right else -0.3)
    if robot.step_count() % 500 == 0:
        robot.log(f"t={robot.time():.1f} front={front:.2f}")
