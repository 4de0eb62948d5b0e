//! Bodies placed by one joint coordinate: a wheel on its hinge, a drawer on its slider.
//!
//! A body hung from another body by a joint with one degree of freedom is fully given by
//! its parent's pose and that joint's coordinate (an angle or a distance). The scene
//! snapshot lists such links ([`crate::SceneSnapshot::links`]); frame format 2 then
//! carries the coordinate instead of the child's pose (2 bytes for a spinning wheel
//! instead of 6 to 8), and the reader rebuilds the child from the parent it holds:
//!
//! ```text
//! child = parent ∘ parent_frame ∘ motion(axis, q) ∘ child_frame⁻¹
//! ```
//!
//! where `motion` turns by `q` radians about `axis` (hinge) or moves `q` metres along it
//! (slider). The coordinate is read from the two poses by swing–twist: of the child's
//! joint frame seen from the parent's, `r`, the twist about `axis` is the coordinate
//! (`q = 2·atan2(r.xyz · axis, r.w)`, in (−π, π]; for a slider, `r.position · axis`).
//! Whatever else the physics lets the joint give (a joint is a stiff spring, not a rod)
//! is not sent: the child is drawn exactly on its joint.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::pose::{Rigid, axis_angle, dot, identity, length, normalized, twist_angle};
use crate::{BodyId, BodyPose, Frame, Pose};

/// How a linked body moves relative to its parent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JointLinkKind {
    /// Turns about the axis (a revolute joint); the coordinate is an angle, radians.
    Hinge,
    /// Slides along the axis (a prismatic joint); the coordinate is a distance, metres.
    Slider,
}

/// One body placed by its parent's pose and one joint coordinate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct JointLink {
    /// The body placed by the joint.
    pub child: BodyId,
    /// The body it hangs from.
    pub parent: BodyId,
    /// Hinge or slider.
    pub kind: JointLinkKind,
    /// The joint's frame in the parent's body frame.
    pub parent_frame: Pose,
    /// The joint's frame in the child's body frame (the same frame in the world when the
    /// coordinate is zero).
    pub child_frame: Pose,
    /// The joint's axis in the joint frame, unit length.
    pub axis: [f32; 3],
}

/// Why a list of links cannot be used to read frames.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinkTableError {
    /// A body is the child of two links.
    #[error("body {0} is the child of two joint links")]
    ChildTwice(u32),
    /// A link hangs a body from itself.
    #[error("body {0} is linked to itself")]
    OwnParent(u32),
    /// A link's parent is the child of a later link: parents must come first.
    #[error("the joint link of body {child} comes before the link of its parent {parent}")]
    ParentAfterChild {
        /// The child of the link that came too early.
        child: u32,
        /// Its parent, linked later.
        parent: u32,
    },
    /// A frame or axis that is not finite, or an axis of zero length.
    #[error("the joint link of body {0} has a frame or axis that is not finite or an axis of zero length")]
    BadGeometry(u32),
}

/// The links of one scene, checked and indexed: what an encoder and a decoder of its
/// frames share.
///
/// Links are ordered so that a parent's own link (if it has one) comes before its
/// children's: a chain (an arm) is rebuilt from its root outwards in one pass.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkTable {
    links: Vec<JointLink>,
    /// Link index by child id, sorted by id: a decoder looks up every body of every
    /// frame here, and a binary search of one slice is quicker than a tree's.
    by_child: Vec<(u32, usize)>,
}

impl LinkTable {
    /// A table of `links`, refused unless every child has one link, no body is its own
    /// parent, parents come before their children and every frame and axis is usable.
    pub fn new(links: Vec<JointLink>) -> Result<LinkTable, LinkTableError> {
        let mut by_child = BTreeMap::new();
        for (i, link) in links.iter().enumerate() {
            if link.child == link.parent {
                return Err(LinkTableError::OwnParent(link.child.0));
            }
            let finite = |pose: &Pose| pose.position.iter().chain(&pose.rotation).all(|c| c.is_finite());
            let axis_length = link.axis.iter().map(|c| f64::from(*c).powi(2)).sum::<f64>().sqrt();
            let usable_rotation = |pose: &Pose| pose.rotation.iter().map(|c| c * c).sum::<f32>() >= 1e-6;
            let usable = finite(&link.parent_frame)
                && finite(&link.child_frame)
                && usable_rotation(&link.parent_frame)
                && usable_rotation(&link.child_frame)
                && axis_length > 1e-6
                && axis_length.is_finite();
            if !usable {
                return Err(LinkTableError::BadGeometry(link.child.0));
            }
            if by_child.insert(link.child.0, i).is_some() {
                return Err(LinkTableError::ChildTwice(link.child.0));
            }
        }
        for (i, link) in links.iter().enumerate() {
            if by_child.get(&link.parent.0).is_some_and(|&j| j > i) {
                return Err(LinkTableError::ParentAfterChild { child: link.child.0, parent: link.parent.0 });
            }
        }
        Ok(LinkTable { links, by_child: by_child.into_iter().collect() })
    }

