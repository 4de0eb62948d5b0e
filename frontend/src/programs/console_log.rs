//! A robot's console in the browser, the pure part: the lines kept for the inspected robot
//! (history from `GET .../robots/{robot}`, then live `Console` messages, merged without
//! repeats and capped), and how a line and the program's status read (its headline, and
//! the badge of a program that answers late).
//!
//! Program output is text: the panel shows it through text nodes, never as HTML.

use std::collections::VecDeque;

use vlab_protocol::{ConsoleLine, ConsoleSource, ProgramState, ProgramStatus};

/// Lines kept per robot; older ones are dropped (and counted).
pub const MAX_CONSOLE_LINES: usize = 300;

/// The console lines of one robot, oldest first.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConsoleBuffer {
    robot: Option<String>,
    lines: VecDeque<ConsoleLine>,
    dropped: u64,
    history_loaded: bool,
}

impl ConsoleBuffer {
    /// An empty console for `robot` (nothing when no robot).
    pub fn for_robot(robot: Option<String>) -> ConsoleBuffer {
        ConsoleBuffer { robot, ..ConsoleBuffer::default() }
    }

    /// The robot these lines are of.
    pub fn robot(&self) -> Option<&str> {
        self.robot.as_deref()
    }

    /// The lines kept, oldest first.
    pub fn lines(&self) -> impl Iterator<Item = &ConsoleLine> {
        self.lines.iter()
    }

    /// How many lines are kept.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether no line is kept.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Lines dropped off the top since the robot was picked.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Whether the history has arrived.
    pub fn history_loaded(&self) -> bool {
        self.history_loaded
    }

    /// Appends live lines of `robot`; `false` (and nothing changes) when they are another robot's.
    pub fn push_live(&mut self, robot: &str, lines: Vec<ConsoleLine>) -> bool {
        if self.robot.as_deref() != Some(robot) {
            return false;
        }
        self.lines.extend(lines);
        self.cap();
        true
    }

    /// Puts `history` (the robot's latest lines, from its report) before the live lines
    /// that arrived meanwhile, skipping the live lines the history already holds.
    pub fn load_history(&mut self, robot: &str, history: Vec<ConsoleLine>) -> bool {
        if self.robot.as_deref() != Some(robot) {
            return false;
        }
        let live: Vec<ConsoleLine> = self.lines.drain(..).collect();
        // Live lines overlap the history only at its end: compare with its last lines.
        let tail_start = history.len().saturating_sub(live.len());
        let fresh: Vec<ConsoleLine> = live.into_iter().filter(|line| !history[tail_start..].contains(line)).collect();
        self.lines = history.into();
        self.lines.extend(fresh);
        self.history_loaded = true;
        self.cap();
        true
    }

    fn cap(&mut self) {
        while self.lines.len() > MAX_CONSOLE_LINES {
            self.lines.pop_front();
            self.dropped += 1;
        }
    }
}

/// The short tag of a line's source: `print`, `log`, `err`, `lab`.
pub fn source_tag(source: ConsoleSource) -> &'static str {
    match source {
        ConsoleSource::Print => "print",
        ConsoleSource::Log => "log",
        ConsoleSource::Stderr => "err",
        ConsoleSource::Lab => "lab",
    }
}

/// Whether a console line opens a run of its program (the lab's `starting …` or a
/// remote controller attached): the page draws a rule above it.
pub fn opens_a_run(line: &ConsoleLine) -> bool {
    line.source == ConsoleSource::Lab
        && (line.text.starts_with("starting") || line.text.starts_with("a remote controller attached"))
}

/// `#1200 · 5.00 s`: when the lab received a line.
pub fn line_stamp(line: &ConsoleLine) -> String {
    format!("#{} · {:.2} s", line.step, line.time)
}

/// A program state as a key, for `data-state` and the status dot's class: `running`,
/// `stopped`, ….
pub fn state_word(state: ProgramState) -> &'static str {
    match state {
        ProgramState::None => "no program",
        ProgramState::Idle => "idle",
        ProgramState::Starting => "starting",
        ProgramState::Running => "running",
        ProgramState::Stopped => "stopped",
    }
}

/// A program state as people read it: `running`, `starting…` (its robot holds still
/// meanwhile; the lab goes on), ….
pub fn state_text(state: ProgramState) -> &'static str {
    match state {
        ProgramState::Starting => "starting…",
        other => state_word(other),
    }
}

