//! Taking a robot out of a model (a student removes their robot): its bodies, the
//! joints that hold them, its devices and its name go; every index that pointed past
//! them moves down (the challenge's too), and [`Renumbering`] says where each old
//! index went.

use std::collections::HashSet;

use super::{Mount, SceneModel};

/// Where the elements of a model went when others were taken out: `bodies[old]` is
/// the new index of body `old`, `None` if it was removed; likewise joints and robots.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Renumbering {
    /// New index of each old body.
    pub bodies: Vec<Option<usize>>,
    /// New index of each old joint.
    pub joints: Vec<Option<usize>>,
    /// New index of each old robot.
    pub robots: Vec<Option<usize>>,
}

impl SceneModel {
    /// This model without robot `name` (its bodies, the joints touching them, its
    /// devices, and the names of all these in containers), and how indices moved;
    /// `None` when there is no such robot.
    pub fn without_robot(&self, name: &str) -> Option<(SceneModel, Renumbering)> {
        let robot_index = self.robots.iter().position(|r| r.name == name)?;
        Some(self.without(|b| b.robot.as_deref() == Some(name), Some(robot_index)))
    }

    /// This model without object `name`, a body of no robot (called so, or a part of it
    /// called so), with the joints touching it and the devices on it; `None` when there
    /// is no such object.
    pub fn without_object(&self, name: &str) -> Option<(SceneModel, Renumbering)> {
        let index = self.object_index(name)?;
        let body_name = self.bodies[index].name.clone();
        Some(self.without(|b| b.name == body_name, None))
    }

    /// The index of the body of no robot called `name`, or with a part called so.
    pub fn object_index(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| {
            b.robot.is_none() && (b.name == name || b.parts.iter().any(|p| p.name.as_deref() == Some(name)))
        })
    }

    /// This model without the bodies `gone_body` picks (and robot `robot_index`, whose
    /// bodies they are), the joints touching them, the devices on them or of the robot.
    fn without(
        &self,
        gone_body: impl Fn(&super::BodyModel) -> bool,
        robot_index: Option<usize>,
    ) -> (SceneModel, Renumbering) {
        let name = robot_index.map(|i| self.robots[i].name.as_str());
        let bodies = renumber(self.bodies.iter().map(|b| !gone_body(b)));
        let joints = renumber(self.joints.iter().map(|j| bodies[j.body1].is_some() && bodies[j.body2].is_some()));
        let robots = renumber((0..self.robots.len()).map(|i| Some(i) != robot_index));

        let mut gone_names: HashSet<&str> = HashSet::new();
        for body in self.bodies.iter().filter(|b| gone_body(b)) {
            gone_names.insert(&body.name);
            gone_names.extend(body.parts.iter().filter_map(|p| p.name.as_deref()));
        }
        let mut model = self.clone();
        model.bodies = self.bodies.iter().filter(|b| !gone_body(b)).cloned().collect();
        model.joints = self
            .joints
            .iter()
            .enumerate()
            .filter_map(|(i, joint)| {
                joints[i]?;
                let mut joint = joint.clone();
                joint.body1 = bodies[joint.body1].expect("kept joints join kept bodies");
                joint.body2 = bodies[joint.body2].expect("kept joints join kept bodies");
                Some(joint)
            })
            .collect();
        model.robots = self
            .robots
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(*i) != robot_index)
            .map(|(_, robot)| {
                let mut robot = robot.clone();
                robot.main_body = bodies[robot.main_body].expect("other robots keep their bodies");
                robot
            })
            .collect();
        let keep_device = |device: &super::DeviceModel| -> Option<super::DeviceModel> {
            if name.is_some() && device.robot.as_deref() == name {
                return None;
            }
            let mount = match device.mount {
                Mount::Body(i) => Mount::Body(bodies[i]?),
                Mount::Joint(j) => Mount::Joint(joints[j]?),
                Mount::Robot => Mount::Robot,
            };
            Some(super::DeviceModel { mount, ..device.clone() })
        };
        model.sensors = self.sensors.iter().filter_map(keep_device).collect();
        model.actuators = self.actuators.iter().filter_map(keep_device).collect();
        model.beacons = self.beacons.iter().filter_map(keep_device).collect();
        for group in &mut model.groups {
            group.members.retain(|member| !gone_names.contains(member.as_str()));
        }
        if let Some(challenge) = &mut model.challenge {
            challenge.renumber_bodies(|body| bodies.get(body).copied().flatten());
        }
        (model, Renumbering { bodies, joints, robots })
    }
}

