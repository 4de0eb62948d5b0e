//! Changes made to the world by command between two steps: insertions (within the
//! owner's quota), removals, a robot put back at its start, an object moved by hand, the
//! room changed.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::Runner;
use crate::capacity;
use crate::changes;
use crate::error::LabError;
use crate::placement::{self, Misplaced};
use crate::recording::{Change, Record};
use vlab_programs::ProgramCode;
use vlab_protocol::{RoomChange, RoomView};
use vlab_sim::robot::Owner;
use vlab_sim::scene::{Inserted, Motion, SceneError, SceneModel, static_footprints};

impl Runner {
    /// Inserts `addition` if it keeps `owner` within `quota` robots, the lab within its
    /// capacity and its robots over something fixed and clear; then keeps the floor its
    /// robots asked for clear (`keep_clear`) and starts their `programs`.
    pub(super) fn insert_checked(
        &mut self,
        addition: &SceneModel,
        owner: Option<Owner>,
        quota: Option<usize>,
        programs: BTreeMap<String, Arc<ProgramCode>>,
        keep_clear: Option<f32>,
    ) -> Result<Inserted, LabError> {
        let refusal = self
            .over_quota(addition, owner.as_ref(), quota)
            .or_else(|| capacity::check(&self.sim.model, addition).err().map(LabError::from))
            .or_else(|| {
                placement::check_insert_robots(&self.sim.model, &self.sim.world, addition).err().map(LabError::from)
            });
        if let Some(refusal) = refusal {
            return Err(refusal);
        }
        let done = self.insert(addition, owner).map_err(LabError::Refused)?;
        if let Some(metres) = keep_clear {
            self.sim.kept_clear.extend(addition.robots.iter().map(|r| (r.name.clone(), metres)));
        }
        let who = owner_words(addition.robots.first().and_then(|r| self.sim.robots.get(&r.name)));
        let names: Vec<&str> = addition.robots.iter().map(|r| r.name.as_str()).collect();
        let text = format!("inserted {} bodies, robots [{}]{who}", done.bodies, names.join(", "));
        self.history.recorder.record(Record::Event { step: self.clock.step, text });
        for (robot, code) in programs {
            let (dt, step) = (self.sim.model.dt_secs, self.clock.step);
            self.sim.programs.start(&robot, &mut self.sim.robots, code, dt, step);
        }
        self.publish_telemetry();
        Ok(done)
    }

    /// Inserts objects (bodies of no robot) if they keep `owner` within `quota` objects,
    /// the lab within its capacity, and each object over something fixed and clear.
    pub(super) fn insert_objects_checked(
        &mut self,
        addition: &SceneModel,
        owner: Option<Owner>,
        quota: Option<usize>,
    ) -> Result<Inserted, LabError> {
        if let (Some(owner), Some(quota)) = (owner.as_ref(), quota) {
            let have = self.sim.model.bodies.iter().filter(|b| b.robot.is_none() && b.owner == Some(owner.id)).count();
            let adding = addition.bodies.len();
            if have + adding > quota {
                return Err(LabError::OverObjectQuota { quota, have, adding });
            }
        }
        capacity::check(&self.sim.model, addition)?;
        placement::check_insert_objects(&self.sim.model, &self.sim.world, addition)?;
        let by = owner.as_ref().map(|o| format!(", by {}", o.name)).unwrap_or_default();
        let done = self.insert(addition, owner).map_err(LabError::Refused)?;
        let names: Vec<&str> = addition.bodies.iter().map(|b| b.name.as_str()).collect();
        let text = format!("inserted objects [{}]{by}", names.join(", "));
        self.history.recorder.record(Record::Event { step: self.clock.step, text });
        Ok(done)
    }

    /// Why `addition` would take `owner` past `quota` robots, if it would.
    pub(super) fn over_quota(
        &self,
        addition: &SceneModel,
        owner: Option<&Owner>,
        quota: Option<usize>,
    ) -> Option<LabError> {
        let (owner, quota) = (owner?, quota?);
        let have = self.sim.robots.owners().values().filter(|id| **id == owner.id).count();
        let adding = addition.robots.len();
        (have + adding > quota).then_some(LabError::OverQuota { quota, have, adding })
    }

    /// Adds `addition` to the model and the world, all or nothing, and sends everybody
    /// the new scene with the current poses.
    pub(super) fn insert(&mut self, addition: &SceneModel, owner: Option<Owner>) -> Result<Inserted, SceneError> {
        let at = (self.clock.step, self.time());
        let inserted = changes::insert(
            &mut self.sim.model,
            &mut self.sim.world,
            &mut self.sim.robots,
            addition,
            owner.clone(),
            at,
        )?;
        if addition.bodies.iter().any(|b| b.motion == Motion::Fixed && b.robot.is_none()) {
            self.sim.programs.set_obstacles(static_footprints(&self.sim.model));
        }
        self.history.run.insertions.push((Box::new(addition.clone()), owner));
        self.changed(Change::Inserted { index: self.history.run.insertions.len() - 1 });
        self.publish_scene();
        self.publish_state();
        Ok(inserted)
    }

    /// Takes a robot out: the world is rebuilt without it, every other body where and
    /// as fast as it was, every other robot's devices carrying on; a new epoch.
    pub(super) fn remove_robot(&mut self, name: &str) -> bool {
        if !changes::remove_robot(&mut self.sim.model, &mut self.sim.world, &mut self.sim.robots, name) {
            return false;
        }
        self.sim.programs.remove(name);
        self.changed(Change::Removed { robot: name.to_owned() });
        self.history.recorder.record(Record::Event { step: self.clock.step, text: format!("removed robot {name}") });
        self.publish_scene();
        self.publish_state();
        true
    }

