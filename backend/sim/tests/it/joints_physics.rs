//! Each joint type of the scene model, built by `sim::World` and stepped: it allows its
//! degrees of freedom and forbids the others.
//!
//! Tolerances. Rapier solves joints as stiff springs (10⁶ Hz by default) with four
//! substeps per 1/240 s step, so a locked row drifts by micrometres while gravity swings a
//! 1 kg body about a metre-long arm; measured errors here stay below 0.1 mm and 0.01°.
//! The bounds below (1 mm, 0.1°, about 10× the measured drift) fail on a wrong axis or
//! frame, which is off by centimetres or degrees within a few steps. Motions are
//! checked against thresholds of tens of centimetres or radians, which a free degree of
//! freedom exceeds many times over in the simulated time. Nothing depends on wall time.

use vlab_protocol::pose::{
    add, axis_angle, conjugate, cross, dot, length, multiply, rotate, sub, twist_angle, unrotate,
};
use vlab_sim::scene::{
    BodyModel, JointKind, JointModel, Motion, MotorModel, Palette, PartModel, Pose, SceneModel, Shape,
};
use vlab_sim::sim::World;

/// Positions kept by a locked joint row, metres.
const POSITION_TOL: f32 = 1e-3;
/// Angles kept by a locked joint row, radians (0.1°).
const ANGLE_TOL: f32 = 1.75e-3;

fn part(shape: Shape, local: Pose) -> PartModel {
    PartModel {
        shape,
        local,
        material: Palette::default().get("Steel"),
        density: 1000.0,
        friction: 0.5,
        restitution: 0.0,
        name: None,
        mesh: None,
        drawn_only: false,
    }
}

fn body(name: &str, motion: Motion, pose: Pose, shape: Shape) -> BodyModel {
    BodyModel { name: name.into(), motion, pose, parts: vec![part(shape, Pose::IDENTITY)], robot: None, owner: None }
}

fn ball(radius: f32) -> Shape {
    Shape::Sphere { radius }
}

fn cube(half: f32) -> Shape {
    Shape::Box { half_extents: [half; 3] }
}

fn joint(name: &str, body1: usize, body2: usize, kind: JointKind) -> JointModel {
    JointModel { name: name.into(), body1, body2, kind, erp: None, cfm: None, limits: None, bodies_touch: true }
}

/// A model of `bodies` and `joints`, with gravity along -Y (or none).
fn model(bodies: Vec<BodyModel>, joints: Vec<JointModel>, gravity_y: f32) -> SceneModel {
    let mut model = SceneModel::empty();
    model.gravity_y = gravity_y;
    model.bodies = bodies;
    model.joints = joints;
    model
}

/// A fixed pivot (a small cube away from everything) at `at`.
fn pivot(at: [f32; 3]) -> BodyModel {
    body("pivot", Motion::Fixed, Pose::at(at), cube(0.05))
}

// ---------------------------------------------------------------- measures

fn unit(a: [f32; 3]) -> [f32; 3] {
    let n = length(a);
    [a[0] / n, a[1] / n, a[2] / n]
}

/// The rotation taking `from` to `to` (`to = delta * from`), as a quaternion with w ≥ 0.
fn delta(from: [f32; 4], to: [f32; 4]) -> [f32; 4] {
    let d = multiply(to, conjugate(from));
    if d[3] < 0.0 { d.map(|c| -c) } else { d }
}

/// The angle of a rotation, radians, in [0, π].
fn angle(q: [f32; 4]) -> f32 {
    2.0 * length([q[0], q[1], q[2]]).atan2(q[3].abs())
}

/// The size of the part of rotation `q` that is not about the unit `axis`: the swing
/// of a swing-twist split, radians.
fn swing_off(q: [f32; 4], axis: [f32; 3]) -> f32 {
    let twist = axis_angle(axis, twist_angle(q, axis));
    angle(multiply(q, conjugate(twist)))
}

