//! A challenge's zones as the view draws them: one see-through unit primitive each,
//! placed and scaled in the world, in the zone's colour made translucent.
//!
//! A zone is drawn, never solid: robots drive through it and stay visible inside it, so
//! the renderer blends it over what is behind and writes no depth; picking never sees it.

use vlab_protocol::pose::axis_angle;
use vlab_protocol::{Pose, ZoneShapeView, ZoneView};

use crate::view3d::primitives::PrimitiveKind;

/// How opaque a zone is drawn, of 255 (0.4): the floor and the robots show through it,
/// and a flat zone on a grey floor still reads as its colour.
pub const ZONE_ALPHA: u8 = 102;

/// A zone as one unit primitive in world space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ZonePrimitive {
    /// The unit cube or the unit cylinder (axis Z).
    pub kind: PrimitiveKind,
    /// Where the unit primitive sits in the world, before scaling.
    pub world_from_primitive: Pose,
    /// Scale applied to the unit primitive, metres per unit.
    pub scale: [f32; 3],
    /// sRGB and alpha.
    pub color: [u8; 4],
}

/// How `zone` is drawn. A cylinder zone stands upright (along the world's Y, turned
/// with the zone), while the unit cylinder runs along Z: a quarter turn about X stands it up.
pub fn zone_primitive(zone: &ZoneView) -> ZonePrimitive {
    let [r, g, b] = zone.color;
    let color = [r, g, b, ZONE_ALPHA];
    match zone.shape {
        ZoneShapeView::Box { half_extents } => {
            ZonePrimitive { kind: PrimitiveKind::Cube, world_from_primitive: zone.pose, scale: half_extents, color }
        }
        ZoneShapeView::Cylinder { radius, half_height } => {
            let upright =
                Pose { position: [0.0; 3], rotation: axis_angle([1.0, 0.0, 0.0], -std::f32::consts::FRAC_PI_2) };
            ZonePrimitive {
                kind: PrimitiveKind::Cylinder,
                world_from_primitive: zone.pose.compose(&upright),
                scale: [radius, radius, half_height],
                color,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use vlab_protocol::pose::rotate;

    use super::*;

    fn zone(shape: ZoneShapeView) -> ZoneView {
        ZoneView {
            name: "bay".into(),
            shape,
            pose: Pose { position: [5.4, 0.0, 2.0], rotation: [0.0, 0.0, 0.0, 1.0] },
            color: [40, 200, 60],
        }
    }

    #[test]
    fn a_box_zone_is_the_unit_cube_at_its_pose_scaled_by_its_half_extents() {
        let drawn = zone_primitive(&zone(ZoneShapeView::Box { half_extents: [0.4, 0.025, 0.4] }));
        assert_eq!(drawn.kind, PrimitiveKind::Cube);
        assert_eq!(drawn.scale, [0.4, 0.025, 0.4]);
        assert_eq!(drawn.world_from_primitive.position, [5.4, 0.0, 2.0]);
        assert_eq!(drawn.color, [40, 200, 60, ZONE_ALPHA], "its colour, see-through");
    }

    #[test]
    fn a_cylinder_zone_stands_upright() {
        let drawn = zone_primitive(&zone(ZoneShapeView::Cylinder { radius: 0.5, half_height: 0.01 }));
        assert_eq!(drawn.kind, PrimitiveKind::Cylinder);
        assert_eq!(drawn.scale, [0.5, 0.5, 0.01]);
        let axis = rotate(drawn.world_from_primitive.rotation, [0.0, 0.0, 1.0]);
        assert!((axis[1].abs() - 1.0).abs() < 1e-6 && axis[0].abs() < 1e-6 && axis[2].abs() < 1e-6, "{axis:?}");
        assert_eq!(drawn.world_from_primitive.position, [5.4, 0.0, 2.0]);
    }
}
