//! Frame format 2, what the server sends: positions on a quarter-millimetre grid,
//! rotations at 13 bits a component, and poses written as the change from the pose
//! the reader already holds whenever that is shorter.
//!
//! ```text
//! format u8 | epoch varint | step varint | time f64 | count varint
//! count × { id gap varint | kind u8 | position | rotation }
//! ```
//! - format: `2` with the step absolute, `0x82` with the step as the change from the
//!   step of the frame before (1 byte at 60 frames/s);
//! - ids ascending, each written as the gap from the previous id + 1;
//! - kind, bits 0–1, the position: `0` unchanged, `1` change in grid units (3 zigzag
//!   varints), `2` absolute in grid units (3 zigzag varints), `3` raw `3×f32` (for a
//!   body beyond ±[`MAX_GRID_METRES`] or not finite); bits 2–3, the rotation: `0`
//!   unchanged, `1` change of the three small components (3 zigzag varints, same
//!   dropped component as held), `2` absolute (6 bytes: the dropped component's index
//!   in bits 0–1, then the three components in 13 bits each, offset by 4096, the top
//!   7 bits zero); bits 4–7 are zero. A pose unchanged in both is not written at all.
//! - kind `0x10 | c`, a body placed by its joint (a wheel: see [`crate::LinkTable`],
//!   which both ends take from the scene snapshot): no pose but its joint coordinate,
//!   `c` = `1` change (zigzag varint), `2` absolute (zigzag varint), `3` raw `f32` (a
//!   slider beyond the grid). A hinge's angle is counted in 1/65,536 of a turn
//!   (0.0055°), absolute in `0..65536`, its change taken modulo a turn into
//!   `-32768..=32767`; a slider's distance is on the position grid. The reader places
//!   the body from its parent's pose (written earlier in the frame or held) and
//!   places it again whenever its parent moves, coordinate written or not; it emits
//!   every body it placed. A frame writes no pose for a linked body, and no coordinate
//!   for a body the reader holds no link for: both are refused. A coordinate unchanged
//!   on the wire is not written.
//!
//! The "held" pose and step are what the reader decoded last in the same epoch: a
//! frame with changes can only be read by a reader that got every frame before it
//! (see [`super::FrameDecoder`]); a frame without base (the keyframe, a merged frame
//! for a slow viewer) is read by anyone holding the poses of the parents of the linked
//! bodies it names. Frames completed with [`crate::LinkTable::complete`] (the hub's)
//! name a linked body exactly when they name its parent, so the coordinate the reader
//! holds is always the one of the poses the writer's base holds.
//!
//! Quantization: positions round to [`POSITION_RESOLUTION_M`] (error ≤ 0.125 mm per
//! axis); rotation components to 1/(4095·√2) (error under 0.035°, see the tests; 12
//! bits would reach 0.06° for some rotations); a linked body adds at most 0.0028° of
//! angle to its parent's error.

use std::f64::consts::TAU;

use super::codec::{Reader, rebuild_rotation, signed_len, smallest_three, write_signed, write_varint};
use super::{BodyPose, Frame, FrameDecodeError};
use crate::BodyId;
use crate::links::{JointLinkKind, LinkTable};
use crate::sorted::{Walk, by_id, set_all_by_id, set_by_id};

pub(super) const FORMAT: u8 = 2;
/// Set in the format byte when the step is written as a change.
const STEP_IS_CHANGE: u8 = 0x80;
/// The position grid, metres: a quarter millimetre, finer than anything drawn.
pub const POSITION_RESOLUTION_M: f64 = 0.000_25;
/// Beyond this distance from the origin on any axis a position is sent as `f32`: past
/// 2,048 m an `f32` is coarser than the grid, so a decoded grid position would no longer
/// quantize back to itself.
pub const MAX_GRID_METRES: f64 = (MAX_GRID as f64) * POSITION_RESOLUTION_M;
const MAX_GRID: i64 = 8_192_000;
const UNITS_PER_METRE: f64 = 1.0 / POSITION_RESOLUTION_M;
const ROTATION_MAX: i32 = 4095;
const ROTATION_BITS: u32 = 13;
const FULL_ROTATION_BYTES: usize = 6;

