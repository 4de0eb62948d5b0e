//! Gazebo extensions of a URDF file mapped onto the device catalogue: the
//! differential-drive plugin → two `SimpleMotor`s, two `Encoder`s, a `DiffDrive` and an
//! `Odometry`; `<sensor>`s on links → `Lidar`, `Gyro` + `SimpleAccelerometer` +
//! `Compass` (an IMU), `Camera`, `DepthCamera`, `Touch`, `SimpleGPS`. Anything else is
//! told as a warning and left out.

use super::xml::{Doc, child_text, number_at};
use crate::error::{Position, Warning};
use crate::model::ParamValue;

/// What a device is declared on.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum On {
    /// A link, by its URDF name.
    Link(String),
    /// A joint, by its URDF name.
    Joint(String),
    /// The robot as a whole.
    Robot,
}

/// A device to declare, in catalogue terms.
#[derive(Clone, Debug)]
pub(super) struct DeviceDecl {
    /// The catalogue's spelling (`Lidar`).
    pub kind: &'static str,
    /// Its name in the robot.
    pub name: String,
    /// What it sits on.
    pub on: On,
    /// Its parameters.
    pub params: Vec<(String, ParamValue)>,
    /// Where a sensor sits on its link when its `<pose>` moves it off the link's origin
    /// (`x y z roll pitch yaw`, the link's frame).
    pub offset: Option<urdf_rs::Pose>,
    /// The element it came from.
    pub pos: Position,
}

/// Every device the file's `<gazebo>` elements ask for.
pub(super) fn devices(doc: &Doc<'_>, warnings: &mut Vec<Warning>) -> Vec<DeviceDecl> {
    let mut out = Vec::new();
    for gazebo in doc.doc.root_element().children().filter(|n| n.has_tag_name("gazebo")) {
        let reference = gazebo.attribute("reference");
        for element in gazebo.children().filter(|n| n.is_element()) {
            match (element.tag_name().name(), reference) {
                ("plugin", _) => plugin(doc, element, &mut out, warnings),
                ("sensor", Some(link)) => sensor(doc, element, link, &mut out, warnings),
                ("sensor", None) => warnings.push(Warning {
                    pos: doc.pos(element),
                    message: "a <sensor> outside <gazebo reference=\"link\"> has no link to sit on: ignored".into(),
                }),
                // Friction, colours, self-collision and the like: the import sets its own.
                _ => {}
            }
        }
    }
    out
}

/// Friction a `<gazebo reference="link">` sets with `<mu1>` / `<mu2>` (the smaller),
/// by link.
pub(super) fn frictions(doc: &Doc<'_>) -> std::collections::HashMap<String, f32> {
    let mut out = std::collections::HashMap::new();
    for gazebo in doc.doc.root_element().children().filter(|n| n.has_tag_name("gazebo")) {
        let Some(link) = gazebo.attribute("reference") else { continue };
        let mu =
            ["mu1", "mu2"].iter().filter_map(|tag| number_at(gazebo, &[tag])).filter(|m| *m >= 0.0).reduce(f64::min);
        if let Some(mu) = mu {
            out.insert(link.to_owned(), mu.min(1e3) as f32);
        }
    }
    out
}

