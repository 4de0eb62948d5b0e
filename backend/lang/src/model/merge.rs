//! Adding one model to another: what inserting an uploaded scene into a running lab
//! does to the lab's model.

use std::collections::HashSet;

use super::{Mount, SceneError, SceneModel};

/// What an insertion added.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Inserted {
    /// Rigid bodies.
    pub bodies: usize,
    /// Joints.
    pub joints: usize,
    /// Robots.
    pub robots: usize,
}

impl SceneModel {
    /// Appends `addition` (whose indices count from 0) to this model, all or nothing:
    /// on error `self` is unchanged.
    ///
    /// Rules: names stay unique across the lab; the first environment of a lab (an
    /// empty lab has none) sets its sky, gravity and step, and a second one is refused;
    /// so is a second challenge.
    pub fn merge(&mut self, addition: &SceneModel) -> Result<Inserted, SceneError> {
        addition.validate()?;
        if addition.environment.is_some() && self.environment.is_some() {
            return Err(SceneError::EnvironmentAlreadySet);
        }
        if addition.challenge.is_some() && self.challenge.is_some() {
            return Err(SceneError::ChallengeAlreadySet);
        }
        let taken: HashSet<&str> = self.names().collect();
        if let Some(clash) = addition.names().find(|name| taken.contains(name)) {
            return Err(SceneError::NameTaken(clash.to_owned()));
        }

        let mut merged = self.clone();
        let (body_offset, joint_offset) = (self.bodies.len(), self.joints.len());
        if addition.environment.is_some() {
            merged.environment = addition.environment.clone();
            merged.sky = addition.sky;
            merged.gravity_y = addition.gravity_y;
        }
        merged.bodies.extend(addition.bodies.iter().cloned());
        merged.joints.extend(addition.joints.iter().cloned().map(|mut joint| {
            joint.body1 += body_offset;
            joint.body2 += body_offset;
            joint
        }));
        merged.robots.extend(addition.robots.iter().cloned().map(|mut robot| {
            robot.main_body += body_offset;
            robot
        }));
        merged.groups.extend(addition.groups.iter().cloned());
        if let Some(challenge) = &addition.challenge {
            let mut challenge = challenge.clone();
            challenge.renumber_bodies(|body| Some(body + body_offset));
            merged.challenge = Some(challenge);
        }
        let shift = |mount: Mount| match mount {
            Mount::Body(i) => Mount::Body(i + body_offset),
            Mount::Joint(j) => Mount::Joint(j + joint_offset),
            Mount::Robot => Mount::Robot,
        };
        let devices = [
            (&mut merged.sensors, &addition.sensors),
            (&mut merged.actuators, &addition.actuators),
            (&mut merged.beacons, &addition.beacons),
        ];
        for (into, from) in devices {
            into.extend(from.iter().cloned().map(|mut device| {
                device.mount = shift(device.mount);
                device
            }));
        }
        merged.validate()?;
        *self = merged;
        Ok(Inserted { bodies: addition.bodies.len(), joints: addition.joints.len(), robots: addition.robots.len() })
    }