    /// Takes an object (a body of no robot) out: the world is rebuilt without it, every
    /// other body where and as fast as it was; a new epoch.
    pub(super) fn remove_object(&mut self, name: &str) -> bool {
        let fixed = self.sim.model.object_index(name).is_some_and(|i| self.sim.model.bodies[i].motion == Motion::Fixed);
        if !changes::remove_object(&mut self.sim.model, &mut self.sim.world, &mut self.sim.robots, name) {
            return false;
        }
        if fixed {
            self.sim.programs.set_obstacles(static_footprints(&self.sim.model));
        }
        self.changed(Change::ObjectRemoved { name: name.to_owned() });
        self.history.recorder.record(Record::Event { step: self.clock.step, text: format!("removed object {name}") });
        self.publish_scene();
        self.publish_state();
        true
    }

    /// Puts a robot's bodies back at their start poses, at rest, and its devices at
    /// their start.
    pub(super) fn reset_robot(&mut self, name: &str) -> Result<bool, Misplaced> {
        let (step, time) = (self.clock.step, self.time());
        placement::check_reset(&self.sim.model, &self.sim.world, name)?;
        if !changes::reset_robot(&self.sim.model, &mut self.sim.world, &mut self.sim.robots, name, (step, time)) {
            return Ok(false);
        }
        self.changed(Change::RobotReset { robot: name.to_owned() });
        // A robot back at its start runs its program from the start too.
        self.sim.programs.restart(name, &mut self.sim.robots, self.sim.model.dt_secs, step);
        self.history.recorder.record(Record::Event { step, text: format!("robot {name} put back at its start") });
        self.publish_frame();
        self.publish_telemetry();
        Ok(true)
    }

    /// Moves the start robot `name` is put back at; where it is now does not change.
    pub(super) fn set_start(
        &mut self,
        name: &str,
        position: [f32; 3],
        heading: Option<f32>,
    ) -> Result<bool, Misplaced> {
        let Some(plan) = changes::StartPlan::of(&self.sim.model, name, position, heading) else { return Ok(false) };
        placement::check_start(&self.sim.model, &self.sim.world, &plan.bodies, &plan.poses)?;
        plan.apply(&mut self.sim.model);
        self.changed(Change::StartMoved { robot: name.to_owned(), position, heading });
        let [x, y, z] = position;
        let text = format!("robot {name}'s start moved to ({x:.3}, {y:.3}, {z:.3})");
        self.history.recorder.record(Record::Event { step: self.clock.step, text });
        Ok(true)
    }

    /// Moves a body, or a robot as a whole, to `position` at rest.
    pub(super) fn move_object(
        &mut self,
        name: &str,
        position: [f32; 3],
        heading: Option<f32>,
    ) -> Result<bool, Misplaced> {
        let Some(plan) = changes::MovePlan::of(&self.sim.model, &self.sim.world, name, position, heading) else {
            return Ok(false);
        };
        placement::check_move(&self.sim.model, &self.sim.world, &plan.bodies, &plan.poses(&self.sim.world))?;
        let fixed: Vec<usize> = plan.bodies.iter().copied().filter(|&i| self.sim.world.is_fixed(i)).collect();
        let now = plan.apply(&mut self.sim.world);
        self.changed(Change::Moved { name: name.to_owned(), position, heading });
        let [x, y, z] = position;
        let text = format!("{name} moved to ({x:.3}, {y:.3}, {z:.3}), heading {now:.3}");
        self.history.recorder.record(Record::Event { step: self.clock.step, text });
        if fixed.is_empty() {
            self.publish_frame();
        } else {
            // A fixed object (a palette's ramp or wall) stands where the model says for
            // programs' maps, and pages draw fixed bodies from the snapshot, not frames.
            for &i in &fixed {
                self.sim.model.bodies[i].pose = self.sim.world.pose(i);
            }
            self.sim.programs.set_obstacles(static_footprints(&self.sim.model));
            self.publish_scene();
        }
        self.publish_telemetry();
        Ok(true)
    }
}

impl Runner {
    /// Changes the room as `change` says: refused, with the lab unchanged, when a value
    /// is out of the language's limits or (when `checked`) a moving body would not stand
    /// inside the new room; else made between two steps, and everybody sees the new room.
    pub(super) fn change_room(&mut self, change: RoomChange, checked: bool) -> Result<RoomView, LabError> {
        let changed = changes::room_changed(&self.sim.model, &change)?;
        if checked {
            placement::check_room(&self.sim.model, &changed, &self.sim.world).map_err(Misplaced::from)?;
        }
        changes::apply_room(&mut self.sim.model, &mut self.sim.world, changed);
        self.sim.programs.set_obstacles(static_footprints(&self.sim.model));
        let view = crate::wire::room(&self.sim.model).expect("a changed room is there");
        let text = format!(
            "the room changed: {} × {} m, {} m high, gravity {} m/s²",
            view.width, view.length, view.height, view.gravity
        );
        self.changed(Change::Room { room: change });
        self.history.recorder.record(Record::Event { step: self.clock.step, text });
        self.publish_scene();
        self.publish_state();
        self.publish_telemetry();
        Ok(view)
    }
}

/// ", by Ana" for a robot a participant added; nothing for the lab's own.
fn owner_words(robot: Option<&vlab_sim::robot::Robot>) -> String {
    robot.and_then(|r| r.owner()).map(|o| format!(", by {}", o.name)).unwrap_or_default()
}