    /// The links, parents first.
    pub fn links(&self) -> &[JointLink] {
        &self.links
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.links.is_empty()
    }

    /// The link placing body `child`, if it has one.
    pub fn link_of(&self, child: u32) -> Option<&JointLink> {
        self.index_of(child).map(|i| &self.links[i])
    }

    /// The index of each link in [`LinkTable::links`] by its child's id, sorted by id.
    pub(crate) fn by_child(&self) -> &[(u32, usize)] {
        &self.by_child
    }

    /// Where the link placing body `child` is in [`LinkTable::links`], if it has one.
    pub fn index_of(&self, child: u32) -> Option<usize> {
        crate::sorted::by_id(&self.by_child, child)
    }

    /// Adds to `frame` every body of each tree of links it names (a robot's body and all
    /// its wheels), posed as in `latest`: the latest pose of every body, as readers hold
    /// it. Then a frame written without base names a linked body only with its parent
    /// (whose pose the coordinate needs), and every child of a parent it moves (whose
    /// coordinate then changes too): see `frame/format2.rs`. Returns whether it added
    /// anything.
    pub fn complete(&self, frame: &mut Frame, latest: &Frame) -> bool {
        let missing = self.missing(frame);
        let before = frame.poses.len();
        for id in missing {
            if let Ok(at) = latest.poses.binary_search_by_key(&id, |p| p.id.0) {
                frame.poses.push(latest.poses[at]);
            }
        }
        if frame.poses.len() == before {
            return false;
        }
        frame.poses.sort_unstable_by_key(|p| p.id);
        true
    }

    /// The bodies of the trees of links `frame` names that it does not hold, ascending.
    pub(crate) fn missing(&self, frame: &Frame) -> Vec<u32> {
        if self.links.is_empty() {
            return Vec::new();
        }
        let holds = |id: u32| frame.poses.binary_search_by_key(&id, |p| p.id.0).is_ok();
        let mut named: BTreeSet<u32> = BTreeSet::new();
        // Up to every root, then down from them: parents come first in the table.
        for link in self.links.iter().rev() {
            if holds(link.child.0) || named.contains(&link.child.0) {
                named.insert(link.parent.0);
            }
        }
        for link in &self.links {
            if holds(link.parent.0) || named.contains(&link.parent.0) {
                named.insert(link.child.0);
            }
        }
        named.into_iter().filter(|&id| !holds(id)).collect()
    }
}

impl JointLink {
    /// The joint coordinate the two poses show: radians in (−π, π] for a hinge, metres
    /// for a slider.
    pub fn coordinate(&self, parent: &BodyPose, child: &BodyPose) -> f64 {
        let (parent_frame, child_frame) = self.frames();
        let joint_in_parent = widened(parent.position, parent.rotation).compose(&parent_frame);
        let joint_in_child = widened(child.position, child.rotation).compose(&child_frame);
        let relative = joint_in_parent.inverse().compose(&joint_in_child);
        let axis = self.unit_axis();
        match self.kind {
            JointLinkKind::Hinge => wrap_angle(twist_angle(relative.rotation, axis)),
            JointLinkKind::Slider => dot(relative.position, axis),
        }
    }

    /// The pose of the child, given its parent's and the joint coordinate.
    pub fn child_pose(&self, parent: &BodyPose, coordinate: f64) -> BodyPose {
        let axis = self.unit_axis();
        let motion = match self.kind {
            JointLinkKind::Hinge => Rigid { position: [0.0; 3], rotation: axis_angle(axis, coordinate) },
            JointLinkKind::Slider => Rigid { position: axis.map(|a| a * coordinate), rotation: identity() },
        };
        let (parent_frame, child_frame) = self.frames();
        let child = widened(parent.position, parent.rotation)
            .compose(&parent_frame)
            .compose(&motion)
            .compose(&child_frame.inverse());
        BodyPose {
            id: self.child,
            position: child.position.map(|c| c as f32),
            rotation: child.rotation.map(|c| c as f32),
        }
    }

    /// The joint's frame in the parent's body frame and in the child's, widened.
    fn frames(&self) -> (Rigid<f64>, Rigid<f64>) {
        let [parent, child] =
            [&self.parent_frame, &self.child_frame].map(|frame| widened(frame.position, frame.rotation));
        (parent, child)
    }

    fn unit_axis(&self) -> [f64; 3] {
        let axis = self.axis.map(f64::from);
        let length = length(axis);
        if length > 0.0 && length.is_finite() { axis.map(|c| c / length) } else { [1.0, 0.0, 0.0] }
    }
}

/// An angle brought into (−π, π].
fn wrap_angle(angle: f64) -> f64 {
    use std::f64::consts::{PI, TAU};
    let wrapped = angle - TAU * (angle / TAU).round();
    if wrapped <= -PI { wrapped + TAU } else { wrapped }
}

