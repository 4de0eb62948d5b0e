//! A recorded moment into the page: the 3D view takes its scene (when it differs) and poses, the inspector the picked robot's report then, the trails its path up to then.

use leptos::prelude::*;
use vlab_protocol::{Frame, RecordedMoment};

use crate::connection::LabSession;
use crate::timeline::replay::Replay;
use crate::timeline::seek::send_seek;
use crate::view3d::world::FrameOutcome;

/// Shows `moment` if the page is still seeking (one answering a seek from before going
/// live is dropped).
pub fn show_moment(session: LabSession, moment: RecordedMoment) {
    if !session.replay.try_update(|replay| replay.take_moment(&moment)).unwrap_or(false) {
        return;
    }
    let RecordedMoment { step, time, snapshot, epoch, poses, robots, trails, .. } = moment;
    if let Some(snapshot) = snapshot {
        // Its bodies may differ from the live scene's (a robot added or removed since).
        session.body_count.set(snapshot.bodies.len());
        session.world.update_value(|world| world.apply_snapshot(snapshot));
    }
    let placed = session.world.try_update_value(|world| world.apply_frame(&Frame { epoch, step, time, poses }));
    if placed != Some(FrameOutcome::Applied) {
        // The view holds another scene than the moment's: ask again, for the scene too.
        session.replay.update(Replay::forget_scene);
        if let Some(target) = session.replay.with_untracked(Replay::target) {
            send_seek(session, target);
        }
        return;
    }
    let Some(robot) = session.inspected.get_untracked() else { return };
    let report = robots.into_iter().find(|report| report.name == robot);
    let trail = trails.iter().find(|trail| trail.robot == robot);
    session.overlay.update_value(|overlay| overlay.show_recorded(&robot, report.as_ref(), trail));
    // The estimate row reads the belief: its estimate then.
    session.belief.set(session.overlay.with_value(|overlay| overlay.belief().cloned()));
    session.robot_report.set(report);
}
