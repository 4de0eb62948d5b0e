//! The lab's side of one conversation in the program protocol (version
//! [`super::PROGRAM_PROTOCOL_VERSION`], or [`super::PIPE_PROTOCOL_VERSION`] on a sandboxed
//! program's pipe), whatever carries it: which answer the lab waits for, the
//! console lines that come before it, a step's output budget. A sandboxed Python
//! program (its pipes) and a remote controller (its websocket) share it, so both are
//! held to the same rules.

use std::collections::VecDeque;

use super::messages::{ConsoleLine, LabMsg, ProgramMsg, Reply};
use super::{Limits, ProgramError, RobotSide};

/// Console lines kept for a program's console history.
pub const CONSOLE_HISTORY_LINES: usize = 500;
/// Longest piece of a program's stderr taken as one console line, bytes (a line without
/// its end is cut there, then to [`MAX_CONSOLE_LINE_CHARS`]).
pub(crate) const MAX_CONSOLE_LINE_BYTES: usize = 4096;
/// Longest console line shown, characters: longer ones end in `…` at this length, as the
/// `vlab` module cuts them already (docs/programs.md), so a client of its own (a remote
/// controller) shows the same. A line counts against the step's output budget with all
/// the bytes it was sent with, before any cut.
pub const MAX_CONSOLE_LINE_CHARS: usize = 1000;

/// What the lab waits for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Awaiting {
    Nothing,
    Ready,
    Commands(u64),
    /// Its `done`, after `stop`.
    Done,
}

/// One program's conversation with the lab, from the lab's side.
#[derive(Debug)]
pub(crate) struct Conversation {
    /// The protocol version it speaks.
    version: u32,
    awaiting: Awaiting,
    output_bytes: usize,
    output_limit: usize,
    memory_mib: u64,
    pending: Vec<ConsoleLine>,
    history: VecDeque<ConsoleLine>,
}

impl Conversation {
    /// A conversation in protocol `version` under `limits`, before the hello.
    pub fn new(limits: &Limits, version: u32) -> Conversation {
        Conversation {
            version,
            awaiting: Awaiting::Nothing,
            output_bytes: 0,
            output_limit: limits.output_bytes_per_step,
            memory_mib: limits.memory_mib,
            pending: Vec::new(),
            history: VecDeque::new(),
        }
    }

    /// The hello for the robot `side` describes; the answer awaited is then `ready`.
    pub fn hello(&mut self, side: &RobotSide) -> LabMsg {
        self.awaiting = Awaiting::Ready;
        self.output_bytes = 0;
        LabMsg::Hello {
            version: self.version,
            robot: side.robot.clone(),
            sensors: side.sensors.clone(),
            actuators: side.actuators.clone(),
            dt: side.dt_secs,
            control_period: side.control_period,
            step: side.step,
            time: side.time_secs,
            seed: side.seed,
            obstacles: side.obstacles.as_ref().clone(),
        }
    }

    /// A step's readings are going out: its answer is awaited next, with a fresh
    /// output budget. Refused while an answer is still due (the lab's mistake).
    pub fn step(&mut self, step: u64) -> Result<(), ProgramError> {
        if self.awaiting != Awaiting::Nothing {
            return Err(ProgramError::Protocol("a step was sent before the previous answer".into()));
        }
        self.output_bytes = 0;
        self.awaiting = Awaiting::Commands(step);
        Ok(())
    }

    /// `stop` is going out: only `done` (or a failure) is awaited now.
    pub fn stop(&mut self) {
        self.output_bytes = 0;
        self.awaiting = Awaiting::Done;
    }

    /// The conversation is over (the program is dead): nothing more is awaited.
    pub fn end(&mut self) {
        self.awaiting = Awaiting::Nothing;
    }

    /// Whether an answer is due (asking for one otherwise is the lab's mistake).
    pub fn expecting(&self) -> Result<(), ProgramError> {
        if self.awaiting == Awaiting::Nothing {
            return Err(ProgramError::Protocol("an answer was asked for before a step was sent".into()));
        }
        Ok(())
    }

    /// One message as the program sent it, parsed.
    pub fn parse(line: &[u8]) -> Result<ProgramMsg, ProgramError> {
        serde_json::from_slice(line).map_err(|e| {
            let shown: String = String::from_utf8_lossy(line).chars().take(80).collect();
            ProgramError::Protocol(format!("{e} in {shown:?}"))
        })
    }

