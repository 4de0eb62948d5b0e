//! Robots imported from URDF (docs/urdf.md) in the physics: the course's diffbot written
//! in URDF from its numbers (`scenes/urdf/diffbot.urdf`) drives the half circle of
//! docs/sensors.md ("Differential drive: reference figures") as the native one does;
//! revolute and prismatic joints stop at their limits, a floating link is free, fixed
//! links are one body; a missing mesh warns and loads; a malformed file is refused at
//! its line. Figures come from the robots' own sensors; everything runs in simulation
//! time.

use std::collections::BTreeMap;
use std::f64::consts::{PI, TAU};

use serde_json::{Value, json};
use vlab_protocol::{SensorReport, SensorValue};
use vlab_sim::robot::Robots;
use vlab_sim::scene::{DirLoader, MapLoader, Options, SceneModel, SourceLoader, interpret};
use vlab_sim::sim::World;

/// A scene's world and robots, stepped in a lab's order.
struct Lab {
    world: World,
    robots: Robots,
    dt: f64,
    step: u64,
}

impl Lab {
    fn new(source: &str, loader: &dyn SourceLoader) -> Lab {
        let result = interpret(source, "main.vlab", loader, &Options::default()).unwrap_or_else(|e| panic!("{}", e[0]));
        assert!(result.warnings.is_empty(), "{:?}", result.warnings);
        Lab::model(&result.model)
    }

    fn model(model: &SceneModel) -> Lab {
        let mut world = World::build(model).unwrap();
        let mut robots = Robots::configure(model, 7).unwrap();
        robots.install(&mut world, 0, 0.0);
        Lab { world, robots, dt: model.dt_secs, step: 0 }
    }

    fn command(&mut self, robot: &str, commands: Value) {
        let commands: BTreeMap<String, Value> = serde_json::from_value(commands).unwrap();
        self.robots.command(robot, &commands).expect("the robot exists").expect("the commands are accepted");
    }

    fn run(&mut self, seconds: f64) {
        for _ in 0..(seconds / self.dt).round() as u64 {
            self.robots.apply_actuators(&mut self.world);
            self.world.step();
            self.step += 1;
            self.robots.update_sensors(&self.world, self.step, self.step as f64 * self.dt);
        }
    }

    fn sensor(&self, robot: &str, sensor: &str) -> SensorReport {
        let report = self.robots.report(robot, &self.world, self.step, self.step as f64 * self.dt).unwrap();
        report.sensors.into_iter().find(|s| s.name == sensor).unwrap_or_else(|| panic!("{robot} has no {sensor}"))
    }

    /// The ground-plane position `(x, y)` = world `(X, −Z)` its GPS measures.
    fn gps(&self, robot: &str) -> (f64, f64) {
        match self.sensor(robot, "gps").measured {
            Some(SensorValue::Vector { values: [x, _, z] }) => (x, -z),
            other => panic!("gps reads {other:?}"),
        }
    }

    fn compass(&self, robot: &str) -> f64 {
        match self.sensor(robot, "compass").measured {
            Some(SensorValue::Scalar { value }) => value,
            other => panic!("compass reads {other:?}"),
        }
    }

    fn joint(&self, robot: &str, sensor: &str) -> f64 {
        match self.sensor(robot, sensor).measured {
            Some(SensorValue::Joint { position, .. }) => position,
            other => panic!("{sensor} reads {other:?}"),
        }
    }
}

