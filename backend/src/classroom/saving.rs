//! Saving a lab as a scene: the world as it stands now written as `.vlab` text
//! (`GET /api/labs/{lab}/scene.vlab`), which a new lab is made of, or as a zip with the
//! program files and meshes that text names (`scene.zip`), for another server
//! (docs/classroom.md, "Saving a lab as a scene"). The instructor's alone, as the whole
//! lab's recording is: it names every student's robot and carries their programs.
//!
//! The lab changes nothing: its thread reads the model and every body's pose together
//! between two steps, and the text is written here, off that thread.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use vlab_lab::{Caller, LabHandle, WorldNow};
use vlab_protocol::permissions::Action;
use vlab_scene::{SaveNote, named_files, write_scene};

use super::access::authorize;
use super::{Classroom, ClassroomError};

/// A lab written as a scene.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SavedScene {
    /// The name it is downloaded as (`robotics-1-k7mp.vlab`).
    pub file_name: String,
    /// The `.vlab` text.
    pub text: String,
}

/// A lab written as a scene with the files it names, zipped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SavedZip {
    /// The name it is downloaded as (`robotics-1-k7mp.zip`).
    pub file_name: String,
    /// The zip file.
    pub bytes: Vec<u8>,
}

/// Saving the classroom's labs as scenes, for one request.
pub struct ClassroomSaving<'a> {
    pub(super) classroom: &'a Classroom,
}

impl ClassroomSaving<'_> {
    /// `GET /api/labs/{lab}/scene.vlab` (the instructor): the lab's world now, as a
    /// scene. A world the language cannot say (a URDF robot's convex hulls or joint
    /// limits) is refused with what it is, and the lab goes on unchanged.
    pub async fn vlab(self, lab: &Arc<LabHandle>, caller: Caller) -> Result<SavedScene, ClassroomError> {
        authorize(caller, Action::SaveScene)?;
        let world = lab.robots().world_now().await?;
        Ok(SavedScene { file_name: format!("{}.vlab", lab.id()), text: scene_text(lab, &world)? })
    }

    /// `GET /api/labs/{lab}/scene.zip` (the instructor): the scene as `{lab}.vlab`, and
    /// beside it, at the paths the scene names them, each robot's program files (those
    /// the lab runs, else the scene library's) and the meshes its objects draw (the
    /// asset library's, else those uploaded with them). A file the server does not have
    /// is left out; of two robots' files of one name, the first robot's is kept.
    pub async fn zip(self, lab: &Arc<LabHandle>, caller: Caller) -> Result<SavedZip, ClassroomError> {
        authorize(caller, Action::SaveScene)?;
        let world = lab.robots().world_now().await?;
        let scene_name = format!("{}.vlab", lab.id());
        let mut files: BTreeMap<String, Vec<u8>> = BTreeMap::new();
        files.insert(scene_name, scene_text(lab, &world)?.into_bytes());
        let library = self.classroom.library();
        let named = named_files(&world.model);
        for (robot, paths) in &named.programs {
            let running = lab.programs().program(robot).await.ok().map(|(code, _)| code);
            for path in paths {
                let from_running = running.as_ref().and_then(|code| {
                    let base = path.rsplit('/').next().unwrap_or(path);
                    match code.files.get(path).or_else(|| code.files.get(base)) {
                        Some(text) => Some(text.clone().into_bytes()),
                        None if code.main == *path || code.main == base => code.module.as_ref().map(|m| m.to_vec()),
                        None => None,
                    }
                });
                // What the lab runs first: a student's file may share a library file's name.
                if let Some(bytes) = from_running.or_else(|| read_inside(&library.scenes_dir, path)) {
                    files.entry(path.clone()).or_insert(bytes);
                }
            }
        }
        for mesh in world.model.bodies.iter().flat_map(|b| &b.parts).filter_map(|p| p.mesh.as_ref()) {
            let Some(resolved) = &mesh.resolved else { continue };
            let uploaded = || self.classroom.assets.get(lab.id(), resolved).map(|bytes| bytes.to_vec());
            if let Some(bytes) = read_inside(&library.assets_dir, resolved).or_else(uploaded) {
                files.entry(resolved.clone()).or_insert(bytes);
            }
        }
        let bytes = zipped(&files)
            .map_err(|error| ClassroomError::Internal(format!("the lab's scene could not be zipped: {error}")))?;
        Ok(SavedZip { file_name: format!("{}.zip", lab.id()), bytes })
    }
}

/// The scene text of `world`, lab `lab`'s now.
fn scene_text(lab: &LabHandle, world: &WorldNow) -> Result<String, ClassroomError> {
    let saved_at = utc_now();
    let note = SaveNote { lab: lab.id(), step: world.step, sim_secs: world.time_secs, saved_at: &saved_at };
    write_scene(&world.model, &world.poses, &note)
        .map_err(|error| ClassroomError::Conflict(format!("this lab cannot be saved as a scene: {error}")))
}

/// The file at the relative path `path` under `folder`, if it is there and the path
/// stays inside (a scene's names are checked when it runs; this holds whatever comes).
fn read_inside(folder: &Path, path: &str) -> Option<Vec<u8>> {
    let plain = !path.is_empty()
        && !path.starts_with('/')
        && !path.contains(['\\', ':'])
        && path.split('/').all(|part| !part.is_empty() && part != "." && part != "..");
    if !plain {
        return None;
    }
    std::fs::read(folder.join(path)).ok()
}

/// `files` (path → bytes) as a zip, deflated.
fn zipped(files: &BTreeMap<String, Vec<u8>>) -> zip::result::ZipResult<Vec<u8>> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (path, bytes) in files {
        zip.start_file(path, options)?;
        zip.write_all(bytes)?;
    }
    Ok(zip.finish()?.into_inner())
}

/// Now, as `2026-12-02 10:04 UTC`: the header of a saved scene says when.
fn utc_now() -> String {
    let secs = SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    utc_text(secs)
}

/// `secs` since 1970 as a UTC date and time of day, to the minute.
fn utc_text(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let minutes = (secs % 86_400) / 60;
    // Days to a civil date (Howard Hinnant's algorithm, proleptic Gregorian).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 { month_index + 3 } else { month_index - 9 };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {:02}:{:02} UTC", minutes / 60, minutes % 60)
}

#[cfg(test)]
mod tests {
    use super::utc_text;

    #[test]
    fn dates_are_civil_utc() {
        assert_eq!(utc_text(0), "1970-01-01 00:00 UTC");
        assert_eq!(utc_text(951_782_400), "2000-02-29 00:00 UTC");
        assert_eq!(utc_text(1_796_207_100), "2026-12-02 10:25 UTC");
    }
}