const POSITION_MASK: u8 = 0b0011;
const POSITION_SAME: u8 = 0;
const POSITION_DELTA: u8 = 1;
const POSITION_GRID: u8 = 2;
const POSITION_FLOAT: u8 = 3;
const ROTATION_SHIFT: u8 = 2;
const ROTATION_SAME: u8 = 0;
const ROTATION_DELTA: u8 = 1;
const ROTATION_FULL: u8 = 2;
/// Set in a kind byte: a joint coordinate instead of a pose.
const JOINT: u8 = 0x10;
const COORDINATE_MASK: u8 = 0b0011;
const COORDINATE_DELTA: u8 = 1;
const COORDINATE_ABSOLUTE: u8 = 2;
const COORDINATE_FLOAT: u8 = 3;
/// Steps of a hinge's full turn: 0.0055° each, far finer than the 13-bit rotations.
const TURN_STEPS: f64 = 65_536.0;

/// A position as the wire carries it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Place {
    Grid([i64; 3]),
    Float([f32; 3]),
}

/// A rotation as the wire carries it ("smallest three" at 13 bits).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Turn {
    largest: u8,
    small: [i32; 3],
}

/// A pose as the wire carries it: what encoder and decoder both hold of a body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Held {
    place: Place,
    turn: Turn,
}

impl Held {
    fn of(pose: &BodyPose) -> Held {
        let (largest, small) = smallest_three(pose.rotation, ROTATION_MAX);
        Held { place: Held::place_of(pose.position), turn: Turn { largest, small } }
    }

    fn place_of(position: [f32; 3]) -> Place {
        let grid = position.map(|c| (f64::from(c) * UNITS_PER_METRE).round());
        if grid.iter().all(|g| g.is_finite() && g.abs() <= MAX_GRID as f64) {
            Place::Grid(grid.map(|g| g as i64))
        } else {
            Place::Float(position)
        }
    }

    fn pose(&self, id: u32) -> BodyPose {
        let position = match self.place {
            Place::Grid(grid) => grid.map(|g| (g as f64 * POSITION_RESOLUTION_M) as f32),
            Place::Float(position) => position,
        };
        BodyPose {
            id: BodyId(id),
            position,
            rotation: rebuild_rotation(self.turn.largest, self.turn.small, ROTATION_MAX),
        }
    }
}

/// A joint coordinate as the wire carries it.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Coordinate {
    /// A hinge's angle in steps of a turn, `0..65536`.
    Angle(u16),
    /// A slider's distance in grid units.
    Grid(i64),
    /// A slider's distance beyond the grid (or not finite).
    Float(f32),
}

impl Coordinate {
    fn of(kind: JointLinkKind, value: f64) -> Coordinate {
        match kind {
            JointLinkKind::Hinge => {
                let steps = (value / TAU * TURN_STEPS).round();
                Coordinate::Angle(if steps.is_finite() { steps.rem_euclid(TURN_STEPS) as u16 } else { 0 })
            }
            JointLinkKind::Slider => {
                // Decided on the `f32`, as positions are, so a float read back is never on the grid.
                let value = value as f32;
                let grid = (f64::from(value) * UNITS_PER_METRE).round();
                if grid.is_finite() && grid.abs() <= MAX_GRID as f64 {
                    Coordinate::Grid(grid as i64)
                } else {
                    Coordinate::Float(value)
                }
            }
        }
    }

    /// Radians or metres.
    fn value(self) -> f64 {
        match self {
            Coordinate::Angle(steps) => f64::from(steps) * TAU / TURN_STEPS,
            Coordinate::Grid(grid) => grid as f64 * POSITION_RESOLUTION_M,
            Coordinate::Float(value) => f64::from(value),
        }
    }
}