/// A point given in `body`'s frame at build time, where it is now.
fn carried(world: &World, index: usize, initial: &Pose, point: [f32; 3]) -> [f32; 3] {
    let local = unrotate(initial.rotation, sub(point, initial.position));
    let now = world.pose(index);
    add(now.position, rotate(now.rotation, local))
}

/// Steps `world` `steps` times, calling `check` after each step.
fn run(world: &mut World, steps: usize, mut check: impl FnMut(&World)) {
    for _ in 0..steps {
        world.step();
        check(world);
    }
}

const TWO_SECONDS: usize = 480;

// ---------------------------------------------------------------- hinge

#[test]
fn a_hinge_pendulum_swings_about_its_axis_only() {
    // A tilted axis and a turned bob, so a frame conversion error would show.
    let anchor = [0.0, 3.0, 0.0];
    let axis = unit([1.0, 0.0, 1.0]);
    let arm = unit([1.0, 0.0, -1.0]); // horizontal, perpendicular to the axis
    let bob_pose = Pose::at_turned([anchor[0] + arm[0], anchor[1], anchor[2] + arm[2]], unit([0.3, 1.0, 0.2]), 0.7);
    let bodies = vec![pivot(anchor), body("bob", Motion::Dynamic, bob_pose, ball(0.1))];
    let joints = vec![joint("hinge", 0, 1, JointKind::Hinge { anchor, axis, motor: None })];
    let mut world = World::build(&model(bodies, joints, -9.81)).unwrap();
    let (mut lowest, mut off_plane, mut off_radius, mut off_axis) = (f32::MAX, 0.0f32, 0.0f32, 0.0f32);
    run(&mut world, TWO_SECONDS, |w| {
        let bob = w.pose(1);
        let r = sub(bob.position, anchor);
        lowest = lowest.min(bob.position[1]);
        off_plane = off_plane.max(dot(r, axis).abs());
        off_radius = off_radius.max((length(r) - 1.0).abs());
        off_axis = off_axis.max(swing_off(delta(bob_pose.rotation, bob.rotation), axis));
    });
    println!("hinge: lowest {lowest}, off plane {off_plane}, off radius {off_radius}, off axis {off_axis}");
    assert!(lowest < anchor[1] - 0.9, "the bob did not swing down: lowest y = {lowest}");
    assert!(off_plane < POSITION_TOL, "the bob left the plane perpendicular to the axis by {off_plane} m");
    assert!(off_radius < POSITION_TOL, "the arm changed length by {off_radius} m");
    assert!(off_axis < ANGLE_TOL, "the bob turned {off_axis} rad about another axis");
}

#[test]
fn a_hinge_motor_turns_its_wheel_at_the_target_speed() {
    let anchor = [0.0, 3.0, 0.0];
    let motor = MotorModel { target_velocity: 2.0, max_force: 100.0 };
    let bodies = vec![pivot(anchor), body("wheel", Motion::Dynamic, Pose::at([0.0, 3.0, 0.3]), cube(0.1))];
    let joints = vec![joint(
        "axle",
        0,
        1,
        JointKind::Hinge { anchor: [0.0, 3.0, 0.3], axis: [0.0, 0.0, 1.0], motor: Some(motor) },
    )];
    let mut world = World::build(&model(bodies, joints, 0.0)).unwrap();
    let mut previous = world.pose(1).rotation;
    let mut turned = 0.0;
    run(&mut world, TWO_SECONDS, |w| {
        let now = w.pose(1).rotation;
        turned += twist_angle(delta(previous, now), [0.0, 0.0, 1.0]);
        previous = now;
    });
    println!("motor: turned {turned}");
    // 2 rad/s for 2 s, less the start-up (the gain reaches the target within ~0.5 s).
    // As in ODE, a positive speed turns body 1 forwards relative to body 2 about the
    // axis: the wheel (body 2) turns backwards.
    assert!(-turned > 3.0 && -turned < 4.1, "turned {turned} rad in 2 s at 2 rad/s");
}

// ---------------------------------------------------------------- ball