/// The status line's headline: `main.py (PYTHON): running`, `no program: driven by hand`.
pub fn status_headline(status: &ProgramStatus) -> String {
    if status.state == ProgramState::None {
        return "No program: the robot moves when driven by hand.".to_owned();
    }
    let file = status.file.as_deref().unwrap_or("program");
    match status.language.as_deref() {
        Some(language) => format!("{file} ({language}): {}", state_text(status.state)),
        None => format!("{file}: {}", state_text(status.state)),
    }
}

/// The tooltip of the late badge: what it means and what to do about it.
pub const LATE_TITLE: &str = "This program needs more CPU per control step than its share; its robot keeps its \
    last commands until it answers. Do less work per step.";

/// The badge of a running program that answers late: `late: 45 ms of CPU per 20 ms
/// step`; `None` when it keeps up (or is not running, so a late figure means nothing).
pub fn late_badge(status: &ProgramStatus) -> Option<String> {
    match (status.state, status.late) {
        (ProgramState::Running, Some(late)) => Some(late.badge()),
        _ => None,
    }
}

/// Whether Stop makes sense now (a program is running or starting).
pub fn may_stop(state: ProgramState) -> bool {
    matches!(state, ProgramState::Running | ProgramState::Starting)
}

/// Whether Restart makes sense now (the robot has a program).
pub fn may_restart(state: ProgramState) -> bool {
    state != ProgramState::None
}

/// The command line that runs `main.py` on one's own machine as robot `robot`'s remote
/// controller (docs/remote.md), for its owner or the instructor to copy.
pub fn remote_command(origin: &str, lab: &str, token: &str, robot: &str) -> String {
    format!("python main.py --server {origin} --lab {lab} --token {token} --robot {robot}")
}

/// The program status of a robot a remote controller drives (`lab::programs::REMOTE_CONTROLLER`).
const REMOTE_CONTROLLER: &str = "remote controller";

/// What the remote hint says of the robot's program: a running program must stop first.
pub fn remote_note(status: Option<&ProgramStatus>) -> &'static str {
    let state = status.map_or(ProgramState::None, |s| s.state);
    let remote = status.is_some_and(|s| s.file.as_deref() == Some(REMOTE_CONTROLLER));
    if remote && may_stop(state) {
        "A remote controller drives it now (Stop detaches it). Another one attaches with:"
    } else if may_stop(state) {
        "Stop its program first (one driver at a time), install the client once (pip install ./clients/python, \
         from a copy of VLab), then run your program with:"
    } else {
        "Install the client once (pip install ./clients/python, from a copy of VLab), then run your program with:"
    }
}

#[cfg(test)]
mod run_tests {
    use super::*;

    #[test]
    fn a_run_opens_with_the_lab_s_starting_line() {
        let line = |source, text: &str| ConsoleLine { step: 1, time: 0.0, source, text: text.into() };
        assert!(opens_a_run(&line(ConsoleSource::Lab, "starting main.py")));
        assert!(opens_a_run(&line(ConsoleSource::Lab, "a remote controller attached: it drives the robot")));
        assert!(!opens_a_run(&line(ConsoleSource::Print, "starting the motors")));
        assert!(!opens_a_run(&line(ConsoleSource::Lab, "running from step 10")));
    }
}

#[cfg(test)]
mod tests {
    use vlab_protocol::Lateness;

    use super::*;

    #[test]
    fn the_remote_command_names_everything_the_client_needs() {
        let command = remote_command("http://10.0.0.5:8080", "demo", "ab12", "diffbot_ana");
        assert_eq!(command, "python main.py --server http://10.0.0.5:8080 --lab demo --token ab12 --robot diffbot_ana");
        let status = |file: &str, state| ProgramStatus {
            file: Some(file.into()),
            language: None,
            state,
            message: None,
            late: None,
        };
        assert!(remote_note(Some(&status("main.py", ProgramState::Running))).starts_with("Stop its program first"));
        assert!(remote_note(Some(&status("main.py", ProgramState::Stopped))).starts_with("Install the client"));
        assert!(remote_note(Some(&status("remote controller", ProgramState::Running))).starts_with("A remote"));
        assert!(remote_note(None).starts_with("Install the client"));
    }

    fn line(step: u64, text: &str) -> ConsoleLine {
        ConsoleLine { step, time: step as f64 / 240.0, source: ConsoleSource::Print, text: text.into() }
    }

    fn texts(buffer: &ConsoleBuffer) -> Vec<&str> {
        buffer.lines().map(|l| l.text.as_str()).collect()
    }