    /// Every name an element of this model holds lab-wide. Devices are named within
    /// their robot (two robots may both have a `gps`); `validate` checks them.
    fn names(&self) -> impl Iterator<Item = &str> {
        let parts = self.bodies.iter().flat_map(|b| b.parts.iter().filter_map(|p| p.name.as_deref()));
        self.bodies
            .iter()
            .map(|b| b.name.as_str())
            .chain(parts)
            .chain(self.joints.iter().map(|j| j.name.as_str()))
            .chain(self.robots.iter().map(|r| r.name.as_str()))
            .chain(self.groups.iter().map(|g| g.name.as_str()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::test_support::ball as body;
    use crate::model::{Condition, Event, JointKind, JointModel, RobotModel, Touchable};

    fn pair(a: &str, b: &str, joint: &str) -> SceneModel {
        let mut model = SceneModel::empty();
        model.bodies = vec![body(a), body(b)];
        model.joints = vec![JointModel {
            name: joint.into(),
            body1: 0,
            body2: 1,
            kind: JointKind::Fixed,
            erp: None,
            cfm: None,
            limits: None,
            bodies_touch: true,
        }];
        model.robots = vec![RobotModel { name: format!("{a}_robot"), main_body: 1, program: None, program_rate: None }];
        model
    }

    #[test]
    fn merging_shifts_indices_past_what_is_there() {
        let mut lab = pair("a", "b", "ab");
        let inserted = lab.merge(&pair("c", "d", "cd")).unwrap();
        assert_eq!(inserted, Inserted { bodies: 2, joints: 1, robots: 1 });
        assert_eq!(lab.bodies.len(), 4);
        assert_eq!((lab.joints[1].body1, lab.joints[1].body2), (2, 3));
        assert_eq!(lab.robots[1].main_body, 3);
    }

    #[test]
    fn a_name_clash_changes_nothing() {
        let mut lab = pair("a", "b", "ab");
        let before = lab.clone();
        assert_eq!(lab.merge(&pair("c", "b", "cb")), Err(SceneError::NameTaken("b".into())));
        assert_eq!(lab, before);
    }

    #[test]
    fn robots_may_name_their_devices_alike_but_not_twice_in_one_robot() {
        let robot = |name: &str| {
            let source = format!("robot {name} {{ body {{ {name}_body {{ shape box(1,1,1); SimpleGPS gps; }} }} }}");
            crate::interpret(&source, "r.vlab", &crate::NoFiles, &crate::Options::default()).unwrap().model
        };
        let mut lab = SceneModel::empty();
        lab.merge(&robot("a")).unwrap();
        lab.merge(&robot("b")).unwrap();
        assert_eq!(lab.sensors.len(), 2);
        assert_eq!(lab.sensors[1].robot.as_deref(), Some("b"));
        assert!(matches!(lab.merge(&robot("a")), Err(SceneError::NameTaken(_))));
    }

    #[test]
    fn a_second_environment_is_refused() {
        let source = "environment room { width 4; length 4; height 2; }";
        let loader = crate::NoFiles;
        let env = crate::interpret(source, "env.vlab", &loader, &crate::Options::default()).unwrap().model;
        let mut lab = SceneModel::empty();
        lab.merge(&env).unwrap();
        assert!(lab.environment.is_some());
        let before = lab.clone();
        assert_eq!(lab.merge(&env), Err(SceneError::EnvironmentAlreadySet));
        assert_eq!(lab, before);
    }

    #[test]
    fn a_challenge_comes_with_its_scene_and_a_second_is_refused() {
        let source = "crate1 { shape box(1, 1, 1); }\n\
            challenge \"c\" { time_limit 10; zone z { box(1, 1, 1); }\n\
            success pushed_into(crate1, z) and not touched(crate1); failure touched(crate1); }";
        let scene = crate::interpret(source, "c.vlab", &crate::NoFiles, &crate::Options::default()).unwrap().model;
        let mut lab = pair("a", "b", "ab");
        lab.merge(&scene).unwrap();
        let challenge = lab.challenge.clone().expect("the scene's challenge");
        assert_eq!(lab.body_index("crate1"), Some(2));
        let touched = Condition::Event(Event::Touched(Touchable::Body(2)));
        let success = Condition::And(
            Box::new(Condition::Event(Event::PushedInto { body: 2, zone: 0 })),
            Box::new(Condition::Not(Box::new(touched.clone()))),
        );
        assert_eq!((challenge.success, challenge.failure), (success, Some(touched)));
        let before = lab.clone();
        let another = crate::interpret(
            "challenge \"d\" { time_limit 10; success fell(); }",
            "d.vlab",
            &crate::NoFiles,
            &crate::Options::default(),
        )
        .unwrap()
        .model;
        assert_eq!(lab.merge(&another), Err(SceneError::ChallengeAlreadySet));
        assert_eq!(lab, before);
    }
}
