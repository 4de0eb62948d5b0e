//! The add-robot form's starting point: a robot name from what a student typed (or their
//! name), and the course robot's description, which leaves where it starts to the lab.
//!
//! Plain data in, plain data out, tested on the host; the form lives in `robot_upload`.

pub use vlab_protocol::{MAX_SUFFIX_CHARS, suffix_from_name};

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

/// The name of the robot the template creates.
pub fn templated_robot_name(suffix: &str) -> String {
    format!("diffbot_{suffix}")
}

/// The `.vlab` text of a course diffbot named `diffbot_<suffix>`, starting where the lab
/// puts it.
pub fn robot_template(suffix: &str) -> String {
    format!(
        "// Your robot: the course's differential-drive robot (scenes/diffbot_robot.vlab):\n\
         // lidar, GPS, compass, encoders, odometry, bumper and a DiffDrive.\n\
         // {{x}} and {{z}}: the lab starts it on a free spot of its floor; write numbers\n\
         // (metres) to choose the spot yourself. The last number is its heading (radians).\n\
         include \"diffbot_robot.vlab\";\n\
         call diffbot(\"_{suffix}\", {{x}}, {{z}}, 0);\n"
    )
}

/// The `.vlab` text of the robot a URDF file `file` describes, named after the file and
/// `suffix`, its root link on a free spot of the floor the lab chooses (docs/urdf.md).
pub fn urdf_template(suffix: &str, file: &str) -> String {
    let mut stem = file.rsplit('/').next().unwrap_or(file);
    for ending in [".xacro", ".urdf"] {
        if stem.to_ascii_lowercase().ends_with(ending) {
            stem = &stem[..stem.len() - ending.len()];
        }
    }
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
         \x20   urdf \"{file}\" {{ pos({{x}}, 0, {{z}}); }}\n\
         \x20 }}\n\
         }}\n"
    )
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_urdf_file_becomes_a_robot_named_after_it_at_the_spot() {
        let text = urdf_template("ana", "turtlebot3-burger.urdf");
        assert!(text.contains("robot turtlebot3_burger_ana {\n"), "{text}");
        assert!(text.contains("    urdf \"turtlebot3-burger.urdf\" { pos({x}, 0, {z}); }\n"), "{text}");
        assert!(urdf_template("b", "3d.urdf").contains("robot urdf_3d_b {"));
        assert!(urdf_template("c", "arm.urdf.xacro").contains("robot arm_c {"));
        assert!(urdf_template("c", "ARM.URDF").contains("robot arm_c {"));
    }

    use super::*;

    #[test]
    fn the_template_names_the_robot_and_places_it() {
        let text = robot_template("ana");
        assert!(text.contains("include \"diffbot_robot.vlab\";"), "{text}");
        assert!(text.contains("call diffbot(\"_ana\", {x}, {z}, 0);"), "{text}");
        assert!(vlab_protocol::leaves_start_to_lab(&text));
        assert_eq!(templated_robot_name("ana"), "diffbot_ana");
        assert_eq!(robot_suffix(" My Bot-2 ").unwrap(), "my_bot_2");
        assert!(robot_suffix("").is_err());
        assert!(robot_suffix("a\"b").unwrap_err().contains('"'));
        assert!(robot_suffix(&"x".repeat(25)).is_err());
        assert_eq!(suffix_from_name("Ana López (2)"), "ana_l_pez_2");
        assert_eq!(suffix_from_name("  "), "mine");
    }
}