#[test]
fn a_ball_joint_keeps_the_distance_to_its_anchor_and_swings_any_way() {
    let anchor = [0.0, 3.0, 0.0];
    // Three bobs around one anchor in different directions, each on its own ball joint.
    let offsets = [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], unit([-1.0, 0.5, -1.0])];
    let mut bodies = vec![pivot(anchor)];
    let mut joints = vec![];
    for (i, offset) in offsets.iter().enumerate() {
        let at = [anchor[0] + offset[0], anchor[1] + offset[1], anchor[2] + offset[2]];
        bodies.push(body(&format!("bob{i}"), Motion::Dynamic, Pose::at(at), ball(0.1)));
        joints.push(joint(&format!("ball{i}"), 0, i + 1, JointKind::Ball { anchor }));
    }
    let mut world = World::build(&model(bodies, joints, -9.81)).unwrap();
    let mut lowest = [f32::MAX; 3];
    let mut off_radius = 0.0f32;
    run(&mut world, TWO_SECONDS, |w| {
        for (i, low) in lowest.iter_mut().enumerate() {
            let r = sub(w.pose(i + 1).position, anchor);
            *low = low.min(r[1]);
            off_radius = off_radius.max((length(r) - 1.0).abs());
        }
    });
    println!("ball: lowest {lowest:?}, off radius {off_radius}");
    assert!(lowest.iter().all(|&y| y < -0.9), "a bob did not swing down: {lowest:?}");
    assert!(off_radius < POSITION_TOL, "a bob's distance to the anchor changed by {off_radius} m");
}

// ---------------------------------------------------------------- slider

#[test]
fn a_slider_only_translates_along_its_axis() {
    let axis = unit([1.0, -1.0, 0.0]); // down a 45° slope
    let start = Pose::at_turned([0.0, 3.0, 0.0], unit([0.2, 1.0, 0.5]), 0.9);
    let bodies = vec![pivot([-2.0, 5.0, 0.0]), body("block", Motion::Dynamic, start, cube(0.1))];
    let joints = vec![joint("slider", 0, 1, JointKind::Slider { axis })];
    let mut world = World::build(&model(bodies, joints, -9.81)).unwrap();
    let (mut off_axis, mut turned) = (0.0f32, 0.0f32);
    run(&mut world, TWO_SECONDS, |w| {
        let now = w.pose(1);
        let moved = sub(now.position, start.position);
        off_axis = off_axis.max(length(cross(moved, axis)));
        turned = turned.max(angle(delta(start.rotation, now.rotation)));
    });
    let slid = dot(sub(world.pose(1).position, start.position), axis);
    println!("slider: slid {slid}, off axis {off_axis}, turned {turned}");
    // Free fall along a 45° line: g/√2 · t²/2 ≈ 13.9 m in 2 s.
    assert!(slid > 10.0, "the block only slid {slid} m down its axis");
    assert!(off_axis < POSITION_TOL, "the block left its axis by {off_axis} m");
    assert!(turned < ANGLE_TOL, "the block turned by {turned} rad");
}

// ---------------------------------------------------------------- fixed

