//! Cameras against truths computed by hand, in-process (world + robots, no server): a
//! camera facing a red wall sees its lit red in the middle and the grey floor below
//! the row where the wall's foot leaves the view; the wall's edge falls on the column
//! the pinhole puts it at; a depth camera reads the wall's distance along the optical
//! axis in every pixel that sees it; images come at the camera's rate in sim time;
//! the same scene and seed give the same bytes; programs get the pixels once.

use vlab_protocol::SensorValue;
use vlab_sim::robot::Robots;
use vlab_sim::scene::{self, SceneModel};
use vlab_sim::sim::World;

/// A grey floor (top at y = 0), a red wall whose near face is at x = 3.9 (y 0..2,
/// z 3..6), and a static robot at (1, 0.5, 5) with a camera and a depth camera
/// looking along world +X (the image's right is +Z).
const RED_WALL: &str = r#"
    static ground { shape box(12, 0.2, 12); pos(5, -0.1, 5); material "Grey"; }
    static wall { shape box(0.2, 2, 3); pos(4, 1, 4.5); material "Red"; }
    robot bot {
      body {
        static chassis { shape box(0.4, 0.2, 0.3); pos(1, 0.5, 5);
                  Camera eye { }
                  DepthCamera depth { }
                  Camera noisy { noise 20; } }
      }
    }
"#;

/// Default size: 160 × 120, fov 60° across.
const W: usize = 160;

struct Bench {
    world: World,
    robots: Robots,
    step: u64,
    dt: f64,
}

impl Bench {
    fn new(source: &str, seed: u64) -> Bench {
        // Three cameras on one robot: past a robot's camera budget (two default cameras),
        // which guards the lab's thread, not what these truths are about.
        let budgets = scene::Budgets { max_camera_rays_per_robot: 3 * 96_000, ..scene::Budgets::default() };
        let options = scene::Options { seed, budgets };
        let result = scene::interpret(source, "test.vlab", &scene::MapLoader::new(), &options);
        let model: SceneModel = result.unwrap_or_else(|e| panic!("scene does not load: {e:?}")).model;
        let mut world = World::build(&model).unwrap();
        let mut robots = Robots::configure(&model, seed).unwrap();
        robots.install(&mut world, 0, 0.0);
        Bench { world, robots, step: 0, dt: model.dt_secs }
    }

    fn run(&mut self, steps: u64) {
        for _ in 0..steps {
            self.robots.apply_actuators(&mut self.world);
            self.world.step();
            self.step += 1;
            self.robots.update_sensors(&self.world, self.step, self.step as f64 * self.dt);
        }
    }

    fn sensor(&self, name: &str) -> &vlab_sim::robot::sensors::Sensor {
        self.robots.get("bot").unwrap().sensors().iter().find(|s| s.name() == name).unwrap()
    }

    fn bytes(&self, name: &str) -> Vec<u8> {
        self.sensor(name).camera().expect("a camera").bytes().to_vec()
    }
}

fn pixel(image: &[u8], x: usize, y: usize) -> [u8; 3] {
    let i = 3 * (y * W + x);
    [image[i], image[i + 1], image[i + 2]]
}

fn depth(image: &[u8], x: usize, y: usize) -> f64 {
    let i = 2 * (y * W + x);
    f64::from(u16::from_le_bytes([image[i], image[i + 1]])) / 1000.0
}

// Red (200, 52, 44) on a face whose normal is −X: the sun (−2, 6, 3)/7 meets it at
// cos = 2/7, so light = 0.4 + 0.6·2/7 = 0.5714 → (114.3, 29.7, 25.1).
const LIT_RED: [u8; 3] = [114, 30, 25];
// Grey (160, 160, 160) facing up: cos = 6/7, light = 0.9143 → 146.3.
const LIT_FLOOR: [u8; 3] = [146, 146, 146];
const SKY: [u8; 3] = [170, 200, 230];

#[test]
fn a_camera_facing_a_red_wall_sees_red_in_the_middle_and_the_floor_below() {
    let bench = Bench::new(RED_WALL, 1);
    let image = bench.bytes("eye");
    assert_eq!(image.len(), 160 * 120 * 3);
    for (x, y) in [(79, 59), (80, 60), (0, 60), (79, 0)] {
        assert_eq!(pixel(&image, x, y), LIT_RED, "pixel ({x}, {y})");
    }
    // Row y looks down by (1 − (2y+1)/120)·tan 30°·¾; the wall's foot (0.5 m below the
    // eye, 2.9 m ahead) needs a slope of 0.5/2.9 = 0.1724: row 83 (0.1696) still
    // sees the wall, row 84 (0.1768) the floor in front of it.
    assert_eq!(pixel(&image, 80, 83), LIT_RED);
    assert_eq!(pixel(&image, 80, 84), LIT_FLOOR);
    assert_eq!(pixel(&image, 80, 119), LIT_FLOOR);
    // The wall ends at z = 6, 1 m right of the eye: tan = 1/2.9 = 0.3448; column x
    // looks right by ((2x+1)/160 − 1)·tan 30°, 0.3428 for 127, 0.3464 for 128.
    assert_eq!(pixel(&image, 127, 30), LIT_RED);
    assert_eq!(pixel(&image, 128, 30), SKY, "past the wall's end, above the horizon: the sky");
    let reading = bench.sensor("eye").last().unwrap();
    let SensorValue::Image { width, height, pixels, .. } = &reading.measured else { panic!("{reading:?}") };
    assert_eq!((*width, *height), (160, 120));
    assert!(pixels.is_empty(), "reports carry the summary only");
}