fn plugin(doc: &Doc<'_>, plugin: roxmltree::Node<'_, '_>, out: &mut Vec<DeviceDecl>, warnings: &mut Vec<Warning>) {
    let file = plugin.attribute("filename").unwrap_or_default();
    let name = plugin.attribute("name").unwrap_or_default();
    let pos = doc.pos(plugin);
    let is_diff_drive = ["diff_drive", "diff-drive", "diffdrive"]
        .iter()
        .any(|k| file.to_ascii_lowercase().contains(k) || name.to_ascii_lowercase().contains(k));
    if !is_diff_drive {
        warnings.push(Warning { pos, message: format!("the Gazebo plugin '{file}' has no VLab counterpart: ignored") });
        return;
    }
    // Gazebo classic spells these in snake case (ROS 2) or camel case (ROS 1).
    let text = |names: &[&str]| names.iter().find_map(|n| child_text(plugin, n));
    let number = |names: &[&str]| text(names).and_then(|t| t.parse::<f64>().ok()).filter(|n| n.is_finite() && *n > 0.0);
    let (Some(left), Some(right)) = (text(&["left_joint", "leftJoint"]), text(&["right_joint", "rightJoint"])) else {
        warnings.push(Warning {
            pos,
            message: "the differential-drive plugin names no left_joint and right_joint: no drive is added".into(),
        });
        return;
    };
    let torque = number(&["max_wheel_torque", "wheelTorque", "torque"]);
    let radius = number(&["wheel_radius"]).or(number(&["wheel_diameter", "wheelDiameter"]).map(|d| d / 2.0));
    let track = number(&["wheel_separation", "wheelSeparation"]);
    for (side, joint) in [("l", left), ("r", right)] {
        let params = torque.map(|t| vec![("max_force".to_owned(), ParamValue::Num(t))]).unwrap_or_default();
        out.push(DeviceDecl {
            kind: "SimpleMotor",
            name: format!("m_{side}"),
            on: On::Joint(joint.to_owned()),
            params,
            offset: None,
            pos: pos.clone(),
        });
        out.push(DeviceDecl {
            kind: "Encoder",
            name: format!("enc_{side}"),
            on: On::Joint(joint.to_owned()),
            params: vec![],
            offset: None,
            pos: pos.clone(),
        });
    }
    let mut geometry = Vec::new();
    if let Some(r) = radius {
        geometry.push(("wheel_radius".to_owned(), ParamValue::Num(r)));
    }
    if let Some(t) = track {
        geometry.push(("track".to_owned(), ParamValue::Num(t)));
    }
    for (kind, name, left, right) in [("DiffDrive", "drive", "m_l", "m_r"), ("Odometry", "odom", "enc_l", "enc_r")] {
        let mut params = vec![
            ("left".to_owned(), ParamValue::Str(left.into())),
            ("right".to_owned(), ParamValue::Str(right.into())),
        ];
        params.extend(geometry.iter().cloned());
        out.push(DeviceDecl { kind, name: name.into(), on: On::Robot, params, offset: None, pos: pos.clone() });
    }
}