#[test]
fn a_fixed_joint_keeps_the_relative_pose_while_its_bodies_swing() {
    let anchor = [0.0, 3.0, 0.0];
    let arm = Pose::at([1.0, 3.0, 0.0]);
    let rider = Pose::at_turned([1.3, 3.2, 0.1], unit([1.0, 1.0, 0.0]), 0.5);
    let bodies = vec![
        pivot(anchor),
        body("arm", Motion::Dynamic, arm, cube(0.1)),
        body("rider", Motion::Dynamic, rider, ball(0.1)),
    ];
    let joints = vec![
        joint("hinge", 0, 1, JointKind::Hinge { anchor, axis: [0.0, 0.0, 1.0], motor: None }),
        joint("weld", 1, 2, JointKind::Fixed),
    ];
    let mut world = World::build(&model(bodies, joints, -9.81)).unwrap();
    // The rider's pose in the arm's frame, which must not change.
    let in_arm = |a: &Pose, r: &Pose| {
        let inv = conjugate(a.rotation);
        (rotate(inv, sub(r.position, a.position)), multiply(inv, r.rotation))
    };
    let (p0, q0) = in_arm(&arm, &rider);
    let (mut lowest, mut moved, mut turned) = (f32::MAX, 0.0f32, 0.0f32);
    run(&mut world, TWO_SECONDS, |w| {
        let (p, q) = in_arm(&w.pose(1), &w.pose(2));
        lowest = lowest.min(w.pose(2).position[1]);
        moved = moved.max(length(sub(p, p0)));
        turned = turned.max(angle(delta(q0, q)));
    });
    println!("fixed: lowest {lowest}, moved {moved}, turned {turned}");
    assert!(lowest < 2.0, "the assembly did not swing down: lowest y = {lowest}");
    assert!(moved < POSITION_TOL, "the rider moved {moved} m relative to the arm");
    assert!(turned < ANGLE_TOL, "the rider turned {turned} rad relative to the arm");
}

// ---------------------------------------------------------------- universal

/// A pendulum hung from `kind` at `anchor`, its bob at `anchor + offset`; returns the
/// largest change of its distance to the anchor, its lowest height below the anchor,
/// and the largest |component| of its rotation quaternion along each world axis.
fn two_axis_pendulum(kind: JointKind, anchor: [f32; 3], offset: [f32; 3]) -> (f32, f32, [f32; 3]) {
    let start = Pose::at([anchor[0] + offset[0], anchor[1] + offset[1], anchor[2] + offset[2]]);
    let bodies = vec![pivot(anchor), body("bob", Motion::Dynamic, start, ball(0.1))];
    let mut world = World::build(&model(bodies, vec![joint("j", 0, 1, kind)], -9.81)).unwrap();
    let (mut off_radius, mut lowest, mut components) = (0.0f32, f32::MAX, [0.0f32; 3]);
    run(&mut world, TWO_SECONDS, |w| {
        let now = w.pose(1);
        let r = sub(now.position, anchor);
        off_radius = off_radius.max((length(r) - length(offset)).abs());
        lowest = lowest.min(r[1]);
        let q = delta(start.rotation, now.rotation);
        for i in 0..3 {
            components[i] = components[i].max(q[i].abs());
        }
    });
    (off_radius, lowest, components)
}

#[test]
fn a_universal_joint_swings_about_both_axes_without_twisting_about_the_third() {
    // Axes X and Z: the third axis is Y, about which the bob must not turn. The arm is
    // diagonal, so the swing needs both rotations.
    let anchor = [0.0, 3.0, 0.0];
    let kind = JointKind::Universal { anchor, axis: [1.0, 0.0, 0.0], axis2: [0.0, 0.0, 1.0] };
    let (off_radius, lowest, [x, y, z]) = two_axis_pendulum(kind, anchor, [0.7, 0.0, 0.7]);
    println!("universal: off radius {off_radius}, lowest {lowest}, q components {x} {y} {z}");
    assert!(lowest < -0.9, "the bob did not swing down: lowest {lowest}");
    assert!(x > 0.2 && z > 0.2, "the bob did not turn about both axes: {x}, {z}");
    assert!(y < ANGLE_TOL / 2.0, "the bob twisted about the third axis: sin(θ/2) = {y}");
    assert!(off_radius < POSITION_TOL, "the arm changed length by {off_radius} m");
}