/// New indices for the elements `kept` says stay.
fn renumber(kept: impl Iterator<Item = bool>) -> Vec<Option<usize>> {
    let mut next = 0;
    kept.map(|keep| {
        keep.then(|| {
            next += 1;
            next - 1
        })
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use crate::model::{Mount, SceneModel};
    use crate::{NoFiles, Options, interpret};

    fn lab() -> SceneModel {
        let source = r#"
            floor { shape box(10, 0.1, 10); }
            robot a { body { a_body { shape box(1,1,1); pos(0, 1, 0); SimpleGPS gps; }
                             a_wheel { shape sphere(0.2); pos(0, 0.5, 1); }
                             JointHinge(a_body, a_wheel) { anchor(0, 0.5, 1); axis(0,0,1); SimpleMotor m; } } }
            robot b { body { b_body { shape box(1,1,1); pos(3, 1, 0); SimpleGPS gps; }
                             b_wheel { shape sphere(0.2); pos(3, 0.5, 1); }
                             JointHinge(b_body, b_wheel) { anchor(3, 0.5, 1); axis(0,0,1); Encoder e; } } }
            container things { crate { shape box(1,1,1); pos(5, 1, 5); } }
        "#;
        interpret(source, "lab.vlab", &NoFiles, &Options::default()).unwrap().model
    }

    #[test]
    fn removing_a_robot_takes_its_parts_and_renumbers_the_rest() {
        let before = lab();
        let (after, moved) = before.without_robot("a").unwrap();
        after.validate().unwrap();
        assert_eq!(
            after.bodies.iter().map(|b| b.name.as_str()).collect::<Vec<_>>(),
            ["floor", "b_body", "b_wheel", "crate"]
        );
        assert_eq!(moved.bodies, [Some(0), None, None, Some(1), Some(2), Some(3)]);
        assert_eq!(moved.joints, [None, Some(0)]);
        assert_eq!(moved.robots, [None, Some(0)]);
        assert_eq!((after.joints[0].body1, after.joints[0].body2), (1, 2));
        assert_eq!(after.robots[0].main_body, 1);
        assert_eq!(after.sensors.len(), 2, "b's gps and encoder stay");
        assert!(after.sensors.iter().all(|d| d.robot.as_deref() == Some("b")));
        assert_eq!(after.sensors.iter().find(|d| d.kind == "Encoder").unwrap().mount, Mount::Joint(0));
        assert!(after.actuators.is_empty());
        // The names are free again: the same robot can be added back.
        let robot_a = r#"robot a { body { a_body { shape box(1,1,1); pos(0, 1, 0); SimpleGPS gps; } } }"#;
        let mut again = after.clone();
        again.merge(&interpret(robot_a, "a.vlab", &NoFiles, &Options::default()).unwrap().model).unwrap();
        assert!(before.without_robot("nobody").is_none());
    }

    #[test]
    fn removing_an_object_takes_its_body_and_renumbers_the_rest() {
        let before = lab();
        let (after, moved) = before.without_object("crate").unwrap();
        after.validate().unwrap();
        assert_eq!(after.bodies.len(), before.bodies.len() - 1);
        assert!(after.body_index("crate").is_none());
        assert_eq!(moved.bodies.last(), Some(&None));
        assert_eq!(moved.robots, [Some(0), Some(1)], "every robot stays");
        assert_eq!(after.sensors.len(), before.sensors.len());
        assert!(after.groups.iter().all(|g| !g.members.iter().any(|m| m == "crate")));
        assert!(before.without_object("a_body").is_none(), "a robot's body is not an object");
        assert!(before.without_object("nothing").is_none());
    }

    #[test]
    fn a_challenge_follows_the_bodies_it_names_and_forgets_those_taken_out() {
        use crate::model::{Condition, Event, GONE, Touchable};
        let source = r#"
            floor { shape box(10, 0.1, 10); }
            robot a { body { a_body { shape box(1,1,1); pos(0, 1, 0); } } }
            robot b { body { b_body { shape box(1,1,1); pos(3, 1, 0); } } }
            crate { shape box(1,1,1); pos(5, 1, 5); }
            challenge "c" { time_limit 10; zone z { box(1, 1, 1); pos(5, 0, 5); }
              success pushed_into(crate, z) and touched(a_body); failure touched(b_body) or pushed_into(a_body, z); }
        "#;
        let before = interpret(source, "lab.vlab", &NoFiles, &Options::default()).unwrap().model;
        let (after, _) = before.without_robot("a").unwrap();
        let challenge = after.challenge.as_ref().unwrap();
        let crate_now = after.body_index("crate").unwrap();
        let b_now = after.body_index("b_body").unwrap();
        let Condition::And(pushed, touched) = &challenge.success else { panic!("{:?}", challenge.success) };
        assert_eq!(**pushed, Condition::Event(Event::PushedInto { body: crate_now, zone: 0 }));
        assert_eq!(**touched, Condition::Event(Event::Touched(Touchable::Body(GONE))), "a's body is gone");
        let Some(Condition::Or(touched_b, pushed_a)) = &challenge.failure else { panic!() };
        assert_eq!(**touched_b, Condition::Event(Event::Touched(Touchable::Body(b_now))));
        assert_eq!(**pushed_a, Condition::Event(Event::PushedInto { body: GONE, zone: 0 }));
    }
}
