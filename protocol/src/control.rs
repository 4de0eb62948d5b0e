//! Time control: the commands an instructor gives a lab's clock, and the clock's state.

use serde::{Deserialize, Serialize};

use crate::{MAX_RATE, MAX_STEPS_PER_COMMAND, MIN_RATE};

/// Who a connection or an HTTP caller is in a lab. Decided by the server from the token.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// Owns the lab's clock: may pause, resume, step, change the rate and reset.
    Instructor,
    /// Joined with the lab's code: sees everything, owns the robots they upload.
    Student,
    /// No session: watches only.
    Viewer,
}

impl Role {
    /// Whether this role may change the lab's time (the permission table's rule).
    pub fn may_control_time(self) -> bool {
        crate::permissions::Action::ControlTime.allows(crate::permissions::Standing::in_lab(self))
    }
}

/// How fast a running lab advances simulation time compared with the wall clock.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Rate {
    /// A real-time factor in `MIN_RATE..=MAX_RATE` (1.0 = real time).
    RealTime(f64),
    /// As fast as the machine steps the world.
    Max,
}

impl Default for Rate {
    fn default() -> Self {
        Rate::RealTime(1.0)
    }
}

/// Why a requested rate was refused.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("rate must be between {MIN_RATE} and {MAX_RATE} (or \"max\"), got {0}")]
pub struct RateError(pub f64);

impl Rate {
    /// A real-time factor, checked against the allowed range.
    pub fn real_time(factor: f64) -> Result<Rate, RateError> {
        if factor.is_finite() && (MIN_RATE..=MAX_RATE).contains(&factor) {
            Ok(Rate::RealTime(factor))
        } else {
            Err(RateError(factor))
        }
    }

    /// Checks a rate that came from the wire.
    pub fn validated(self) -> Result<Rate, RateError> {
        match self {
            Rate::RealTime(factor) => Rate::real_time(factor),
            Rate::Max => Ok(Rate::Max),
        }
    }
}

impl std::fmt::Display for Rate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rate::RealTime(factor) => write!(f, "{factor}×"),
            Rate::Max => f.write_str("max"),
        }
    }
}

/// On the wire a rate is a number or the string `"max"` (read in `crate::decode`).
impl Serialize for Rate {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Rate::RealTime(factor) => serializer.serialize_f64(*factor),
            Rate::Max => serializer.serialize_str("max"),
        }
    }
}

/// A command to a lab's clock. On the wire: `{"action":"step","steps":10}`. A field the
/// action does not take is refused (`{"action":"pause","steps":3}` is a mistake, not a
/// pause).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case", try_from = "ControlWire")]
pub enum ControlAction {
    /// Stop advancing time.
    Pause,
    /// Advance time at the current rate.
    Resume,
    /// Advance exactly `steps` physics steps, then pause.
    Step {
        /// How many steps, `1..=MAX_STEPS_PER_COMMAND`.
        steps: u32,
    },
    /// Change the real-time factor (the mode is unchanged).
    Rate {
        /// The new rate.
        rate: Rate,
    },
    /// Rebuild the world from the lab's scene, at step 0, paused.
    Reset,
}

/// A control command as read, every field the actions take together, so that a field
/// sent with an action that does not take it is seen (serde ignores fields beside a
/// variant without any).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ControlWire {
    action: String,
    #[serde(default)]
    steps: Option<u32>,
    #[serde(default)]
    rate: Option<Rate>,
}

impl TryFrom<ControlWire> for ControlAction {
    type Error = String;

    fn try_from(wire: ControlWire) -> Result<ControlAction, String> {
        let extra = |field: &str, action: &str| Err(format!("`{field}` does not go with the action \"{action}\""));
        match (wire.action.as_str(), wire.steps, wire.rate) {
            ("pause" | "resume" | "reset", Some(_), _) => extra("steps", &wire.action),
            ("pause" | "resume" | "reset" | "step", _, Some(_)) => extra("rate", &wire.action),
            ("rate", Some(_), _) => extra("steps", "rate"),
            ("pause", None, None) => Ok(ControlAction::Pause),
            ("resume", None, None) => Ok(ControlAction::Resume),
            ("reset", None, None) => Ok(ControlAction::Reset),
            ("step", Some(steps), None) => Ok(ControlAction::Step { steps }),
            ("step", None, None) => Err("the action \"step\" needs `steps`".into()),
            ("rate", None, Some(rate)) => Ok(ControlAction::Rate { rate }),
            ("rate", None, None) => Err("the action \"rate\" needs `rate`".into()),
            (other, _, _) => Err(format!("unknown action \"{other}\": expected pause, resume, step, rate or reset")),
        }
    }
}

impl ControlAction {
    /// Checks the arguments (step count, rate range); the server calls this before
    /// acting and the UI before sending.
    pub fn validate(&self) -> Result<(), String> {
        match self {
            ControlAction::Step { steps } if *steps == 0 || *steps > MAX_STEPS_PER_COMMAND => {
                Err(format!("steps must be between 1 and {MAX_STEPS_PER_COMMAND}, got {steps}"))
            }
            ControlAction::Rate { rate } => rate.validated().map(|_| ()).map_err(|e| e.to_string()),
            _ => Ok(()),
        }
    }
}