/// What a reader holds of a body placed by its joint: the coordinate and the pose it
/// gave.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Placed {
    coordinate: Coordinate,
    pose: BodyPose,
}

/// What a decoder holds between frames of format 2. Both lists are sorted by id: every
/// body of every frame is looked up, in the frame's order of id, with one pass through
/// each (see [`crate::sorted`]; a page and the load tool decode 60 frames a second).
#[derive(Clone, Debug, Default)]
pub(super) struct Bases {
    epoch: Option<u32>,
    step: u64,
    bodies: Vec<(u32, Held)>,
    /// Bodies placed by their joint (see [`LinkTable`]).
    placed: Vec<(u32, Placed)>,
}

fn find(poses: &[BodyPose], id: u32) -> Option<&BodyPose> {
    poses.binary_search_by_key(&id, |p| p.id.0).ok().map(|at| &poses[at])
}

/// Encodes `frame`, as changes from `base` where `base` (the poses every reader of
/// the frame already holds, same epoch) has the body and that is shorter; bodies of
/// `links` as their joint coordinate. With a base, the frame is first completed from it
/// ([`LinkTable::complete`]); without one, a linked body whose parent the frame does not
/// hold is left out (a completed frame has none).
pub(super) fn encode(frame: &Frame, base: Option<&Frame>, links: &LinkTable) -> Vec<u8> {
    let base = base.filter(|b| b.epoch == frame.epoch && b.step <= frame.step);
    let completed;
    let frame = match base {
        Some(base) if !links.missing(frame).is_empty() => {
            let mut whole = frame.clone();
            links.complete(&mut whole, base);
            completed = whole;
            &completed
        }
        _ => frame,
    };
    let mut out = Vec::with_capacity(16 + frame.poses.len() * 12);
    out.push(if base.is_some() { FORMAT | STEP_IS_CHANGE } else { FORMAT });
    write_varint(&mut out, u64::from(frame.epoch));
    write_varint(&mut out, frame.step - base.map_or(0, |b| b.step));
    out.extend_from_slice(&frame.time.to_le_bytes());
    let mut poses = Vec::with_capacity(frame.poses.len() * 12);
    let mut count = 0u64;
    let mut next_id = 0u32;
    let mut held = base.map(|b| b.poses.iter().peekable());
    for pose in &frame.poses {
        if let Some(link) = links.link_of(pose.id.0) {
            let parent = find(&frame.poses, link.parent.0).or_else(|| base.and_then(|b| find(&b.poses, link.parent.0)));
            let Some(parent) = parent else { continue };
            let now = Coordinate::of(link.kind, link.coordinate(parent, pose));
            let before = base.and_then(|b| {
                let (parent, child) = (find(&b.poses, link.parent.0)?, find(&b.poses, pose.id.0)?);
                Some(Coordinate::of(link.kind, link.coordinate(parent, child)))
            });
            if before.is_some_and(|before| before.eq_bits(&now)) {
                continue;
            }
            count += 1;
            let kind_at = start_entry(&mut poses, pose.id.0, &mut next_id);
            poses[kind_at] = JOINT | write_coordinate(&mut poses, before, now);
            continue;
        }
        let before = held.as_mut().and_then(|held| {
            while held.next_if(|b| b.id < pose.id).is_some() {}
            held.next_if(|b| b.id == pose.id).map(Held::of)
        });
        let now = Held::of(pose);
        if before == Some(now) {
            continue;
        }
        count += 1;
        let kind_at = start_entry(&mut poses, pose.id.0, &mut next_id);
        let position = write_place(&mut poses, before.map(|b| b.place), now.place);
        let rotation = write_turn(&mut poses, before.map(|b| b.turn), now.turn);
        poses[kind_at] = position | (rotation << ROTATION_SHIFT);
    }
    write_varint(&mut out, count);
    out.extend_from_slice(&poses);
    out
}