    /// Takes one message: `Some` answer when it is the one awaited, `None` when more
    /// must come (console lines sent early), an error when the program failed, ended
    /// or broke the protocol.
    pub fn take(&mut self, message: ProgramMsg) -> Result<Option<Reply>, ProgramError> {
        match (message, self.awaiting) {
            (ProgramMsg::Output { output }, _) => {
                self.take_output(output)?;
                Ok(None)
            }
            (ProgramMsg::Ready { version, commands, output, belief, radio }, Awaiting::Ready) => {
                self.take_output(output)?;
                if version != self.version {
                    return Err(ProgramError::Protocol(format!(
                        "it speaks protocol version {version}, the lab {}",
                        self.version
                    )));
                }
                self.awaiting = Awaiting::Nothing;
                let console = std::mem::take(&mut self.pending);
                Ok(Some(Reply { step: None, commands, console, belief, radio }))
            }
            (ProgramMsg::Commands { step, commands, output, belief, radio }, Awaiting::Commands(sent))
                if step == sent =>
            {
                self.take_output(output)?;
                self.awaiting = Awaiting::Nothing;
                let console = std::mem::take(&mut self.pending);
                Ok(Some(Reply { step: Some(step), commands, console, belief, radio }))
            }
            (ProgramMsg::Error { kind, traceback, output }, _) => {
                self.take_output(output)?;
                Err(if kind == "memory" {
                    ProgramError::OutOfMemory { mib: self.memory_mib }
                } else {
                    ProgramError::Raised { traceback }
                })
            }
            (ProgramMsg::Done { output }, _) => {
                self.take_output(output)?;
                Err(ProgramError::Ended)
            }
            (other, awaiting) => {
                Err(ProgramError::Protocol(format!("unexpected {} while waiting for {awaiting:?}", kind_of(&other))))
            }
        }
    }

    /// Console lines (sent with an answer, early, or on stderr): each counts its bytes as
    /// sent (and one for its end) against the step's budget, past which it is a flood;
    /// then too long ones are cut.
    pub fn take_output(&mut self, lines: Vec<ConsoleLine>) -> Result<(), ProgramError> {
        for mut line in lines {
            self.output_bytes = self.output_bytes.saturating_add(line.text.len() + 1);
            if self.output_bytes > self.output_limit {
                return Err(ProgramError::OutputFlood { bytes: self.output_limit });
            }
            cut_line(&mut line.text);
            if self.history.len() == CONSOLE_HISTORY_LINES {
                self.history.pop_front();
            }
            self.history.push_back(line.clone());
            self.pending.push(line);
        }
        Ok(())
    }

    /// The latest console lines, oldest first.
    pub fn history(&self) -> impl Iterator<Item = &ConsoleLine> {
        self.history.iter()
    }
}

/// Cuts `text` to [`MAX_CONSOLE_LINE_CHARS`] characters, the last one `…`, as the `vlab`
/// module does.
fn cut_line(text: &mut String) {
    if let Some((at, _)) = text.char_indices().nth(MAX_CONSOLE_LINE_CHARS) {
        let last = text[..at].char_indices().next_back().map_or(0, |(i, _)| i);
        text.truncate(last);
        text.push('\u{2026}');
    }
}