    #[test]
    fn live_lines_of_another_robot_are_ignored() {
        let mut buffer = ConsoleBuffer::for_robot(Some("a".into()));
        assert!(!buffer.push_live("b", vec![line(1, "x")]));
        assert!(buffer.push_live("a", vec![line(1, "x"), line(2, "y")]));
        assert_eq!(texts(&buffer), ["x", "y"]);
        let mut none = ConsoleBuffer::for_robot(None);
        assert!(!none.push_live("a", vec![line(1, "x")]));
        assert!(!none.load_history("a", vec![line(1, "x")]));
    }

    #[test]
    fn history_goes_first_and_live_lines_it_holds_are_not_repeated() {
        let mut buffer = ConsoleBuffer::for_robot(Some("a".into()));
        buffer.push_live("a", vec![line(5, "e"), line(6, "f")]);
        assert!(!buffer.history_loaded());
        buffer.load_history("a", vec![line(3, "c"), line(4, "d"), line(5, "e")]);
        assert_eq!(texts(&buffer), ["c", "d", "e", "f"]);
        assert!(buffer.history_loaded());
        // The same text printed at two steps is two lines.
        let mut buffer = ConsoleBuffer::for_robot(Some("a".into()));
        buffer.push_live("a", vec![line(9, "tick")]);
        buffer.load_history("a", vec![line(8, "tick")]);
        assert_eq!(buffer.len(), 2);
    }

    #[test]
    fn the_buffer_keeps_the_latest_lines_and_counts_the_rest() {
        let mut buffer = ConsoleBuffer::for_robot(Some("a".into()));
        buffer.push_live("a", (0..MAX_CONSOLE_LINES as u64 + 25).map(|i| line(i, &i.to_string())).collect());
        assert_eq!(buffer.len(), MAX_CONSOLE_LINES);
        assert_eq!(buffer.dropped(), 25);
        assert_eq!(buffer.lines().next().unwrap().text, "25");
        buffer.load_history("a", (0..10).map(|i| line(i, "old")).collect());
        assert_eq!(buffer.len(), MAX_CONSOLE_LINES);
        assert_eq!(buffer.lines().last().unwrap().text, (MAX_CONSOLE_LINES + 24).to_string());
    }

    #[test]
    fn lines_and_statuses_read_plainly() {
        let lab = ConsoleLine { step: 1200, time: 5.0, source: ConsoleSource::Lab, text: "stopped".into() };
        assert_eq!(line_stamp(&lab), "#1200 · 5.00 s");
        assert_eq!(source_tag(ConsoleSource::Stderr), "err");
        let status = ProgramStatus {
            file: Some("main.py".into()),
            language: Some("PYTHON".into()),
            state: ProgramState::Stopped,
            message: Some("Traceback ...".into()),
            late: None,
        };
        assert_eq!(status_headline(&status), "main.py (PYTHON): stopped");
        let none = ProgramStatus { file: None, language: None, state: ProgramState::None, message: None, late: None };
        assert!(status_headline(&none).starts_with("No program"));
        assert!(may_restart(ProgramState::Stopped) && !may_restart(ProgramState::None));
        assert!(may_stop(ProgramState::Running) && !may_stop(ProgramState::Stopped));
    }

    #[test]
    fn a_starting_program_reads_as_starting_and_keeps_its_key() {
        let starting = ProgramStatus {
            file: Some("main.py".into()),
            language: Some("PYTHON".into()),
            state: ProgramState::Starting,
            message: None,
            late: None,
        };
        assert_eq!(status_headline(&starting), "main.py (PYTHON): starting…");
        assert!(!status_headline(&starting).contains("wait"));
        // `data-state` and the dot's class stay plain words.
        assert_eq!(state_word(ProgramState::Starting), "starting");
        assert_eq!(state_text(ProgramState::Running), "running");
    }

    #[test]
    fn only_a_running_program_that_answers_late_has_a_badge() {
        let late = Lateness::cpu(45.2, 20.0);
        let mut status = ProgramStatus {
            file: Some("main.py".into()),
            language: Some("PYTHON".into()),
            state: ProgramState::Running,
            message: None,
            late: Some(late),
        };
        assert_eq!(late_badge(&status).as_deref(), Some("late: 45 ms of CPU per 20 ms step"));
        status.state = ProgramState::Stopped;
        assert_eq!(late_badge(&status), None);
        status.state = ProgramState::Running;
        status.late = None;
        assert_eq!(late_badge(&status), None);
        assert_eq!(
            LATE_TITLE,
            "This program needs more CPU per control step than its share; its robot keeps its last commands until \
             it answers. Do less work per step."
        );
    }
}