/// Writes an entry's id (as the gap from `next_id`, which moves past it) and a kind
/// byte to fill in once the entry's contents are written; returns where that byte is.
fn start_entry(out: &mut Vec<u8>, id: u32, next_id: &mut u32) -> usize {
    write_varint(out, u64::from(id - *next_id));
    *next_id = id + 1;
    out.push(0);
    out.len() - 1
}

fn write_place(out: &mut Vec<u8>, before: Option<Place>, now: Place) -> u8 {
    match (before, now) {
        (Some(before), now) if before.eq_bits(&now) => POSITION_SAME,
        (_, Place::Float(position)) => {
            for c in position {
                out.extend_from_slice(&c.to_le_bytes());
            }
            POSITION_FLOAT
        }
        (before, Place::Grid(grid)) => {
            let delta = match before {
                Some(Place::Grid(held)) => Some([0, 1, 2].map(|i| grid[i] - held[i])),
                _ => None,
            };
            let len = |v: &[i64; 3]| v.iter().map(|&c| signed_len(c)).sum::<usize>();
            match delta {
                Some(delta) if len(&delta) <= len(&grid) => {
                    delta.iter().for_each(|&c| write_signed(out, c));
                    POSITION_DELTA
                }
                _ => {
                    grid.iter().for_each(|&c| write_signed(out, c));
                    POSITION_GRID
                }
            }
        }
    }
}

impl Place {
    /// Equal as the wire carries them (a float compared by its bits, so NaN is itself).
    fn eq_bits(&self, other: &Place) -> bool {
        match (self, other) {
            (Place::Grid(a), Place::Grid(b)) => a == b,
            (Place::Float(a), Place::Float(b)) => a.map(f32::to_bits) == b.map(f32::to_bits),
            _ => false,
        }
    }
}

impl Coordinate {
    /// Equal as the wire carries them (a float compared by its bits).
    fn eq_bits(&self, other: &Coordinate) -> bool {
        match (self, other) {
            (Coordinate::Float(a), Coordinate::Float(b)) => a.to_bits() == b.to_bits(),
            _ => self == other,
        }
    }
}

fn write_coordinate(out: &mut Vec<u8>, before: Option<Coordinate>, now: Coordinate) -> u8 {
    let (delta, absolute) = match (before, now) {
        (_, Coordinate::Float(value)) => {
            out.extend_from_slice(&value.to_le_bytes());
            return COORDINATE_FLOAT;
        }
        (Some(Coordinate::Angle(before)), Coordinate::Angle(now)) => {
            (Some(i64::from(now.wrapping_sub(before) as i16)), i64::from(now))
        }
        (Some(Coordinate::Grid(before)), Coordinate::Grid(now)) => (Some(now - before), now),
        (_, Coordinate::Angle(now)) => (None, i64::from(now)),
        (_, Coordinate::Grid(now)) => (None, now),
    };
    match delta {
        Some(delta) if signed_len(delta) <= signed_len(absolute) => {
            write_signed(out, delta);
            COORDINATE_DELTA
        }
        _ => {
            write_signed(out, absolute);
            COORDINATE_ABSOLUTE
        }
    }
}