#[test]
fn a_universal_joint_passes_rotation_from_one_shaft_to_a_bent_one() {
    // A motored shaft along Z and a second shaft bent 20° towards X, each on a hinge to
    // the world, joined by a universal joint where their axes meet. A joint that let
    // the second shaft twist (a ball) would leave it still.
    let bend = 20f32.to_radians();
    let (s1, s2) = ([0.0, 0.0, 1.0], [bend.sin(), 0.0, bend.cos()]);
    let joint_at = [0.0, 3.0, 0.0];
    let shaft = |name: &str, dir: [f32; 3], sign: f32| {
        let at = [joint_at[0] + sign * 0.5 * dir[0], joint_at[1], joint_at[2] + sign * 0.5 * dir[2]];
        let turn = Pose::at_turned(at, [0.0, 1.0, 0.0], dir[0].atan2(dir[2]));
        BodyModel {
            parts: vec![part(Shape::Cylinder { radius: 0.05, half_length: 0.4 }, Pose::IDENTITY)],
            ..body(name, Motion::Dynamic, turn, cube(1.0))
        }
    };
    let bodies = vec![
        body("frame", Motion::Fixed, Pose::at([0.0, 0.0, 0.0]), cube(0.1)),
        shaft("input", s1, -1.0),
        shaft("output", s2, 1.0),
    ];
    let bearing = |at: [f32; 3], axis, motor| JointKind::Hinge { anchor: at, axis, motor };
    let motor = MotorModel { target_velocity: 3.0, max_force: 50.0 };
    let joints = vec![
        joint("bearing_in", 0, 1, bearing([0.0, 3.0, -1.0], s1, Some(motor))),
        joint("bearing_out", 0, 2, bearing([s2[0], 3.0, s2[2]], s2, None)),
        // Cross axes: Y on the input (⊥ s1), the perpendicular of s2 in the XZ plane on the output.
        joint(
            "cardan",
            1,
            2,
            JointKind::Universal { anchor: joint_at, axis: [0.0, 1.0, 0.0], axis2: [bend.cos(), 0.0, -bend.sin()] },
        ),
    ];
    let mut world = World::build(&model(bodies, joints, 0.0)).unwrap();
    let (q1, q2) = (world.pose(1).rotation, world.pose(2).rotation);
    let (mut turned_in, mut turned_out, mut lag, mut off_prediction) = (0.0f32, 0.0f32, 0.0f32, 0.0f32);
    let (mut prev1, mut prev2) = (q1, q2);
    run(&mut world, TWO_SECONDS, |w| {
        let (n1, n2) = (w.pose(1).rotation, w.pose(2).rotation);
        turned_in += twist_angle(delta(prev1, n1), s1);
        turned_out += twist_angle(delta(prev2, n2), s2);
        (prev1, prev2) = (n1, n2);
        lag = lag.max((turned_in - turned_out).abs());
        // docs/joints.md: with the twist about the output shaft locked, the output
        // follows tan(φ/2) = cos(bend)·tan(θ/2).
        let predicted = 2.0 * (bend.cos() * (turned_in / 2.0).sin()).atan2((turned_in / 2.0).cos());
        let wrapped =
            (turned_out - predicted + std::f32::consts::PI).rem_euclid(std::f32::consts::TAU) - std::f32::consts::PI;
        off_prediction = off_prediction.max(wrapped.abs());
    });
    println!("shaft: in {turned_in}, out {turned_out}, lag {lag}, off prediction {off_prediction}");
    // The input is body 2 of its bearing: a positive speed turns it backwards (ODE's sign).
    assert!(-turned_in > 4.0, "the motor turned the input only {turned_in} rad");
    // An ODE cardan lags and leads by up to about bend²/4 (1.7° at 20°) twice a turn,
    // this mapping by bend²/2 (3.5°) once a turn; a joint free to twist would leave the
    // output still (a lag of radians).
    assert!(lag < 5f32.to_radians(), "the output shaft lagged by {lag} rad");
    assert!(off_prediction < ANGLE_TOL * 5.0, "the output is {off_prediction} rad off tan(φ/2) = cos β tan(θ/2)");
}

// ---------------------------------------------------------------- hinge2

