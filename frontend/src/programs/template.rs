//! The add-robot form's starting point: a robot name from what a student typed (or their name), the course robot's description at a free spot of the floor.
//!
//! Plain data in, plain data out, tested on the host; the form lives in `robot_upload`.

use super::upload::coordinate_text;

/// Longest robot-name suffix the form takes.
pub const MAX_SUFFIX_CHARS: usize = 24;

/// A robot-name suffix from what a student typed: lower case, spaces and dashes as
/// `_`, only letters, digits and `_`; `Err` with a sentence when nothing usable is left.
pub fn robot_suffix(typed: &str) -> Result<String, String> {
    let suffix: String =
        typed.trim().chars().map(|c| if c == ' ' || c == '-' { '_' } else { c.to_ascii_lowercase() }).collect();
    if suffix.is_empty() {
        return Err("Give your robot a name (letters, digits and _).".into());
    }
    if let Some(bad) = suffix.chars().find(|c| !(c.is_ascii_alphanumeric() || *c == '_')) {
        return Err(format!("A robot's name takes letters, digits and _ only, not '{bad}'."));
    }
    if suffix.chars().count() > MAX_SUFFIX_CHARS {
        return Err(format!("A robot's name is at most {MAX_SUFFIX_CHARS} characters."));
    }
    Ok(suffix)
}

/// A robot-name suffix from a display name: `"Ana López (2)"` → `"ana_l_pez_2"`.
pub fn suffix_from_name(name: &str) -> String {
    let mut suffix = String::new();
    for c in name.chars() {
        let c = c.to_ascii_lowercase();
        if c.is_ascii_alphanumeric() {
            suffix.push(c);
        } else if !suffix.ends_with('_') && !suffix.is_empty() {
            suffix.push('_');
        }
    }
    let mut suffix: String = suffix.trim_end_matches('_').chars().take(MAX_SUFFIX_CHARS).collect();
    if suffix.is_empty() {
        suffix.push_str("mine");
    }
    suffix
}

/// The name of the robot the template creates.
pub fn templated_robot_name(suffix: &str) -> String {
    format!("diffbot_{suffix}")
}

/// The `.vlab` text of a course diffbot named `diffbot_<suffix>` at `spot` (x, z).
pub fn robot_template(suffix: &str, spot: [f32; 2]) -> String {
    let [x, z] = spot.map(coordinate_text);
    format!(
        "// Your robot: the course's differential-drive robot (scenes/diffbot_robot.vlab):\n\
         // lidar, GPS, compass, encoders, odometry, bumper and a DiffDrive.\n\
         // Change the name, the place (x, z, metres) or the heading (radians), then Upload.\n\
         include \"diffbot_robot.vlab\";\n\
         call diffbot(\"_{suffix}\", {x}, {z}, 0);\n"
    )
}

/// The `.vlab` text of the robot a URDF file `file` describes, named after the file and
/// `suffix`, its root link at `spot` (x, z) on the floor (docs/urdf.md).
pub fn urdf_template(suffix: &str, file: &str, spot: [f32; 2]) -> String {
    let [x, z] = spot.map(coordinate_text);
    let stem = file.rsplit('/').next().unwrap_or(file);
    let stem = stem.strip_suffix(".urdf").or_else(|| stem.strip_suffix(".URDF")).unwrap_or(stem);
    let mut name: String = stem
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '_' { c.to_ascii_lowercase() } else { '_' })
        .collect();
    if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
        name.insert_str(0, "urdf_");
    }
    format!(
        "// Your robot, imported from {file} (docs/urdf.md). Put sensors and motors on its\n\
         // links and joints inside the urdf block, e.g. base_link {{ SimpleGPS gps; }}\n\
         robot {name}_{suffix} {{\n\
         \x20 body {{\n\
         \x20   urdf \"{file}\" {{ pos({x}, 0, {z}); }}\n\
         \x20 }}\n\
         }}\n"
    )
}

/// Clearance, metres, a new robot wants from every moving body.
pub const SPOT_CLEARANCE_M: f32 = 0.9;
/// Distance kept from the edge of the floor, metres.
const SPOT_MARGIN_M: f32 = 1.0;
/// Spacing of the candidate spots, metres.
const SPOT_GRID_M: f32 = 0.5;

/// A place (x, z) on the floor `area` (`[min_x, min_z, max_x, max_z]`) away from the
/// `occupied` points: the first grid spot, from the floor's low corner, clear by
/// [`SPOT_CLEARANCE_M`]; failing that the clearest spot.
pub fn free_spot(area: [f32; 4], occupied: &[[f32; 2]]) -> [f32; 2] {
    let [min_x, min_z, max_x, max_z] = area;
    let (lo_x, hi_x) = inset(min_x, max_x);
    let (lo_z, hi_z) = inset(min_z, max_z);
    let columns = ((hi_x - lo_x) / SPOT_GRID_M).floor().max(0.0) as usize;
    let rows = ((hi_z - lo_z) / SPOT_GRID_M).floor().max(0.0) as usize;
    let clearance = |spot: [f32; 2]| {
        occupied.iter().map(|p| ((p[0] - spot[0]).powi(2) + (p[1] - spot[1]).powi(2)).sqrt()).fold(f32::MAX, f32::min)
    };
    let mut best = ([lo_x, lo_z], f32::MIN);
    for row in 0..=rows {
        for column in 0..=columns {
            let spot = [lo_x + column as f32 * SPOT_GRID_M, lo_z + row as f32 * SPOT_GRID_M];
            let clear = clearance(spot);
            if clear >= SPOT_CLEARANCE_M {
                return spot;
            }
            if clear > best.1 {
                best = (spot, clear);
            }
        }
    }
    best.0
}

