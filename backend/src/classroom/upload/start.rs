//! A robot description that leaves its start to the lab (`{x}` and `{z}`): interpreted
//! once with a provisional start to learn the robot's shape, given a spot by the lab
//! ([`StartSearch`]), then written with that spot, so the store keeps exactly what was
//! inserted and a restart puts the robot back there.

use std::sync::Arc;

use vlab_lab::LabHandle;
use vlab_lab::placement::StartSearch;
use vlab_protocol::{ChosenStart, SceneUploadReply, SourceMessage, fill_start, first_placeholder};
use vlab_sim::scene::DirLoader;

use super::bundle::Bundle;
use super::interpret;
use crate::classroom::{ClassroomError, RefusalKind};

/// How many times one upload chooses a start: another upload may take the spot chosen
/// before this one is inserted, and is then refused by the insertion's own check.
pub const START_TRIES: u32 = 3;

/// `bundle` with its start chosen and written in, and the start.
pub async fn choose(
    lab: &LabHandle,
    bundle: &Bundle,
    library: DirLoader,
    asked_m: f32,
) -> Result<(Bundle, ChosenStart), ClassroomError> {
    let provisional = Arc::new(bundle.with_main_text(fill_start(&bundle.main_text, 0.0, 0.0)));
    let interpretation = interpret::run(provisional, library, lab.seed()).await.map_err(|errors| {
        ClassroomError::upload(RefusalKind::Invalid, SceneUploadReply { errors, ..SceneUploadReply::default() })
    })?;
    let search: StartSearch = lab.robots().start_search().await?;
    let model = interpretation.model;
    let start = tokio::task::spawn_blocking(move || search.choose(&model, asked_m))
        .await
        .map_err(|e| ClassroomError::Internal(format!("choosing a start failed: {e}")))?
        .map_err(|no_start| {
            let error =
                SourceMessage { file: bundle.main_name.clone(), line: 1, col: 1, message: no_start.to_string() };
            ClassroomError::upload(RefusalKind::Invalid, SceneUploadReply { errors: vec![error], ..Default::default() })
        })?;
    let (x, z) = (f64::from(start.x), f64::from(start.z));
    let chosen = ChosenStart { x, z, clearance_m: f64::from(start.clearance_m), asked_m: f64::from(asked_m) };
    Ok((bundle.with_main_text(fill_start(&bundle.main_text, x, z)), chosen))
}

/// The warning a start with less free floor than asked gets, if it has less.
pub fn short_of_floor(main_name: &str, robot: &str, chosen: &ChosenStart) -> Option<SourceMessage> {
    (chosen.clearance_m < chosen.asked_m).then(|| SourceMessage {
        file: main_name.to_owned(),
        line: 1,
        col: 1,
        message: format!(
            "no spot of the lab's floor has {:.2} m of free floor around it, as asked: {robot} starts at x {}, z {} \
             with {:.2} m",
            chosen.asked_m, chosen.x, chosen.z, chosen.clearance_m
        ),
    })
}

/// The error a scene upload (not a robot's) gets for a placeholder, which only adding a
/// robot fills in: at the first one, saying where to take the file instead.
pub fn placeholder_in_scene(bundle: &Bundle) -> Option<SourceMessage> {
    let text = &bundle.main_text;
    let (offset, placeholder) = first_placeholder(text)?;
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().unwrap_or_default().chars().count() + 1;
    Some(SourceMessage {
        file: bundle.main_name.clone(),
        line: line as u32,
        col: col as u32,
        message: format!(
            "{placeholder} is filled in when a robot is added (Add robot, or POST .../robots), not in a scene: \
             add this file as a robot, or write its name and numbers in place of {{suffix}}, {{x}} and {{z}}"
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bundle(text: &str) -> Bundle {
        Bundle { main_name: "robot.vlab".into(), main_text: text.into(), ..Bundle::default() }
    }

    #[test]
    fn a_placeholder_in_a_scene_is_refused_where_it_is() {
        let error = placeholder_in_scene(&bundle("// a robot\ncall diffbot(\"_a\", {x}, {z}, 0);\n")).unwrap();
        assert_eq!((error.file.as_str(), error.line, error.col), ("robot.vlab", 2, 20));
        assert!(error.message.starts_with("{x} is filled in when a robot is added"), "{}", error.message);
        assert_eq!(placeholder_in_scene(&bundle("call diffbot(\"_a\", 1, 2, 0);")), None);
    }

    #[test]
    fn a_start_with_less_floor_than_asked_is_said() {
        let chosen = ChosenStart { x: 3.0, z: 3.0, clearance_m: 1.25, asked_m: 2.5 };
        let warning = short_of_floor("robot.vlab", "robot 'diffbot_a'", &chosen).unwrap();
        assert!(
            warning
                .message
                .contains("2.50 m of free floor around it, as asked: robot 'diffbot_a' starts at x 3, z 3 with 1.25 m"),
            "{}",
            warning.message
        );
        assert_eq!(short_of_floor("robot.vlab", "r", &ChosenStart { asked_m: 1.25, ..chosen }), None);
    }
}
