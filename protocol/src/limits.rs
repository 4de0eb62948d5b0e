//! Limits both sides check, defined once.

/// Largest text message a client may send, in bytes. Larger ones get an error reply.
pub const MAX_CLIENT_TEXT_BYTES: usize = 16 * 1024;

/// A connection's placements (`ClientMsg::Place`) are done at most one every this many
/// milliseconds: a page dragging sends a few a second, and a client sending thousands
/// costs the lab no more than ten moves a second.
pub const PLACE_INTERVAL_MS: u64 = 100;

/// Most physics steps one `step` command may ask for.
pub const MAX_STEPS_PER_COMMAND: u32 = 100_000;

/// Slowest real-time factor a lab may run at.
pub const MIN_RATE: f64 = 0.1;

/// Fastest fixed real-time factor a lab may run at (beyond it, use [`crate::Rate::Max`]).
pub const MAX_RATE: f64 = 10.0;

/// Longest lab or user name, in characters.
pub const MAX_NAME_CHARS: usize = 64;

/// Most keys a client may report held at once (a `Keys` message with more is refused).
pub const MAX_KEYS_HELD: usize = 16;

/// Longest key name, in bytes (`ARROWRIGHT`, `CONTROL`).
pub const MAX_KEY_NAME_BYTES: usize = 16;

/// Largest per-student robot quota an instructor may set.
pub const MAX_ROBOT_QUOTA: u32 = 50;

/// Longest broadcast notice, in characters.
pub const MAX_NOTICE_CHARS: usize = 500;

/// Most participants one lab admits.
pub const MAX_PARTICIPANTS: usize = 200;

/// The most radio messages one robot's program may send per control step; more are not
/// sent (docs/sensors.md, "Radio"). The lab keeps to it for every kind of program.
pub const MAX_RADIO_SENT_PER_STEP: usize = 16;

/// Most objects one student may have added to a lab at once (the instructor has no
/// such limit).
pub const MAX_OBJECTS_PER_STUDENT: usize = 10;

/// Largest extent of a student's object, metres: its longest side, along any of its
/// own axes, over all its parts.
pub const MAX_OBJECT_EXTENT_M: f32 = 3.0;

/// Heaviest moving object a student may add, kilograms (a static object does not move,
/// so its mass plays no part).
pub const MAX_OBJECT_MASS_KG: f32 = 50.0;

/// Most bodies one fragment of objects from a student may hold (one structure at a
/// time; the instructor has no such limit).
pub const MAX_FRAGMENT_BODIES: usize = 5;

/// Longest name an object may be given, in characters.
pub const MAX_OBJECT_NAME_CHARS: usize = 64;

/// Largest scene fragment of objects, bytes of text (its files together).
pub const MAX_FRAGMENT_BYTES: usize = 64 * 1024;