/// The spot a refusal offers for a robot that would stand on another body ("... it would
/// fit at x 1.25, z 3.00"): the page sees where robots are, the lab also where they
/// start, so the page's own pick can be taken.
pub fn offered_spot(message: &str) -> Option<[f32; 2]> {
    let (_, spot) = message.rsplit_once("it would fit at x ")?;
    let (x, rest) = spot.split_once(", z ")?;
    let z: String = rest.chars().take_while(|c| c.is_ascii_digit() || matches!(c, '.' | '-')).collect();
    // A sentence may end right after the number.
    Some([x.trim().parse().ok()?, z.trim_end_matches('.').parse().ok()?])
}

fn inset(min: f32, max: f32) -> (f32, f32) {
    if max - min > 2.0 * SPOT_MARGIN_M {
        (min + SPOT_MARGIN_M, max - SPOT_MARGIN_M)
    } else {
        ((min + max) * 0.5, (min + max) * 0.5)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_spot_a_refusal_offers_is_read_from_its_message() {
        let message = "robot 'diffbot_ana' at x 0.80, z 0.80 would sink 0.04 m into robot 'teacher_bot' where it \
                       starts, and the physics would throw them apart: it would fit at x 0.55, z 0.80";
        assert_eq!(super::offered_spot(message), Some([0.55, 0.8]));
        assert_eq!(super::offered_spot("... it would fit at x -1.25, z 12.00."), Some([-1.25, 12.0]));
        assert_eq!(super::offered_spot("there is no clear spot for it within 8 m; make room first"), None);
    }

    #[test]
    fn a_urdf_file_becomes_a_robot_named_after_it_at_the_spot() {
        let text = urdf_template("ana", "turtlebot3-burger.urdf", [2.0, 3.5]);
        assert!(text.contains("robot turtlebot3_burger_ana {\n"), "{text}");
        assert!(text.contains("    urdf \"turtlebot3-burger.urdf\" { pos(2, 0, 3.5); }\n"), "{text}");
        assert!(urdf_template("b", "3d.urdf", [1.0, 1.0]).contains("robot urdf_3d_b {"));
    }

    use super::*;

    #[test]
    fn the_template_names_the_robot_and_places_it() {
        let text = robot_template("ana", [2.0, 3.5]);
        assert!(text.contains("include \"diffbot_robot.vlab\";"), "{text}");
        assert!(text.contains("call diffbot(\"_ana\", 2, 3.5, 0);"), "{text}");
        assert_eq!(templated_robot_name("ana"), "diffbot_ana");
        assert_eq!(robot_suffix(" My Bot-2 ").unwrap(), "my_bot_2");
        assert!(robot_suffix("").is_err());
        assert!(robot_suffix("a\"b").unwrap_err().contains('"'));
        assert!(robot_suffix(&"x".repeat(25)).is_err());
        assert_eq!(suffix_from_name("Ana López (2)"), "ana_l_pez_2");
        assert_eq!(suffix_from_name("  "), "mine");
    }

    #[test]
    fn a_free_spot_keeps_clear_of_what_is_there() {
        let area = [0.0, 0.0, 12.0, 12.0];
        assert_eq!(free_spot(area, &[]), [1.0, 1.0]);
        let spot = free_spot(area, &[[1.0, 1.0], [1.6, 1.2], [2.5, 1.0]]);
        for p in [[1.0f32, 1.0], [1.6, 1.2], [2.5, 1.0]] {
            let d = ((p[0] - spot[0]).powi(2) + (p[1] - spot[1]).powi(2)).sqrt();
            assert!(d >= SPOT_CLEARANCE_M, "{spot:?} too close to {p:?}");
        }
        assert!(spot.iter().all(|v| (1.0..=11.0).contains(v)), "{spot:?}");
        // A tiny floor: its middle.
        assert_eq!(free_spot([0.0, 0.0, 1.0, 1.0], &[]), [0.5, 0.5]);
        // Everything taken: the clearest spot still.
        let crowded: Vec<[f32; 2]> =
            (0..25).flat_map(|i| (0..25).map(move |j| [i as f32 * 0.5, j as f32 * 0.5])).collect();
        let spot = free_spot(area, &crowded);
        assert!(spot.iter().all(|v| (1.0..=11.0).contains(v)));
    }
}