#[test]
fn a_hinge2_wheel_steers_and_spins_but_does_not_tilt_about_the_third_axis() {
    // Steering axis Z and wheel axis X, both horizontal, so that gravity on an
    // off-centre bob drives both; the third axis (Z × X) is Y.
    let anchor = [0.0, 3.0, 0.0];
    let kind = JointKind::Hinge2 { anchor, axis: [0.0, 0.0, 1.0], axis2: [1.0, 0.0, 0.0] };
    let (off_radius, lowest, [x, y, z]) = two_axis_pendulum(kind, anchor, [0.6, 0.0, 0.8]);
    println!("hinge2: off radius {off_radius}, lowest {lowest}, q components {x} {y} {z}");
    assert!(lowest < -0.9, "the wheel did not swing: lowest {lowest}");
    assert!(x > 0.2, "no spin about the wheel axis: sin(θ/2) = {x}");
    assert!(z > 0.2, "no steering about the steering axis: sin(θ/2) = {z}");
    assert!(y < ANGLE_TOL / 2.0, "the wheel turned about the third axis: sin(θ/2) = {y}");
    assert!(off_radius < POSITION_TOL, "the anchor moved by {off_radius} m");
}

// ---------------------------------------------------------------- PR

#[test]
fn a_pr_joint_slides_along_its_first_axis_and_turns_about_its_second() {
    // Slide along X, turn about Z: a pendulum whose pivot runs freely along X. No force
    // acts along X, so the bob's centre keeps its x while the pivot slides under it.
    let anchor = [0.0, 3.0, 0.0];
    // A rod rather than a small ball: a body of tiny inertia spins at ~70 rad/s when its
    // free pivot passes under it, beyond what any step-based solver follows to 1 mm.
    let start = Pose::at([0.5, 3.0, 0.0]);
    let rod = Shape::Box { half_extents: [0.5, 0.05, 0.05] };
    // The fixed body sits away from the rod: contacts between jointed bodies stay on.
    let bodies = vec![pivot([-3.0, 6.0, -3.0]), body("rod", Motion::Dynamic, start, rod)];
    let kind = JointKind::PrismaticRotoide { anchor, axis: [1.0, 0.0, 0.0], axis2: [0.0, 0.0, 1.0] };
    let mut world = World::build(&model(bodies, vec![joint("pr", 0, 1, kind)], -9.81)).unwrap();
    let (mut lowest, mut slid, mut off_line, mut drift_x, mut off_axis) = (f32::MAX, 0.0f32, 0.0f32, 0.0f32, 0.0f32);
    run(&mut world, TWO_SECONDS, |w| {
        let now = w.pose(1);
        let pin = carried(w, 1, &start, anchor);
        lowest = lowest.min(now.position[1]);
        slid = slid.max(pin[0].abs());
        off_line = off_line.max(length([0.0, pin[1] - anchor[1], pin[2] - anchor[2]]));
        drift_x = drift_x.max((now.position[0] - start.position[0]).abs());
        off_axis = off_axis.max(swing_off(delta(start.rotation, now.rotation), [0.0, 0.0, 1.0]));
    });
    println!("pr: lowest {lowest}, slid {slid}, off line {off_line}, drift x {drift_x}, off axis {off_axis}");
    assert!(lowest < 2.6, "the rod did not swing down: lowest y = {lowest}");
    assert!(slid > 0.4, "the pivot only slid {slid} m");
    assert!(off_line < POSITION_TOL, "the pivot left its line by {off_line} m");
    assert!(drift_x < POSITION_TOL, "the bob's centre moved {drift_x} m along the free axis");
    assert!(off_axis < ANGLE_TOL, "the bob turned {off_axis} rad about another axis than Z");
}

// ---------------------------------------------------------------- PU