/// Whether a lab's clock is advancing.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LabMode {
    /// Time stands still.
    Paused,
    /// Time advances at the lab's rate.
    Running,
    /// Executing a `step N` command as fast as possible; pauses when done.
    Stepping,
}

/// The state of a lab's clock, identical for every participant.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabState {
    /// Paused, running or stepping.
    pub mode: LabMode,
    /// Real-time factor used while running.
    pub rate: Rate,
    /// Physics steps taken since the last reset.
    pub step: u64,
    /// Simulation time since the last reset, in seconds (`step * dt_secs`).
    pub time: f64,
    /// Length of one physics step, in seconds.
    pub dt_secs: f64,
    /// Incremented each time the scene is rebuilt (reset) or changed; frames carry it.
    pub epoch: u32,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The clock travels both as JSON (State) and as raw f64 (binary frames); a page must
    /// read the same time from either, so JSON floats must round-trip bit for bit.
    #[test]
    fn sim_time_round_trips_through_json_bit_for_bit() {
        let dt = 1.0 / 240.0;
        for step in (0..20_000u64).step_by(7).chain([3402]) {
            let time = step as f64 * dt;
            let text = serde_json::to_string(&time).unwrap();
            let back: f64 = serde_json::from_str(&text).unwrap();
            assert_eq!(back.to_bits(), time.to_bits(), "step {step}: {time} became {back} via {text}");
        }
    }

    #[test]
    fn control_actions_round_trip_through_json() {
        let actions = [
            ControlAction::Pause,
            ControlAction::Resume,
            ControlAction::Step { steps: 10 },
            ControlAction::Rate { rate: Rate::RealTime(2.5) },
            ControlAction::Rate { rate: Rate::Max },
            ControlAction::Reset,
        ];
        for action in actions {
            let json = serde_json::to_string(&action).unwrap();
            let back: ControlAction = serde_json::from_str(&json).unwrap();
            assert_eq!(back, action, "{json}");
        }
    }

    #[test]
    fn control_actions_have_the_documented_json_shape() {
        let step: ControlAction = serde_json::from_str(r#"{"action":"step","steps":10}"#).unwrap();
        assert_eq!(step, ControlAction::Step { steps: 10 });
        let max: ControlAction = serde_json::from_str(r#"{"action":"rate","rate":"max"}"#).unwrap();
        assert_eq!(max, ControlAction::Rate { rate: Rate::Max });
        let max_upper: ControlAction = serde_json::from_str(r#"{"action":"rate","rate":"MAX"}"#).unwrap();
        assert_eq!(max_upper, ControlAction::Rate { rate: Rate::Max });
        assert_eq!(serde_json::to_string(&ControlAction::Pause).unwrap(), r#"{"action":"pause"}"#);
    }

    #[test]
    fn malformed_control_actions_are_rejected() {
        for bad in [
            r#"{"action":"fly"}"#,
            r#"{"action":"step"}"#,
            r#"{"action":"step","steps":-3}"#,
            r#"{"action":"rate","rate":"fast"}"#,
            r#"{"action":"step","steps":1,"stpes":2}"#,
        ] {
            assert!(serde_json::from_str::<ControlAction>(bad).is_err(), "{bad} was accepted");
        }
    }

    #[test]
    fn a_field_the_action_does_not_take_is_refused_not_ignored() {
        // Before: `{"action":"pause","steps":3}` paused, the `steps` silently dropped.
        for (bad, says) in [
            (r#"{"action":"pause","steps":3}"#, "`steps` does not go with the action \"pause\""),
            (r#"{"action":"reset","rate":2}"#, "`rate` does not go with the action \"reset\""),
            (r#"{"action":"resume","colour":"red"}"#, "unknown field `colour`"),
            (r#"{"action":"rate","steps":3,"rate":2}"#, "`steps` does not go with the action \"rate\""),
        ] {
            let error = serde_json::from_str::<ControlAction>(bad).unwrap_err().to_string();
            assert!(error.contains(says), "{bad}: {error}");
        }
        assert_eq!(serde_json::from_str::<ControlAction>(r#"{"action":"pause"}"#).unwrap(), ControlAction::Pause);
    }

    #[test]
    fn validate_checks_ranges() {
        assert!(ControlAction::Step { steps: 0 }.validate().is_err());
        assert!(ControlAction::Step { steps: MAX_STEPS_PER_COMMAND + 1 }.validate().is_err());
        assert!(ControlAction::Step { steps: 1 }.validate().is_ok());
        assert!(ControlAction::Rate { rate: Rate::RealTime(0.05) }.validate().is_err());
        assert!(ControlAction::Rate { rate: Rate::RealTime(f64::NAN) }.validate().is_err());
        assert!(ControlAction::Rate { rate: Rate::RealTime(10.0) }.validate().is_ok());
        assert!(ControlAction::Rate { rate: Rate::Max }.validate().is_ok());
    }

    #[test]
    fn lab_state_round_trips() {
        let state = LabState {
            mode: LabMode::Stepping,
            rate: Rate::Max,
            step: 42,
            time: 42.0 / 240.0,
            dt_secs: 1.0 / 240.0,
            epoch: 3,
        };
        let json = serde_json::to_string(&state).unwrap();
        assert_eq!(serde_json::from_str::<LabState>(&json).unwrap(), state);
    }
}