fn sensor(
    doc: &Doc<'_>,
    sensor: roxmltree::Node<'_, '_>,
    link: &str,
    out: &mut Vec<DeviceDecl>,
    warnings: &mut Vec<Warning>,
) {
    let kind = sensor.attribute("type").unwrap_or_default().to_ascii_lowercase();
    let name = sensor.attribute("name").filter(|n| !n.trim().is_empty()).unwrap_or(&kind).trim().to_owned();
    let pos = doc.pos(sensor);
    let mut params: Vec<(String, ParamValue)> = Vec::new();
    let mut set = |key: &str, value: Option<f64>| {
        if let Some(v) = value.filter(|v| v.is_finite() && *v > 0.0) {
            params.push((key.to_owned(), ParamValue::Num(v)));
        }
    };
    set("rate", number_at(sensor, &["update_rate"]));
    let offset = sensor_pose(doc, sensor, &name, warnings);
    let declare = |kind: &'static str, name: String, params: Vec<(String, ParamValue)>| DeviceDecl {
        kind,
        name,
        on: On::Link(link.to_owned()),
        params,
        offset: offset.clone(),
        pos: pos.clone(),
    };
    match kind.as_str() {
        "ray" | "gpu_ray" | "lidar" | "gpu_lidar" => {
            let scan = ["ray", "lidar"].iter().find_map(|c| sensor.children().find(|n| n.has_tag_name(*c)));
            if let Some(scan) = scan {
                let horizontal = |tag: &str| number_at(scan, &["scan", "horizontal", tag]);
                set("beams", horizontal("samples").map(f64::round));
                let fov = horizontal("max_angle").zip(horizontal("min_angle")).map(|(max, min)| max - min);
                set("fov", fov.map(|f| f.min(std::f64::consts::TAU)));
                set("range", number_at(scan, &["range", "max"]));
                set("min_range", number_at(scan, &["range", "min"]));
                set("noise", number_at(scan, &["noise", "stddev"]));
            }
            out.push(declare("Lidar", name, params));
        }
        "imu" => {
            for (kind, suffix) in [("Gyro", "gyro"), ("SimpleAccelerometer", "accel"), ("Compass", "compass")] {
                out.push(declare(kind, format!("{name}_{suffix}"), params.clone()));
            }
        }
        "camera" | "depth" | "depth_camera" | "rgbd_camera" => {
            let camera = sensor.children().find(|n| n.has_tag_name("camera"));
            if let Some(camera) = camera {
                set("width", number_at(camera, &["image", "width"]).map(f64::round));
                set("height", number_at(camera, &["image", "height"]).map(f64::round));
                set("fov", number_at(camera, &["horizontal_fov"]));
            }
            if kind == "camera" {
                let params = fit_camera(params, &name, &pos, warnings);
                out.push(declare("Camera", name, params));
            } else {
                set("range", camera.and_then(|c| number_at(c, &["clip", "far"])));
                let params = fit_camera(params, &name, &pos, warnings);
                out.push(declare("DepthCamera", name, params));
            }
        }
        "contact" => out.push(declare("Touch", name, params)),
        "gps" | "navsat" => out.push(declare("SimpleGPS", name, params)),
        other => warnings.push(Warning {
            pos,
            message: format!("the Gazebo sensor type '{other}' has no VLab counterpart: ignored"),
        }),
    }
}

/// A sensor's `<pose>` (`x y z roll pitch yaw` in its link's frame, as SDF writes it),
/// when it moves the sensor off the link's origin. One that does not read is told and
/// left out (the sensor then sits at the link's origin).
fn sensor_pose(
    doc: &Doc<'_>,
    sensor: roxmltree::Node<'_, '_>,
    name: &str,
    warnings: &mut Vec<Warning>,
) -> Option<urdf_rs::Pose> {
    let element = sensor.children().find(|n| n.has_tag_name("pose"))?;
    let text = element.text().unwrap_or_default();
    let numbers: Option<Vec<f64>> =
        text.split_whitespace().map(|t| t.parse::<f64>().ok().filter(|v| v.is_finite())).collect();
    match numbers.as_deref() {
        Some([x, y, z, roll, pitch, yaw]) => {
            let pose = urdf_rs::Pose { xyz: urdf_rs::Vec3([*x, *y, *z]), rpy: urdf_rs::Vec3([*roll, *pitch, *yaw]) };
            (pose.xyz.0 != [0.0; 3] || pose.rpy.0 != [0.0; 3]).then_some(pose)
        }
        _ => {
            warnings.push(Warning {
                pos: doc.pos(element),
                message: format!(
                    "the <pose> of sensor '{name}' is not six numbers (x y z roll pitch yaw): it sits at its link's origin"
                ),
            });
            None
        }
    }
}

