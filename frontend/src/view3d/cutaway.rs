//! What is left out of the picture so the eye sees what it looks at: a fixed body (a
//! wall, a fence, a pillar) standing between the eye and the point looked at, which is
//! the room's middle or the robot the camera follows. A walled room seen from outside
//! then shows its inside, and a followed robot is never behind a wall. Pure math: the
//! renderer and the picking ask the same question of the same boxes.

use vlab_protocol::pose::rotate;

/// The part of the sight line next to the point looked at that does not count, metres:
/// a wall the followed robot leans on is behind it, not in front of it.
const FOCUS_MARGIN_M: f32 = 0.15;

/// Height of the floor the labs stand on, metres: the sight line to the floor under
/// the point looked at ends this far above it.
const FLOOR_SIGHT_Y: f32 = 0.1;

/// Whether a fixed body's box (`min`, `max`) stands between `eye` and what it looks at:
/// `focus` (the room's middle, or the followed robot), or the floor under it, where the
/// robots are.
pub fn blocks_view(min: [f32; 3], max: [f32; 3], eye: [f32; 3], focus: [f32; 3]) -> bool {
    let floor = [focus[0], focus[1].min(FLOOR_SIGHT_Y), focus[2]];
    // A platform under the point looked at carries what is looked at: it stays.
    let under_focus = (min[0]..=max[0]).contains(&focus[0]) && (min[2]..=max[2]).contains(&focus[2]);
    blocks_line(min, max, eye, focus) || (!under_focus && blocks_line(min, max, eye, floor))
}

/// Whether the segment from `eye` to just short of `focus` passes through the box.
fn blocks_line(min: [f32; 3], max: [f32; 3], eye: [f32; 3], focus: [f32; 3]) -> bool {
    let line = [0, 1, 2].map(|k| focus[k] - eye[k]);
    let length = (line[0] * line[0] + line[1] * line[1] + line[2] * line[2]).sqrt();
    if length <= FOCUS_MARGIN_M {
        return false;
    }
    let end = 1.0 - FOCUS_MARGIN_M / length;
    // Slabs: the segment's parameter range inside each axis' slab, intersected.
    let (mut enter, mut exit) = (0.0f32, end);
    for k in 0..3 {
        if line[k].abs() < 1e-9 {
            if eye[k] < min[k] || eye[k] > max[k] {
                return false;
            }
            continue;
        }
        let (a, b) = ((min[k] - eye[k]) / line[k], (max[k] - eye[k]) / line[k]);
        enter = enter.max(a.min(b));
        exit = exit.min(a.max(b));
        if enter > exit {
            return false;
        }
    }
    true
}

/// The box around a unit primitive (inside `[-1, 1]³`) scaled by `scale`, turned by
/// `rotation` and placed at `position`.
pub fn primitive_box(position: [f32; 3], rotation: [f32; 4], scale: [f32; 3]) -> ([f32; 3], [f32; 3]) {
    let (mut min, mut max) = ([f32::MAX; 3], [f32::MIN; 3]);
    for corner in 0..8 {
        let unit = [0, 1, 2].map(|k| if corner & (1 << k) == 0 { -scale[k] } else { scale[k] });
        let turned = rotate(rotation, unit);
        for k in 0..3 {
            min[k] = min[k].min(position[k] + turned[k]);
            max[k] = max[k].max(position[k] + turned[k]);
        }
    }
    (min, max)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The near wall of a 6 m room, along X at z = 6, 2.5 m high.
    const WALL: ([f32; 3], [f32; 3]) = ([0.0, 0.0, 5.9], [6.0, 2.5, 6.1]);

    #[test]
    fn the_near_wall_is_cut_away_for_an_eye_outside_looking_in() {
        let eye = [3.0, 3.0, 12.0];
        assert!(blocks_view(WALL.0, WALL.1, eye, [3.0, 0.1, 3.0]), "the room's middle, behind its near wall");
        assert!(
            !blocks_view(WALL.0, WALL.1, [3.0, 8.0, 7.0], [3.0, 0.1, 3.0]),
            "seen from high above, the wall is not in the way"
        );
        assert!(!blocks_view(WALL.0, WALL.1, [3.0, 3.0, -6.0], [3.0, 0.1, 3.0]), "the far wall behind the focus stays");
    }

    #[test]
    fn a_wall_that_hides_the_floor_under_the_room_s_middle_is_cut_away_too() {
        // The middle at mid-height shows over the wall; the robots on the floor do not.
        let (eye, middle) = ([3.0, 6.4, 11.5], [3.0, 1.25, 3.0]);
        assert!(!blocks_line(WALL.0, WALL.1, eye, middle));
        assert!(blocks_view(WALL.0, WALL.1, eye, middle));
    }

    #[test]
    fn a_platform_under_the_room_s_middle_stays() {
        let platform = ([2.0, 0.0, 2.0], [4.0, 0.4, 4.0]);
        assert!(!blocks_view(platform.0, platform.1, [3.0, 6.4, 11.5], [3.0, 1.25, 3.0]));
    }

    #[test]
    fn a_wall_the_followed_robot_leans_on_is_not_in_front_of_it() {
        let robot_against_the_wall = [3.0, 0.1, 5.8];
        assert!(!blocks_view(WALL.0, WALL.1, [3.0, 4.0, 1.0], robot_against_the_wall), "seen from inside the room");
        assert!(blocks_view(WALL.0, WALL.1, [3.0, 1.0, 9.0], robot_against_the_wall), "seen from behind the wall");
    }

    #[test]
    fn a_turned_primitive_s_box_holds_every_corner() {
        let quarter_turn_about_y = [0.0, std::f32::consts::FRAC_1_SQRT_2, 0.0, std::f32::consts::FRAC_1_SQRT_2];
        let (min, max) = primitive_box([3.0, 0.25, 6.0], quarter_turn_about_y, [3.0, 0.25, 0.1]);
        for k in 0..3 {
            assert!(
                (min[k] - [2.9, 0.0, 3.0][k]).abs() < 1e-4 && (max[k] - [3.1, 0.5, 9.0][k]).abs() < 1e-4,
                "{min:?} {max:?}"
            );
        }
    }
}
