//! Saving a lab as a scene: the world as it stands now written as `.vlab` text
//! (`GET /api/labs/{lab}/scene.vlab`), which a new lab is made from (docs/classroom.md,
//! "Saving a lab as a scene"). The instructor's alone, as the whole lab's recording is:
//! it names every student's robot and program.
//!
//! The lab changes nothing: its thread reads the model and every body's pose together
//! between two steps, and the text is written here, off that thread.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use vlab_lab::{Caller, LabHandle};
use vlab_protocol::permissions::Action;
use vlab_scene::{SaveNote, write_scene};

use super::ClassroomError;
use super::access::authorize;

/// A lab written as a scene.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SavedScene {
    /// The name it is downloaded as (`robotics-1-k7mp.vlab`).
    pub file_name: String,
    /// The `.vlab` text.
    pub text: String,
}

/// Saving the classroom's labs as scenes.
pub struct ClassroomSaving;

impl ClassroomSaving {
    /// `GET /api/labs/{lab}/scene.vlab` (the instructor): the lab's world now, as a
    /// scene. A world the language cannot say (a URDF robot's convex hulls or joint
    /// limits) is refused with what it is, and the lab goes on unchanged.
    pub async fn vlab(self, lab: &Arc<LabHandle>, caller: Caller) -> Result<SavedScene, ClassroomError> {
        authorize(caller, Action::SaveScene)?;
        let world = lab.robots().world_now().await?;
        let saved_at = utc_now();
        let note = SaveNote { lab: lab.id(), step: world.step, sim_secs: world.time_secs, saved_at: &saved_at };
        let text = write_scene(&world.model, &world.poses, &note)
            .map_err(|error| ClassroomError::Conflict(format!("this lab cannot be saved as a scene: {error}")))?;
        Ok(SavedScene { file_name: format!("{}.vlab", lab.id()), text })
    }
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