#[test]
fn a_pu_joint_slides_along_axis2_and_swings_but_does_not_twist_about_the_slide() {
    // Slide along X, universal about Z and X × Z = -Y. The plate hangs off the pin
    // along X and Z: gravity swings it about Z (free) and twists it about X (locked);
    // the swing couples into the other free rotation, about Y. No force acts along X,
    // so its centre keeps its x while the pin slides.
    let anchor = [0.0, 3.0, 0.0];
    let start = Pose::at([0.3, 3.0, 0.3]);
    let plate = Shape::Box { half_extents: [0.3, 0.05, 0.3] };
    let bodies = vec![pivot([-3.0, 6.0, -3.0]), body("plate", Motion::Dynamic, start, plate)];
    let kind = JointKind::PrismaticUniversal { anchor, axis: [0.0, 0.0, 1.0], axis2: [1.0, 0.0, 0.0] };
    let mut world = World::build(&model(bodies, vec![joint("pu", 0, 1, kind)], -9.81)).unwrap();
    let (mut off_line, mut slid, mut drift_x, mut components) = (0.0f32, 0.0f32, 0.0f32, [0.0f32; 3]);
    run(&mut world, TWO_SECONDS, |w| {
        let pin = carried(w, 1, &start, anchor);
        off_line = off_line.max(length([0.0, pin[1] - anchor[1], pin[2] - anchor[2]]));
        slid = slid.max(pin[0].abs());
        drift_x = drift_x.max((w.pose(1).position[0] - start.position[0]).abs());
        let q = delta(start.rotation, w.pose(1).rotation);
        for i in 0..3 {
            components[i] = components[i].max(q[i].abs());
        }
    });
    let [x, y, z] = components;
    println!("pu: off line {off_line}, slid {slid}, drift x {drift_x}, q components {x} {y} {z}");
    assert!(slid > 0.2, "the pin only slid {slid} m");
    assert!(z > 0.2 && y > 0.2, "the plate did not swing about Z and Y: sin(θ/2) = {z}, {y}");
    assert!(x < ANGLE_TOL / 2.0, "the plate twisted about the slide: sin(θ/2) = {x}");
    assert!(off_line < POSITION_TOL, "the pin left the slide by {off_line} m");
    assert!(drift_x < POSITION_TOL, "the plate's centre moved {drift_x} m along the free slide");
}

// ---------------------------------------------------------------- piston

#[test]
fn a_piston_slides_along_and_spins_about_one_axis_only() {
    // A 45° axis; the bob hangs off the axis (along Z) so gravity also spins it.
    let anchor = [0.0, 3.0, 0.0];
    let axis = unit([1.0, -1.0, 0.0]);
    let start = Pose::at([0.0, 3.0, 0.5]);
    let bodies = vec![pivot([-1.0, 4.0, -1.0]), body("bob", Motion::Dynamic, start, ball(0.1))];
    let kind = JointKind::Piston { anchor, axis };
    let mut world = World::build(&model(bodies, vec![joint("piston", 0, 1, kind)], -9.81)).unwrap();
    let (mut off_line, mut spun, mut off_axis) = (0.0f32, 0.0f32, 0.0f32);
    run(&mut world, TWO_SECONDS, |w| {
        let pin = carried(w, 1, &start, anchor);
        off_line = off_line.max(length(cross(sub(pin, anchor), axis)));
        let q = delta(start.rotation, w.pose(1).rotation);
        spun = spun.max(twist_angle(q, axis).abs());
        off_axis = off_axis.max(swing_off(q, axis));
    });
    let slid = dot(sub(carried(&world, 1, &start, anchor), anchor), axis);
    println!("piston: slid {slid}, spun {spun}, off line {off_line}, off axis {off_axis}");
    assert!(slid > 10.0, "the piston only slid {slid} m");
    assert!(spun > 0.5, "the piston only spun {spun} rad");
    assert!(off_line < POSITION_TOL, "the pin left the axis by {off_line} m");
    assert!(off_axis < ANGLE_TOL, "the bob turned {off_axis} rad about another axis");
}

// ---------------------------------------------------------------- planar