/// Reads a coordinate of wire kind `wire` for a joint of `kind`; `held` is what the
/// reader holds of it, `kind_at` where the kind byte was.
fn read_coordinate(
    reader: &mut Reader<'_>,
    kind: JointLinkKind,
    wire: u8,
    held: Option<Coordinate>,
    kind_at: usize,
) -> Result<Coordinate, FrameDecodeError> {
    let at = reader.at;
    let out_of_range = FrameDecodeError::OutOfRange { at };
    let missing = FrameDecodeError::MissingBase { at: kind_at };
    Ok(match (kind, wire) {
        (JointLinkKind::Hinge, COORDINATE_DELTA) => {
            let Some(Coordinate::Angle(before)) = held else { return Err(missing) };
            let delta = i16::try_from(reader.signed()?).map_err(|_| out_of_range)?;
            Coordinate::Angle(before.wrapping_add(delta as u16))
        }
        (JointLinkKind::Hinge, COORDINATE_ABSOLUTE) => {
            Coordinate::Angle(u16::try_from(reader.signed()?).map_err(|_| out_of_range)?)
        }
        (JointLinkKind::Slider, COORDINATE_DELTA) => {
            let Some(Coordinate::Grid(before)) = held else { return Err(missing) };
            let grid = reader.signed()?.checked_add(before).ok_or(out_of_range.clone())?;
            Coordinate::Grid(in_grid([grid, 0, 0], at)?[0])
        }
        (JointLinkKind::Slider, COORDINATE_ABSOLUTE) => Coordinate::Grid(in_grid([reader.signed()?, 0, 0], at)?[0]),
        (JointLinkKind::Slider, COORDINATE_FLOAT) => {
            let value = f32::from_le_bytes(reader.array()?);
            // Only a distance the grid cannot hold is written as a float: one encoding a value.
            if matches!(Coordinate::of(kind, f64::from(value)), Coordinate::Grid(_)) {
                return Err(out_of_range);
            }
            Coordinate::Float(value)
        }
        _ => return Err(FrameDecodeError::BadKind { kind: JOINT | wire, at: kind_at }),
    })
}

fn write_turn(out: &mut Vec<u8>, before: Option<Turn>, now: Turn) -> u8 {
    match before {
        Some(before) if before == now => ROTATION_SAME,
        Some(before) if before.largest == now.largest => {
            let delta = [0, 1, 2].map(|i| i64::from(now.small[i] - before.small[i]));
            if delta.iter().map(|&c| signed_len(c)).sum::<usize>() <= FULL_ROTATION_BYTES {
                delta.iter().for_each(|&c| write_signed(out, c));
                ROTATION_DELTA
            } else {
                write_full_turn(out, now)
            }
        }
        _ => write_full_turn(out, now),
    }
}

fn write_full_turn(out: &mut Vec<u8>, turn: Turn) -> u8 {
    let mut packed = u64::from(turn.largest);
    for (k, c) in turn.small.iter().enumerate() {
        packed |= ((c + ROTATION_MAX + 1) as u64) << (2 + ROTATION_BITS * k as u32);
    }
    out.extend_from_slice(&packed.to_le_bytes()[..FULL_ROTATION_BYTES]);
    ROTATION_FULL
}

fn read_full_turn(reader: &mut Reader<'_>) -> Result<Turn, FrameDecodeError> {
    let at = reader.at;
    let mut bytes = [0u8; 8];
    bytes[..FULL_ROTATION_BYTES].copy_from_slice(reader.take(FULL_ROTATION_BYTES)?);
    let packed = u64::from_le_bytes(bytes);
    if packed >> (2 + 3 * ROTATION_BITS) != 0 {
        return Err(FrameDecodeError::OutOfRange { at });
    }
    let mask = (1u64 << ROTATION_BITS) - 1;
    let small = [0, 1, 2].map(|k| ((packed >> (2 + ROTATION_BITS * k)) & mask) as i32 - (ROTATION_MAX + 1));
    if small.iter().any(|c| c.abs() > ROTATION_MAX) {
        return Err(FrameDecodeError::OutOfRange { at });
    }
    Ok(Turn { largest: (packed & 0b11) as u8, small })
}

