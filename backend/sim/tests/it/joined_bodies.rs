//! What a joint does besides holding its bodies, as in ODE: two joined bodies do not
//! collide unless the joint says `collide true;`, and a hinge's motor, encoder and
//! joint-state sensor count body 1's turn relative to body 2 about the axis.

use vlab_protocol::SensorValue;
use vlab_protocol::pose::length;
use vlab_sim::robot::Robots;
use vlab_sim::scene::{self, SceneModel};
use vlab_sim::sim::World;

fn interpret(source: &str) -> SceneModel {
    let result = scene::interpret(source, "test.vlab", &scene::MapLoader::new(), &scene::Options::default());
    let interpretation = result.unwrap_or_else(|e| panic!("scene does not load: {e:?}"));
    assert!(interpretation.warnings.is_empty(), "{:?}", interpretation.warnings);
    interpretation.model
}

/// Two boxes overlapping by half their width, floating (no gravity), on a ball joint
/// on the top edge of the overlap; `extra` goes into the joint's block.
fn overlapping_pair(extra: &str) -> String {
    format!(
        r#"
        environment wallrect {{ width 10; length 10; height 1; gravity 0; }}
        a {{ shape box(1, 1, 1); pos(5, 3, 5); }}
        b {{ shape box(1, 1, 1); pos(5.5, 3, 5); }}
        JointBall(a, b) {{ anchor(5.25, 3.5, 5); {extra} }}
        "#
    )
}

/// How far apart the two boxes' centres are after a second.
fn separation_after_a_second(source: &str) -> f32 {
    let model = interpret(source);
    let mut world = World::build(&model).unwrap();
    let (a, b) = (model.bodies.len() - 2, model.bodies.len() - 1);
    for _ in 0..240 {
        world.step();
    }
    let (pa, pb) = (world.pose(a).position, world.pose(b).position);
    length([pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]].map(f64::from)) as f32
}

#[test]
fn two_overlapping_bodies_on_a_ball_joint_do_not_push_apart() {
    let apart = separation_after_a_second(&overlapping_pair(""));
    println!("joined, overlapping: centres {apart} apart after 1 s (0.5 at the start)");
    assert!((apart - 0.5).abs() < 1e-3, "the joined boxes moved: centres {apart} apart");
}

#[test]
fn collide_true_keeps_the_contacts_between_joined_bodies() {
    let model = interpret(&overlapping_pair("collide true;"));
    assert!(model.joints[0].bodies_touch);
    // The contact pushes the boxes apart about the ball joint, which holds their
    // anchor points together: they turn away from each other.
    let apart = separation_after_a_second(&overlapping_pair("collide true;"));
    println!("joined with collide true: centres {apart} apart after 1 s");
    assert!(apart > 0.6, "the colliding boxes stayed {apart} apart");
}

#[test]
fn a_positive_motor_speed_turns_body_1_forwards_relative_to_body_2() {
    // A turntable (body 2) on a fixed base (body 1), axis +Y, at +2 rad/s: as in ODE,
    // the base turns +2 rad/s relative to the table, so the table turns −2 rad/s
    // about +Y (clockwise seen from above), and the joint's sensors read +2.
    let model = interpret(
        r#"
        robot spinner {
          body {
            static base { shape box(0.5, 0.1, 0.5); pos(0, 0.05, 0); }
            table { shape box(0.6, 0.1, 0.6); pos(0, 0.2, 0); }
            JointHinge(base, table) { anchor(0, 0.2, 0); axis(0, 1, 0);
              SimpleMotor motor { speed 2; max_force 50; }
              JointState state { rate 240; } }
          }
        }
        "#,
    );
    let mut world = World::build(&model).unwrap();
    let mut robots = Robots::configure(&model, 1).unwrap();
    robots.install(&mut world, 0, 0.0);
    for step in 1..=240 {
        robots.apply_actuators(&mut world);
        world.step();
        robots.update_sensors(&world, step, step as f64 / 240.0);
    }
    let (_, spin) = world.velocities(1);
    println!("table spins at {spin:?} rad/s");
    assert!((spin[1] + 2.0).abs() < 0.05, "the table spins at {} rad/s about +Y, expected −2", spin[1]);
    let report = robots.report("spinner", &world, 240, 1.0).unwrap();
    let state = report.sensors.iter().find(|s| s.name == "state").unwrap();
    let Some(SensorValue::Joint { position, velocity }) = state.truth else { panic!("{:?}", state.truth) };
    assert!((velocity - 2.0).abs() < 0.05, "the joint reads {velocity} rad/s, expected +2");
    assert!(position > 1.0, "the joint reads {position} rad after a second at +2 rad/s");
}

#[test]
fn a_servo_holds_its_position_with_the_same_sign_as_its_joint_state() {
    // A servo at +0.5 rad on a hinge about +Y: its joint state reads +0.5, and the arm
    // (body 2) stands turned −0.5 rad about +Y relative to the base.
    let model = interpret(
        r#"
        robot arm {
          body {
            static base { shape box(0.2, 0.1, 0.2); pos(0, 0.05, 0); }
            link { shape box(0.4, 0.04, 0.04); pos(0.2, 0.2, 0); density 500; }
            JointHinge(base, link) { anchor(0, 0.2, 0); axis(0, 1, 0);
              SimpleServo servo { position 0.5; kp 5; kd 0.5; max_force 5; }
              JointState state { rate 240; } }
          }
        }
        "#,
    );
    let mut world = World::build(&model).unwrap();
    let mut robots = Robots::configure(&model, 1).unwrap();
    robots.install(&mut world, 0, 0.0);
    for step in 1..=720 {
        robots.apply_actuators(&mut world);
        world.step();
        robots.update_sensors(&world, step, step as f64 / 240.0);
    }
    let report = robots.report("arm", &world, 720, 3.0).unwrap();
    let state = report.sensors.iter().find(|s| s.name == "state").unwrap();
    let Some(SensorValue::Joint { position, .. }) = state.truth else { panic!("{:?}", state.truth) };
    assert!((position - 0.5).abs() < 0.02, "the servo holds {position} rad, expected 0.5");
    // The link's far end: from (0.4, 0.2, 0), turned −0.5 rad about +Y → z = +0.4·sin 0.5.
    let rotation = world.pose(1).rotation;
    let tip = vlab_protocol::pose::rotate(rotation.map(f64::from), [0.4, 0.0, 0.0]);
    assert!((tip[2] - 0.4 * 0.5f64.sin()).abs() < 0.01, "the link points along {tip:?}");
}