#[test]
fn a_depth_camera_reads_the_distance_along_the_optical_axis() {
    let bench = Bench::new(RED_WALL, 1);
    let image = bench.bytes("depth");
    assert_eq!(image.len(), 160 * 120 * 2);
    // Every pixel that sees the wall's face reads 2.9 m, at the centre as at the
    // corner, where the ray itself is 2.9/cos(angle) long.
    for (x, y) in [(80, 60), (0, 0), (127, 83), (0, 83), (40, 10)] {
        assert_eq!(depth(&image, x, y), 2.9, "pixel ({x}, {y})");
    }
    // Row 100 looks down by (1 − 201/120)·tan 30°·¾ = 0.29228: it meets the floor
    // 0.5/0.29228 = 1.7107 m ahead.
    assert_eq!(depth(&image, 80, 100), 1.711);
    // Nothing within range past the wall's end: the range, 10 m.
    assert_eq!(depth(&image, 140, 30), 10.0);
    let reading = bench.sensor("depth").last().unwrap();
    let SensorValue::DepthImage { nearest, max_range, .. } = reading.truth else { panic!("{reading:?}") };
    assert_eq!(max_range, 10.0);
    // The nearest thing in view is the floor at the bottom row: slope (1 − 239/120)·0.43301
    // = 0.42940 → 0.5/0.42940 = 1.1644 m.
    assert!((nearest - 1.1644).abs() < 1e-3, "nearest {nearest}");
}

#[test]
fn a_five_hertz_camera_takes_a_new_image_every_fifth_of_a_second_of_sim_time() {
    let mut bench = Bench::new(RED_WALL, 1);
    assert_eq!(bench.sensor("eye").last().unwrap().step, 0, "the first image when the robot enters");
    let mut steps = vec![0];
    for _ in 0..150 {
        bench.run(1);
        let step = bench.sensor("eye").last().unwrap().step;
        if step != *steps.last().unwrap() {
            steps.push(step);
        }
    }
    // 5 Hz at 240 steps a second: 48 steps apart (robot 0 has no phase shift).
    assert_eq!(steps, vec![0, 48, 96, 144]);
    assert_eq!(bench.sensor("eye").report().rate, Some(5.0));
}

#[test]
fn the_same_scene_and_seed_give_the_same_bytes_and_noise_follows_the_seed() {
    let (mut a, mut b, mut c) = (Bench::new(RED_WALL, 7), Bench::new(RED_WALL, 7), Bench::new(RED_WALL, 8));
    for bench in [&mut a, &mut b, &mut c] {
        bench.run(100);
    }
    for name in ["eye", "depth", "noisy"] {
        assert_eq!(a.bytes(name), b.bytes(name), "{name}");
    }
    assert_eq!(a.bytes("eye"), c.bytes("eye"), "another seed changes the noise, never the world");
    assert_ne!(a.bytes("noisy"), c.bytes("noisy"));
    // σ = 20 on each channel: the centre's red is 114 give or take, clamped to 0..255.
    let noisy = a.bytes("noisy");
    let mean_red: f64 = (0..40).map(|x| f64::from(pixel(&noisy, 60 + x, 60)[0])).sum::<f64>() / 40.0;
    assert!((mean_red - 114.0).abs() < 12.0, "mean red {mean_red}");
    assert_ne!(noisy, a.bytes("eye"));
}

#[test]
fn a_program_gets_the_pixels_once_then_the_summary() {
    let bench = Bench::new(RED_WALL, 1);
    let eye = bench.sensor("eye");
    let first = eye.measured_for_program(None).unwrap();
    let SensorValue::Image { pixels, mean, .. } = first else { panic!() };
    // Base64 of 57 600 bytes: 76 800 characters.
    assert_eq!(pixels.len(), 76_800);
    assert!(mean[0] > mean[1] && mean[0] > mean[2], "mostly red: {mean:?}");
    let SensorValue::Image { pixels, .. } = eye.measured_for_program(Some(0)).unwrap() else { panic!() };
    assert!(pixels.is_empty(), "already sent after step 0");
}

#[test]
fn cameras_beyond_the_pixel_limit_are_refused_where_declared() {
    let source = r#"
    robot big {
      body {
        static chassis { shape box(0.4, 0.2, 0.3); pos(0, 0.5, 0);
                  Camera eye { width 640; height 480; } }
      }
    }
"#;
    let options = scene::Options::default();
    let errors = scene::interpret(source, "big.vlab", &scene::MapLoader::new(), &options).unwrap_err();
    let text = format!("{errors:?}");
    assert!(text.contains("307200 pixels") && text.contains("320 × 240"), "{text}");
    assert!(text.contains("line: 5"), "positioned at the camera's declaration: {text}");
}