/// Decodes a format-2 frame against (and into) `bases`, placing the bodies of `links`
/// from their parents. On error `bases` is untouched.
pub(super) fn decode(bytes: &[u8], bases: &mut Bases, links: &LinkTable) -> Result<Frame, FrameDecodeError> {
    let mut reader = Reader::new(bytes);
    let format = reader.byte()?;
    if format & !STEP_IS_CHANGE != FORMAT {
        return Err(FrameDecodeError::UnsupportedFormat(format));
    }
    let epoch = reader.varint()?;
    let same_epoch = bases.epoch == Some(epoch);
    let step_at = reader.at;
    let step = reader.varint64()?;
    let step = if format & STEP_IS_CHANGE != 0 {
        if !same_epoch {
            return Err(FrameDecodeError::MissingBase { at: step_at });
        }
        bases.step.checked_add(step).ok_or(FrameDecodeError::OutOfRange { at: step_at })?
    } else {
        step
    };
    let time = f64::from_le_bytes(reader.array()?);
    let count = reader.varint()?;
    // A pose takes at least 2 bytes (id gap, kind): refuse absurd counts before allocating.
    if (count as usize) > reader.remaining() / 2 {
        return Err(FrameDecodeError::Truncated { at: bytes.len(), len: bytes.len() });
    }
    let mut decoded: Vec<(u32, Held)> = Vec::with_capacity(count as usize);
    // Coordinates read, with where their kind byte was; by id, as the frame lists bodies.
    let mut coordinates: Vec<(u32, (Coordinate, usize))> = Vec::new();
    let mut next_id = 0u32;
    let (mut held_bodies, mut held_placed) = (Walk::new(&bases.bodies), Walk::new(&bases.placed));
    let mut linked = Walk::new(links.by_child());
    for _ in 0..count {
        let gap_at = reader.at;
        let gap = reader.varint()?;
        let id = next_id.checked_add(gap).ok_or(FrameDecodeError::BadVarint { at: gap_at })?;
        next_id = id.checked_add(1).ok_or(FrameDecodeError::BadVarint { at: gap_at })?;
        let kind_at = reader.at;
        let kind = reader.byte()?;
        if kind & JOINT != 0 {
            if kind & !(JOINT | COORDINATE_MASK) != 0 {
                return Err(FrameDecodeError::BadKind { kind, at: kind_at });
            }
            let Some(link) = linked.get(id).map(|at| &links.links()[at]) else {
                return Err(FrameDecodeError::NoLink { id, at: kind_at });
            };
            let held = if same_epoch { held_placed.get(id).map(|p| p.coordinate) } else { None };
            let coordinate = read_coordinate(&mut reader, link.kind, kind & COORDINATE_MASK, held, kind_at)?;
            coordinates.push((id, (coordinate, kind_at)));
            continue;
        }
        if linked.get(id).is_some() {
            return Err(FrameDecodeError::LinkedPose { id, at: kind_at });
        }
        let (position_kind, rotation_kind) = (kind & POSITION_MASK, kind >> ROTATION_SHIFT);
        if rotation_kind > ROTATION_FULL {
            return Err(FrameDecodeError::BadKind { kind, at: kind_at });
        }
        let held = if same_epoch { held_bodies.get(id) } else { None };
        let missing = FrameDecodeError::MissingBase { at: kind_at };
        let place = match position_kind {
            POSITION_SAME => held.ok_or(missing.clone())?.place,
            POSITION_DELTA => {
                let Some(Held { place: Place::Grid(before), .. }) = held else { return Err(missing) };
                let at = reader.at;
                let mut grid = [0i64; 3];
                for (g, b) in grid.iter_mut().zip(before) {
                    *g = reader.signed()?.checked_add(b).ok_or(FrameDecodeError::OutOfRange { at })?;
                }
                Place::Grid(in_grid(grid, at)?)
            }
            POSITION_GRID => {
                let at = reader.at;
                let grid = [reader.signed()?, reader.signed()?, reader.signed()?];
                Place::Grid(in_grid(grid, at)?)
            }
            _ => {
                let at = reader.at;
                let position = read_floats(&mut reader)?;
                // Only a position the grid cannot hold is written as floats: one encoding a pose.
                if matches!(Held::place_of(position), Place::Grid(_)) {
                    return Err(FrameDecodeError::OutOfRange { at });
                }
                Place::Float(position)
            }
        };
        let turn = match rotation_kind {
            ROTATION_SAME => held.ok_or(missing)?.turn,
            ROTATION_DELTA => {
                let Some(Held { turn: before, .. }) = held else { return Err(missing) };
                let at = reader.at;
                let mut small = before.small;
                for c in &mut small {
                    let changed = reader.signed()?.checked_add(i64::from(*c));
                    *c = changed
                        .and_then(|c| i32::try_from(c).ok())
                        .filter(|c| c.abs() <= ROTATION_MAX)
                        .ok_or(FrameDecodeError::OutOfRange { at })?;
                }
                Turn { largest: before.largest, small }
            }
            _ => read_full_turn(&mut reader)?,
        };
        decoded.push((id, Held { place, turn }));
    }
    if reader.remaining() != 0 {
        return Err(FrameDecodeError::TrailingBytes(reader.remaining()));
    }
    let mut poses: Vec<BodyPose> = decoded.iter().map(|&(id, held)| held.pose(id)).collect();
    let placed = if links.is_empty() { Vec::new() } else { place(links, bases, same_epoch, &poses, &coordinates)? };
    if !same_epoch {
        bases.bodies.clear();
        bases.placed.clear();
        bases.epoch = Some(epoch);
    }
    bases.step = step;
    set_all_by_id(&mut bases.bodies, decoded);
    if !placed.is_empty() {
        // In the links' order, not by id; and few (a robot's wheels): one bisection each.
        for (id, body) in placed {
            set_by_id(&mut bases.placed, id, body);
            poses.push(body.pose);
        }
        poses.sort_unstable_by_key(|p| p.id);
    }
    Ok(Frame { epoch, step, time, poses })
}