/// A message's type as the protocol names it (for errors: the message itself may be
/// long).
fn kind_of(message: &ProgramMsg) -> String {
    match message {
        ProgramMsg::Ready { .. } => "ready".into(),
        ProgramMsg::Commands { step, .. } => format!("commands for step {step}"),
        ProgramMsg::Output { .. } => "output".into(),
        ProgramMsg::Error { .. } => "error".into(),
        ProgramMsg::Done { .. } => "done".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ConsoleSource;
    use crate::PROGRAM_PROTOCOL_VERSION;

    fn line(text: &str) -> ConsoleLine {
        ConsoleLine { source: ConsoleSource::Print, text: text.into() }
    }

    #[test]
    fn an_answer_is_taken_only_for_the_step_asked() {
        let mut talk = Conversation::new(&Limits::default(), PROGRAM_PROTOCOL_VERSION);
        let _ = talk.hello(&RobotSide::new("bot"));
        let ready = Conversation::parse(br#"{"type":"ready","version":1}"#).unwrap();
        assert_eq!(talk.take(ready).unwrap().unwrap().step, None);
        talk.step(5).unwrap();
        let early = Conversation::parse(br#"{"type":"output","output":[{"source":"print","text":"hi"}]}"#).unwrap();
        assert_eq!(talk.take(early).unwrap(), None);
        let wrong = Conversation::parse(br#"{"type":"commands","step":10}"#).unwrap();
        let error = talk.take(wrong).unwrap_err();
        assert_eq!(
            error,
            ProgramError::Protocol("unexpected commands for step 10 while waiting for Commands(5)".into())
        );
        let right = Conversation::parse(br#"{"type":"commands","step":5}"#).unwrap();
        let reply = talk.take(right).unwrap().unwrap();
        assert_eq!((reply.step, reply.console), (Some(5), vec![line("hi")]));
        assert!(talk.step(10).is_ok());
        assert!(talk.step(15).is_err(), "a step before the previous answer is refused");
    }

    #[test]
    fn output_past_a_steps_budget_is_a_flood() {
        let limits = Limits { output_bytes_per_step: 10, ..Limits::default() };
        let mut talk = Conversation::new(&limits, PROGRAM_PROTOCOL_VERSION);
        let _ = talk.hello(&RobotSide::new("bot"));
        assert_eq!(talk.take(ProgramMsg::Output { output: vec![line("123456789")] }).unwrap(), None);
        let error = talk.take(ProgramMsg::Output { output: vec![line("x")] }).unwrap_err();
        assert_eq!(error, ProgramError::OutputFlood { bytes: 10 });
    }

    #[test]
    fn a_line_counts_all_the_bytes_it_was_sent_with_before_it_is_cut() {
        let limits = Limits { output_bytes_per_step: 16 * 1024, ..Limits::default() };
        let mut talk = Conversation::new(&limits, PROGRAM_PROTOCOL_VERSION);
        let _ = talk.hello(&RobotSide::new("bot"));
        // Just under: 16383 bytes and its end fill the budget exactly.
        let full = "x".repeat(16 * 1024 - 1);
        assert_eq!(talk.take(ProgramMsg::Output { output: vec![line(&full)] }).unwrap(), None);
        let kept = talk.history().last().unwrap().text.clone();
        assert_eq!(kept.chars().count(), MAX_CONSOLE_LINE_CHARS, "shown cut");
        assert!(kept.ends_with('\u{2026}'));
        // Just over: one byte more is a flood, though it would be cut to 1000 characters.
        let mut talk = Conversation::new(&limits, PROGRAM_PROTOCOL_VERSION);
        let _ = talk.hello(&RobotSide::new("bot"));
        let over = "x".repeat(16 * 1024);
        let error = talk.take(ProgramMsg::Output { output: vec![line(&over)] }).unwrap_err();
        assert_eq!(error, ProgramError::OutputFlood { bytes: 16 * 1024 });
        // A line of exactly the longest length is shown whole.
        let mut text = "é".repeat(MAX_CONSOLE_LINE_CHARS);
        cut_line(&mut text);
        assert_eq!(text, "é".repeat(MAX_CONSOLE_LINE_CHARS));
        text.push('e');
        cut_line(&mut text);
        assert_eq!(text, format!("{}\u{2026}", "é".repeat(MAX_CONSOLE_LINE_CHARS - 1)));
    }

    #[test]
    fn done_error_and_another_version_end_it() {
        let mut talk = Conversation::new(&Limits::default(), PROGRAM_PROTOCOL_VERSION);
        let _ = talk.hello(&RobotSide::new("bot"));
        let other = Conversation::parse(br#"{"type":"ready","version":2}"#).unwrap();
        assert!(matches!(talk.take(other), Err(ProgramError::Protocol(m)) if m.contains("version 2")));
        assert_eq!(talk.take(ProgramMsg::Done { output: vec![] }), Err(ProgramError::Ended));
        let raised = ProgramMsg::Error { kind: "exception".into(), traceback: "Boom".into(), output: vec![] };
        assert_eq!(talk.take(raised), Err(ProgramError::Raised { traceback: "Boom".into() }));
        assert!(matches!(Conversation::parse(b"not json"), Err(ProgramError::Protocol(_))));
    }
}