/// A Gazebo camera brought within the catalogue's limits: a simulator on a GPU renders
/// 640 × 480 at 30 Hz, a classroom server casts one ray per pixel on the lab's thread.
/// Past one default camera's rays (160 × 120 at 5 Hz) it is imported at 160 pixels wide
/// (the same shape) and at most 5 Hz, and a depth range past the limit is cut, each
/// with a warning; the wrapper may set other figures within the limits.
fn fit_camera(
    mut params: Vec<(String, ParamValue)>,
    name: &str,
    pos: &Position,
    warnings: &mut Vec<Warning>,
) -> Vec<(String, ParamValue)> {
    use crate::catalogue::{MAX_CAMERA_RAYS_PER_ROBOT, MAX_DEPTH_RANGE, default_value};
    let get = |params: &[(String, ParamValue)], key: &str| {
        params
            .iter()
            .find_map(|(k, v)| match v {
                ParamValue::Num(n) if k == key => Some(*n),
                _ => None,
            })
            .or_else(|| default_value("Camera", key))
            .unwrap_or(0.0)
    };
    let put = |params: &mut Vec<(String, ParamValue)>, key: &str, value: f64| {
        params.retain(|(k, _)| k != key);
        params.push((key.to_owned(), ParamValue::Num(value)));
    };
    let (width, height, rate) = (get(&params, "width"), get(&params, "height"), get(&params, "rate"));
    let one_camera = MAX_CAMERA_RAYS_PER_ROBOT as f64 / 2.0;
    if width * height * rate > one_camera || width * height > crate::catalogue::MAX_CAMERA_PIXELS {
        let (w, h) = (160.0_f64.min(width), (160.0_f64.min(width) * height / width.max(1.0)).round().max(1.0));
        let r = rate.min(one_camera / (w * h)).min(5.0);
        put(&mut params, "width", w);
        put(&mut params, "height", h);
        put(&mut params, "rate", r);
        warnings.push(Warning {
            pos: pos.clone(),
            message: format!(
                "the camera '{name}' ({width} × {height} at {rate} Hz) is imported as {w} × {h} at {r} Hz: a robot's \
                 cameras cast at most {MAX_CAMERA_RAYS_PER_ROBOT} rays per second together (docs/sensors.md, \
                 \"Cameras\"); set its figures in the wrapper"
            ),
        });
    }
    let range = params.iter().find_map(|(k, v)| match v {
        ParamValue::Num(n) if k == "range" => Some(*n),
        _ => None,
    });
    if let Some(range) = range.filter(|r| *r > MAX_DEPTH_RANGE) {
        put(&mut params, "range", MAX_DEPTH_RANGE);
        warnings.push(Warning {
            pos: pos.clone(),
            message: format!("the depth camera '{name}' sees {range} m far: cut to {MAX_DEPTH_RANGE} m, the limit"),
        });
    }
    params
}

#[cfg(test)]
mod tests {
    use super::*;

    fn devices_of(text: &str) -> (Vec<DeviceDecl>, Vec<Warning>) {
        let doc = super::super::xml::read(text, "bot.urdf", None).unwrap();
        let mut warnings = Vec::new();
        (devices(&doc, &mut warnings), warnings)
    }

    #[test]
    fn the_diff_drive_plugin_becomes_motors_encoders_a_drive_and_odometry() {
        let (devices, warnings) = devices_of(
            r#"<robot name="r"><gazebo><plugin name="d" filename="libgazebo_ros_diff_drive.so">
               <left_joint>jl</left_joint><right_joint>jr</right_joint>
               <wheel_separation>0.2</wheel_separation><wheel_diameter>0.06</wheel_diameter>
               <max_wheel_torque>0.03</max_wheel_torque></plugin></gazebo></robot>"#,
        );
        assert!(warnings.is_empty());
        let kinds: Vec<(&str, &str)> = devices.iter().map(|d| (d.kind, d.name.as_str())).collect();
        assert_eq!(
            kinds,
            [
                ("SimpleMotor", "m_l"),
                ("Encoder", "enc_l"),
                ("SimpleMotor", "m_r"),
                ("Encoder", "enc_r"),
                ("DiffDrive", "drive"),
                ("Odometry", "odom")
            ]
        );
        assert_eq!(devices[0].on, On::Joint("jl".into()));
        assert_eq!(devices[0].params, [("max_force".to_owned(), ParamValue::Num(0.03))]);
        assert!(devices[4].params.contains(&("wheel_radius".to_owned(), ParamValue::Num(0.03))));
        assert!(devices[4].params.contains(&("track".to_owned(), ParamValue::Num(0.2))));
    }