/// The bodies of `links` this frame places, parents first: those whose coordinate it
/// wrote and those whose parent it moved (or placed). `moved` are the poses the frame
/// wrote, by id; `coordinates` the coordinates it wrote, by id. Reads `bases`, changes
/// nothing.
fn place(
    links: &LinkTable,
    bases: &Bases,
    same_epoch: bool,
    moved: &[BodyPose],
    coordinates: &[(u32, (Coordinate, usize))],
) -> Result<Vec<(u32, Placed)>, FrameDecodeError> {
    // What this frame placed, by link: a parent placed by its own link comes first.
    let mut placed: Vec<Option<Placed>> = vec![None; links.links().len()];
    for (index, link) in links.links().iter().enumerate() {
        let (child, parent) = (link.child.0, link.parent.0);
        let parent_now =
            find(moved, parent).copied().or_else(|| links.index_of(parent).and_then(|at| placed[at]).map(|p| p.pose));
        let coordinate = match by_id(coordinates, child) {
            Some((coordinate, at)) => Some((coordinate, at)),
            // Its parent moved: the same coordinate places it anew, if it is known.
            None if parent_now.is_some() && same_epoch => by_id(&bases.placed, child).map(|p| (p.coordinate, 0)),
            None => None,
        };
        let Some((coordinate, at)) = coordinate else { continue };
        let held_parent = || {
            if !same_epoch {
                return None;
            }
            by_id(&bases.bodies, parent)
                .map(|held| held.pose(parent))
                .or_else(|| by_id(&bases.placed, parent).map(|p| p.pose))
        };
        let Some(parent_pose) = parent_now.or_else(held_parent) else {
            return Err(FrameDecodeError::MissingBase { at });
        };
        placed[index] = Some(Placed { coordinate, pose: link.child_pose(&parent_pose, coordinate.value()) });
    }
    Ok(links.links().iter().zip(placed).filter_map(|(link, body)| Some((link.child.0, body?))).collect())
}

fn read_floats(reader: &mut Reader<'_>) -> Result<[f32; 3], FrameDecodeError> {
    let mut position = [0f32; 3];
    for c in &mut position {
        *c = f32::from_le_bytes(reader.array()?);
    }
    Ok(position)
}

fn in_grid(grid: [i64; 3], at: usize) -> Result<[i64; 3], FrameDecodeError> {
    if grid.iter().all(|g| (-MAX_GRID..=MAX_GRID).contains(g)) {
        Ok(grid)
    } else {
        Err(FrameDecodeError::OutOfRange { at })
    }
}