#[test]
fn a_planar_joint_slides_in_its_plane_and_spins_about_its_normal_only() {
    // A plane tilted 45° (normal (1, 1, 0)): gravity slides the bob down it. Set
    // spinning about the normal and about an axis in the plane, it keeps the first
    // spin (nothing in the plane holds it) and loses the second (no tilting).
    let anchor = [0.0, 3.0, 0.0];
    let normal = unit([1.0, 1.0, 0.0]);
    let start = Pose::at([0.0, 3.0, 0.5]);
    let bodies = vec![pivot([-1.0, 4.0, -1.0]), body("bob", Motion::Dynamic, start, ball(0.1))];
    let kind = JointKind::Planar { anchor, axis: normal };
    let mut world = World::build(&model(bodies, vec![joint("puck", 0, 1, kind)], -9.81)).unwrap();
    let spin = [2.0 * normal[0], 2.0 * normal[1], 2.0 * normal[2] + 1.0];
    world.set_body_state(1, &start, [0.0; 3], spin);
    let (mut off_plane, mut spun, mut tilted) = (0.0f32, 0.0f32, 0.0f32);
    run(&mut world, TWO_SECONDS, |w| {
        let pin = carried(w, 1, &start, anchor);
        off_plane = off_plane.max(dot(sub(pin, anchor), normal).abs());
        let q = delta(start.rotation, w.pose(1).rotation);
        spun = spun.max(twist_angle(q, normal).abs());
        tilted = tilted.max(swing_off(q, normal));
    });
    let slid = length(sub(carried(&world, 1, &start, anchor), anchor));
    println!("planar: slid {slid}, spun {spun}, off plane {off_plane}, tilted {tilted}");
    assert!(slid > 5.0, "the bob only slid {slid} m in its plane");
    assert!(spun > 1.0, "the bob only turned {spun} rad about the normal");
    assert!(off_plane < POSITION_TOL, "the pin left the plane by {off_plane} m");
    assert!(tilted < ANGLE_TOL, "the bob tilted {tilted} rad out of the plane");
}

// ---------------------------------------------------------------- erp / cfm

#[test]
fn erp_and_cfm_soften_a_joint_and_a_larger_cfm_softens_it_more() {
    // A bob hanging at rest under a hinge. The rigid joint does not sag; with erp and
    // cfm it sags like a spring. docs/joints.md: rapier's soft solver (four substeps,
    // no joint warm-starting) lands softer than the nominal spring of
    // ω² = erp / (h · cfm · 1 kg), whose sag would be g/ω²; measured ≈ 11× for erp 0.2,
    // cfm 0.01 (22 mm), ≈ 4× for erp 0.8, cfm 0.001 (0.2 mm). The bounds bracket those.
    let anchor = [0.0, 3.0, 0.0];
    let sag = |erp: Option<f32>, cfm: Option<f32>| {
        let bodies = vec![pivot(anchor), body("bob", Motion::Dynamic, Pose::at([0.0, 2.0, 0.0]), ball(0.1))];
        let mut hinge = joint("hinge", 0, 1, JointKind::Hinge { anchor, axis: [0.0, 0.0, 1.0], motor: None });
        (hinge.erp, hinge.cfm) = (erp, cfm);
        let mut world = World::build(&model(bodies, vec![hinge], -9.81)).unwrap();
        run(&mut world, TWO_SECONDS, |_| {});
        length(sub(world.pose(1).position, anchor)) - 1.0
    };
    let nominal = |erp: f32, cfm: f32| 9.81 * (1.0 / 240.0) * cfm / erp;
    let (rigid, stiff, soft) = (sag(None, None), sag(Some(0.8), Some(0.001)), sag(Some(0.2), Some(0.01)));
    println!(
        "softness: rigid {rigid}, stiff {stiff} (nominal {}), soft {soft} (nominal {})",
        nominal(0.8, 0.001),
        nominal(0.2, 0.01)
    );
    assert!(rigid.abs() < 1e-4, "the rigid hinge sagged {rigid} m");
    assert!(stiff > nominal(0.8, 0.001) && stiff < 20.0 * nominal(0.8, 0.001), "erp 0.8, cfm 0.001 sagged {stiff} m");
    assert!(soft > nominal(0.2, 0.01) && soft < 20.0 * nominal(0.2, 0.01), "erp 0.2, cfm 0.01 sagged {soft} m");
    assert!(soft > 10.0 * stiff);
}