    #[test]
    fn a_ray_sensor_is_a_lidar_an_imu_three_sensors_and_strangers_a_warning() {
        let (devices, warnings) = devices_of(
            r#"<robot name="r"><gazebo reference="scan"><sensor type="ray" name="lds"><update_rate>5</update_rate>
               <ray><scan><horizontal><samples>360</samples><min_angle>0</min_angle><max_angle>6.28319</max_angle></horizontal></scan>
               <range><min>0.12</min><max>3.5</max></range></ray></sensor></gazebo>
               <gazebo reference="imu_link"><sensor type="imu" name="imu"/></gazebo>
               <gazebo reference="x"><sensor type="magnetometer" name="m"/></gazebo></robot>"#,
        );
        assert_eq!(devices[0].kind, "Lidar");
        assert_eq!(devices[0].on, On::Link("scan".into()));
        let num = |key: &str| devices[0].params.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
        assert_eq!(num("beams"), Some(ParamValue::Num(360.0)));
        assert_eq!(num("range"), Some(ParamValue::Num(3.5)));
        assert_eq!(num("rate"), Some(ParamValue::Num(5.0)));
        let names: Vec<&str> = devices[1..].iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["imu_gyro", "imu_accel", "imu_compass"]);
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].message.contains("'magnetometer'"), "{}", warnings[0].message);
        assert_eq!(warnings[0].pos.line, 5);
    }

    #[test]
    fn a_sensor_pose_is_six_numbers_off_the_links_origin() {
        let (devices, warnings) = devices_of(
            r#"<robot name="r"><gazebo reference="base"><sensor type="ray" name="a"><pose>0.1 0 0.2 0 0 1.5</pose></sensor>
               <sensor type="ray" name="b"><pose>0 0 0 0 0 0</pose></sensor>
               <sensor type="ray" name="c"><pose>0 0 x</pose></sensor></gazebo></robot>"#,
        );
        let offset = devices[0].offset.as_ref().expect("a pose off the origin");
        assert_eq!((offset.xyz.0, offset.rpy.0), ([0.1, 0.0, 0.2], [0.0, 0.0, 1.5]));
        assert!(devices[1].offset.is_none(), "the origin itself moves nothing");
        assert!(devices[2].offset.is_none());
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0].message.contains("sensor 'c'") && warnings[0].message.contains("six numbers"),
            "{}",
            warnings[0].message
        );
        assert_eq!(warnings[0].pos.line, 3);
    }

    #[test]
    fn a_gpu_sized_camera_is_brought_within_the_budget_with_a_warning() {
        let (devices, warnings) = devices_of(
            r#"<robot name="r"><gazebo reference="cam"><sensor type="camera" name="front"><update_rate>30</update_rate>
               <camera><horizontal_fov>1.2</horizontal_fov><image><width>640</width><height>480</height></image>
               </camera></sensor></gazebo>
               <gazebo reference="cam"><sensor type="depth" name="deep"><update_rate>2</update_rate>
               <camera><image><width>80</width><height>60</height></image><clip><far>100</far></clip></camera>
               </sensor></gazebo></robot>"#,
        );
        let num = |d: &DeviceDecl, key: &str| {
            d.params.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()).unwrap_or(ParamValue::Num(f64::NAN))
        };
        let front = &devices[0];
        let fitted = ["width", "height", "rate", "fov"].map(|key| num(front, key));
        assert_eq!(fitted, [160.0, 120.0, 5.0, 1.2].map(ParamValue::Num), "one default camera's rays, same shape");
        let deep = &devices[1];
        assert_eq!(["width", "rate", "range"].map(|key| num(deep, key)), [80.0, 2.0, 65.0].map(ParamValue::Num));
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].message.contains("'front' (640 × 480 at 30 Hz) is imported as 160 × 120 at 5 Hz"));
        assert!(warnings[1].message.contains("cut to 65 m"), "{}", warnings[1].message);
    }
}