fn scenes() -> DirLoader {
    DirLoader { scenes: std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenes"), assets: None }
}

/// The angle from `from` to `to` in (−π, π].
fn turn(from: f64, to: f64) -> f64 {
    let d = (to - from).rem_euclid(TAU);
    if d > PI { d - TAU } else { d }
}

/// Where a robot is after a second of spin-up, and after half a turn more at ω = 0.3 rad/s.
struct HalfCircle {
    start: (f64, f64),
    heading: f64,
    end: (f64, f64),
    turned: f64,
}

fn half_circle(source: &str, robot: &str, commands: Value) -> HalfCircle {
    let mut lab = Lab::new(source, &scenes());
    lab.command(robot, commands);
    lab.run(1.0);
    let (start, heading) = (lab.gps(robot), lab.compass(robot));
    // Half a turn in steps of a quarter second, the heading followed across ±π.
    let mut turned = 0.0;
    let mut last = heading;
    for _ in 0..((PI / 0.3) / 0.25).round() as usize {
        lab.run(0.25);
        let now = lab.compass(robot);
        turned += turn(last, now);
        last = now;
    }
    let end = lab.gps(robot);
    println!("{robot}: from {start:?} heading {heading:.4} to {end:?}, turned {turned:.4} rad");
    HalfCircle { start, heading, end, turned }
}

const URDF_DIFFBOT: &str = "include \"urdf_diffbot.vlab\";";

/// ωR = 6, ωL = 4 rad/s (r = 0.03 m, ℓ = 0.2 m): v = 0.15 m/s, ω = 0.3 rad/s, a circle of
/// radius 0.5 m to the robot's left. Half a turn later (π / 0.3 s) the robot has turned
/// π (±10 %) and stands a diameter (1 m ± 10 %) away, straight to the left of where it
/// started (±0.1 rad), and within 5 cm of where the native diffbot ends.
fn assert_the_half_circle(urdf: &HalfCircle, native: &HalfCircle) {
    assert!((urdf.turned - PI).abs() < 0.1 * PI, "turned {:.4} rad, expected π ± 10 %", urdf.turned);
    let (dx, dy) = (urdf.end.0 - urdf.start.0, urdf.end.1 - urdf.start.1);
    let across = dx.hypot(dy);
    assert!((across - 1.0).abs() < 0.1, "moved {across:.4} m across, expected 1 m ± 10 %");
    let left = urdf.heading + PI / 2.0;
    assert!(turn(left, dy.atan2(dx)).abs() < 0.1, "ended towards {:.4} rad, expected {left:.4}", dy.atan2(dx));
    let apart = (urdf.end.0 - native.end.0).hypot(urdf.end.1 - native.end.1);
    assert!(apart < 0.05, "the URDF robot ends {apart:.4} m from the native diffbot");
}

#[test]
fn the_urdf_diffbot_drives_the_native_half_circle_by_its_wheels() {
    let commands = json!({"m_l": {"speed": 4.0}, "m_r": {"speed": 6.0}});
    let native = half_circle("include \"diffbot.vlab\";", "diffbot", commands.clone());
    let urdf = half_circle(URDF_DIFFBOT, "urdf_diffbot", commands);
    assert_the_half_circle(&urdf, &native);
}

#[test]
fn the_urdf_diffbot_drives_the_native_half_circle_by_its_drive_plugin() {
    let commands = json!({"drive": {"v": 0.15, "omega": 0.3}});
    let native = half_circle("include \"diffbot.vlab\";", "diffbot", commands.clone());
    let urdf = half_circle(URDF_DIFFBOT, "urdf_diffbot", commands);
    assert_the_half_circle(&urdf, &native);
}

/// A heavy base on the floor, an upper arm on a vertical revolute joint limited to
/// ±0.5 rad, a slide on a prismatic joint limited to 0..0.1 m along the arm, a ball on a
/// floating joint 0.5 m up, and a plate fixed to the base.
const ARM: &str = r#"<robot name="arm">
  <link name="base">
    <inertial><mass value="20"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
    <collision><origin xyz="0 0 0.05"/><geometry><box size="0.3 0.3 0.1"/></geometry></collision>
  </link>
  <link name="plate">
    <collision><origin xyz="0 0 0.105"/><geometry><box size="0.1 0.1 0.01"/></geometry></collision>
  </link>
  <joint name="plate_joint" type="fixed"><parent link="base"/><child link="plate"/></joint>
  <link name="upper">
    <inertial><mass value="0.2"/><inertia ixx="1e-3" ixy="0" ixz="0" iyy="1e-3" iyz="0" izz="1e-3"/></inertial>
    <collision><origin xyz="0.15 0 0"/><geometry><box size="0.3 0.04 0.04"/></geometry></collision>
  </link>
  <joint name="shoulder" type="revolute">
    <parent link="base"/><child link="upper"/><origin xyz="0 0 0.2"/><axis xyz="0 0 1"/>
    <limit lower="-0.5" upper="0.5" effort="1" velocity="1"/>
  </joint>
  <link name="slide">
    <inertial><mass value="0.05"/><inertia ixx="1e-5" ixy="0" ixz="0" iyy="1e-5" iyz="0" izz="1e-5"/></inertial>
    <collision><geometry><box size="0.04 0.06 0.06"/></geometry></collision>
  </link>
  <joint name="extend" type="prismatic">
    <parent link="upper"/><child link="slide"/><origin xyz="0.2 0 0"/><axis xyz="1 0 0"/>
    <limit lower="0" upper="0.1" effort="5" velocity="0.5"/>
  </joint>
  <link name="ball">
    <collision><geometry><sphere radius="0.05"/></geometry></collision>
  </link>
  <joint name="loose" type="floating"><parent link="base"/><child link="ball"/><origin xyz="0.5 0 0.5"/></joint>
</robot>"#;

const ARM_SCENE: &str = r#"environment room { width 4; length 4; }
robot arm { body { urdf "arm.urdf" {
  pos(2, 0, 2);
  shoulder { SimpleMotor m_shoulder { max_force 0.5; } JointState shoulder_state; }
  extend { SimpleMotor m_extend { max_force 2; } JointState extend_state; }
} } }"#;

#[test]
fn revolute_and_prismatic_joints_stop_at_their_limits_and_fixed_links_are_one_body() {
    let loader = MapLoader::new().with_file("arm.urdf", ARM);
    let model = interpret(ARM_SCENE, "main.vlab", &loader, &Options::default()).unwrap().model;
    let names: Vec<&str> = model.bodies.iter().map(|b| b.name.as_str()).filter(|n| n.starts_with("arm_")).collect();
    assert_eq!(names, ["arm_base", "arm_upper", "arm_ball", "arm_slide"], "the plate is part of the base");
    assert_eq!(model.joints.iter().map(|j| j.name.as_str()).collect::<Vec<_>>(), ["arm_shoulder", "arm_extend"]);
    assert_eq!(model.joints[0].limits, Some([-0.5, 0.5]));

    let mut lab = Lab::model(&model);
    let ball = model.body_index("arm_ball").unwrap();
    let ball_start = lab.world.pose(ball).position[1];
    lab.command("arm", json!({"m_shoulder": {"speed": 1.0}, "m_extend": {"speed": 0.2}}));
    lab.run(2.0);
    let (shoulder, extend) = (lab.joint("arm", "shoulder_state"), lab.joint("arm", "extend_state"));
    println!("after 2 s forward: shoulder {shoulder:.4} rad, extend {extend:.4} m");
    // Unlimited, 2 s at 1 rad/s and 0.2 m/s would give 2 rad and 0.4 m.
    assert!((shoulder - 0.5).abs() < 0.05, "shoulder at {shoulder:.4} rad, its upper limit is 0.5");
    assert!((extend - 0.1).abs() < 0.01, "slide at {extend:.4} m, its upper limit is 0.1");
    // URDF turns are right-handed about the axis: about Z (up) by +0.5 rad the arm
    // swings to the robot's left (URDF +Y, VLab −Z); the slide's centre is 0.3 m out.
    let slide = lab.world.pose(model.body_index("arm_slide").unwrap()).position;
    let expected = [2.0 + 0.3 * 0.5f32.cos(), 2.0 - 0.3 * 0.5f32.sin()];
    assert!(
        (slide[0] - expected[0]).abs() < 0.01 && (slide[2] - expected[1]).abs() < 0.01,
        "slide at {slide:?}, expected x, z = {expected:?}"
    );
    lab.command("arm", json!({"m_shoulder": {"speed": -1.0}, "m_extend": {"speed": -0.2}}));
    lab.run(3.0);
    let (shoulder, extend) = (lab.joint("arm", "shoulder_state"), lab.joint("arm", "extend_state"));
    println!("after 3 s back: shoulder {shoulder:.4} rad, extend {extend:.4} m");
    assert!((shoulder + 0.5).abs() < 0.05, "shoulder at {shoulder:.4} rad, its lower limit is −0.5");
    assert!(extend.abs() < 0.01, "slide at {extend:.4} m, its lower limit is 0");
    // The floating ball fell from 0.5 m to the floor (its radius, 0.05 m).
    let ball_now = lab.world.pose(ball).position[1];
    assert!((ball_start - 0.5).abs() < 1e-4 && (ball_now - 0.05).abs() < 0.01, "ball from {ball_start} to {ball_now}");
}

#[test]
fn a_missing_mesh_warns_and_the_robot_still_loads() {
    let urdf = r#"<robot name="r">
  <link name="base">
    <visual><geometry><mesh filename="package://r_description/meshes/base.stl" scale="0.001 0.001 0.001"/></geometry></visual>
    <collision><geometry><box size="0.2 0.2 0.1"/></geometry></collision>
  </link>
</robot>"#;
    let loader = MapLoader::new().with_file("r.urdf", urdf);
    let scene = "robot r { body { urdf \"r.urdf\" { pos(1, 0.05, 1); } } }";
    let result = interpret(scene, "main.vlab", &loader, &Options::default()).unwrap();
    assert_eq!(result.warnings.len(), 1, "{:?}", result.warnings);
    let warning = result.warnings[0].to_string();
    assert!(
        warning.starts_with("r.urdf:2:3: warning: the mesh 'package://r_description/meshes/base.stl'"),
        "{warning}"
    );
    let mesh = result.model.bodies[0].parts[0].mesh.as_ref().expect("the mesh is still named");
    assert_eq!(mesh.resolved, None, "nothing to draw: the box is drawn");
    World::build(&result.model).unwrap();
}

#[test]
fn a_malformed_urdf_is_refused_at_its_line() {
    let urdf = "<robot name=\"r\">\n  <link name=\"base\">\n    <collision><geometry><box size=\"1 1\"/></geometry></collision>\n  </link>\n</robot>";
    let loader = MapLoader::new().with_file("r.urdf", urdf);
    let scene = "robot r { body {\n  urdf \"r.urdf\";\n} }";
    let errors = interpret(scene, "main.vlab", &loader, &Options::default()).unwrap_err();
    assert_eq!(errors[0].to_string(), "r.urdf:3:26: size=\"1 1\" of <box> must be 3 numbers");
    let broken = "<robot name=\"r\">\n  <link name=\"base\">\n</robot>";
    let loader = MapLoader::new().with_file("r.urdf", broken);
    let errors = interpret(scene, "main.vlab", &loader, &Options::default()).unwrap_err();
    assert_eq!((errors[0].pos.file.as_ref(), errors[0].pos.line), ("r.urdf", 3), "{}", errors[0]);
}

/// A binary STL of a box `size` (file units) centred on the origin: 12 triangles.
fn box_stl(size: [f32; 3]) -> Vec<u8> {
    let h = size.map(|s| s / 2.0);
    let corner = |i: usize| [0, 1, 2].map(|axis| if i & (1 << axis) == 0 { -h[axis] } else { h[axis] });
    let faces = [[0, 1, 3, 2], [4, 6, 7, 5], [0, 4, 5, 1], [2, 3, 7, 6], [0, 2, 6, 4], [1, 5, 7, 3]];
    let mut bytes = vec![0u8; 80];
    bytes.extend(12u32.to_le_bytes());
    for [a, b, c, d] in faces {
        for triangle in [[a, b, c], [a, c, d]] {
            bytes.extend([0u8; 12]);
            for v in triangle {
                corner(v).iter().for_each(|x| bytes.extend(x.to_le_bytes()));
            }
            bytes.extend([0u8; 2]);
        }
    }
    bytes
}

/// A link colliding as an STL mesh (a 200 x 100 x 50 mm box, scaled from millimetres)
/// collides as the mesh's convex hull: dropped from 0.3 m it rests on its 50 mm side,
/// its centre 0.025 m above the floor.
#[test]
fn a_collision_mesh_collides_as_its_convex_hull() {
    let urdf = r#"<robot name="brick"><link name="brick">
  <inertial><mass value="0.5"/><inertia ixx="1e-3" ixy="0" ixz="0" iyy="1e-3" iyz="0" izz="1e-3"/></inertial>
  <collision><geometry><mesh filename="package://brick/meshes/brick.stl" scale="0.001 0.001 0.001"/></geometry></collision>
</link></robot>"#;
    let loader = MapLoader::new()
        .with_file("brick.urdf", urdf)
        .with_asset_bytes("brick/meshes/brick.stl", &box_stl([200.0, 100.0, 50.0]));
    let scene =
        "environment room { width 2; length 2; }\nrobot brick { body { urdf \"brick.urdf\" { pos(1, 0.3, 1); } } }";
    let result = interpret(scene, "main.vlab", &loader, &Options::default()).unwrap();
    assert!(result.warnings.is_empty(), "{:?}", result.warnings);
    let model = result.model;
    let brick = model.body_index("brick_brick").unwrap();
    match &model.bodies[brick].parts[0].shape {
        vlab_sim::scene::Shape::ConvexHull { points } => assert_eq!(points.len(), 8, "the box's corners"),
        other => panic!("collides as {other:?}"),
    }
    let mut lab = Lab::model(&model);
    lab.run(2.0);
    let height = lab.world.pose(brick).position[1];
    println!("the brick rests at {height:.4} m");
    assert!((height - 0.025).abs() < 0.002, "the brick's centre is {height:.4} m above the floor");
}