/// A pose widened to `f64`, so that composing a chain of them loses nothing an `f32`
/// pose could show; its rotation normalized (an unusable one is no rotation).
fn widened(position: [f32; 3], rotation: [f32; 4]) -> Rigid<f64> {
    Rigid { position: position.map(f64::from), rotation: normalized(rotation.map(f64::from)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hinge(child: u32, parent: u32) -> JointLink {
        JointLink {
            child: BodyId(child),
            parent: BodyId(parent),
            kind: JointLinkKind::Hinge,
            parent_frame: Pose { position: [0.1, -0.02, 0.15], rotation: [0.0, 0.0, 0.0, 1.0] },
            child_frame: Pose::IDENTITY,
            axis: [0.0, 0.0, 1.0],
        }
    }

    fn body(id: u32, position: [f32; 3], rotation: [f32; 4]) -> BodyPose {
        BodyPose { id: BodyId(id), position, rotation }
    }

    #[test]
    fn the_coordinate_read_from_a_rebuilt_pose_is_the_one_it_was_built_from() {
        let half = 0.3f32;
        let parent = body(0, [1.0, 0.2, -3.0], [0.0, half.sin(), 0.0, half.cos()]);
        let mut link = hinge(1, 0);
        link.child_frame = Pose { position: [0.0, 0.01, 0.02], rotation: [0.6, 0.0, 0.0, 0.8] };
        for q in [-3.1, -1.0, 0.0, 0.5, 2.0, std::f64::consts::PI] {
            let child = link.child_pose(&parent, q);
            assert!((link.coordinate(&parent, &child) - q).abs() < 1e-6, "{q}");
        }
        link.kind = JointLinkKind::Slider;
        link.axis = [0.0, 3.0, 4.0];
        for q in [-0.5, 0.0, 0.25, 12.0] {
            let child = link.child_pose(&parent, q);
            assert!((link.coordinate(&parent, &child) - q).abs() < 1e-6, "{q}");
            // The child moved `q` along the axis (unit (0, 0.6, 0.8) in the joint frame).
            let origin = link.child_pose(&parent, 0.0);
            let moved: f32 = [0, 1, 2].map(|i| (child.position[i] - origin.position[i]).powi(2)).iter().sum();
            assert!((f64::from(moved.sqrt()) - q.abs()).abs() < 1e-5);
        }
    }

    #[test]
    fn angles_wrap_into_minus_pi_to_pi() {
        use std::f64::consts::PI;
        assert!((wrap_angle(3.0 * PI) - PI).abs() < 1e-12);
        assert!((wrap_angle(-PI) - PI).abs() < 1e-12);
        assert!((wrap_angle(-3.0 * PI / 2.0) - PI / 2.0).abs() < 1e-12);
        assert_eq!(wrap_angle(0.25), 0.25);
    }

    #[test]
    fn tables_out_of_order_or_with_a_child_twice_are_refused() {
        assert!(LinkTable::new(vec![hinge(1, 0), hinge(2, 1), hinge(3, 0)]).is_ok());
        assert_eq!(
            LinkTable::new(vec![hinge(2, 1), hinge(1, 0)]),
            Err(LinkTableError::ParentAfterChild { child: 2, parent: 1 })
        );
        assert_eq!(LinkTable::new(vec![hinge(1, 0), hinge(1, 2)]), Err(LinkTableError::ChildTwice(1)));
        assert_eq!(LinkTable::new(vec![hinge(4, 4)]), Err(LinkTableError::OwnParent(4)));
        // A loop has a parent after its child, whichever way it is listed.
        assert!(LinkTable::new(vec![hinge(1, 2), hinge(2, 1)]).is_err());
        let mut flat = hinge(1, 0);
        flat.axis = [0.0; 3];
        assert_eq!(LinkTable::new(vec![flat]), Err(LinkTableError::BadGeometry(1)));
        let mut nan = hinge(1, 0);
        nan.parent_frame.position[0] = f32::NAN;
        assert_eq!(LinkTable::new(vec![nan]), Err(LinkTableError::BadGeometry(1)));
    }

    #[test]
    fn completing_a_frame_adds_the_whole_tree_of_what_it_names() {
        // 0 ← 1 ← 2 (an arm), 0 ← 3 (a wheel); 5 is on its own.
        let table = LinkTable::new(vec![hinge(1, 0), hinge(2, 1), hinge(3, 0)]).unwrap();
        let latest =
            Frame { poses: (0..6).map(|i| body(i, [i as f32; 3], [0.0, 0.0, 0.0, 1.0])).collect(), ..Frame::default() };
        let mut frame = Frame { poses: vec![body(2, [9.0; 3], [0.0, 0.0, 0.0, 1.0])], ..Frame::default() };
        assert!(table.complete(&mut frame, &latest));
        let ids: Vec<u32> = frame.poses.iter().map(|p| p.id.0).collect();
        assert_eq!(ids, [0, 1, 2, 3]);
        assert_eq!(frame.poses[2].position, [9.0; 3], "what the frame held stays");
        assert_eq!(frame.poses[3].position, [3.0; 3]);
        let mut lone = Frame { poses: vec![body(5, [9.0; 3], [0.0, 0.0, 0.0, 1.0])], ..Frame::default() };
        assert!(!table.complete(&mut lone, &latest));
        assert!(!table.complete(&mut frame, &latest), "complete already");
    }
}
