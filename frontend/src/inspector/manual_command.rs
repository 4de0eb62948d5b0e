//! Commands typed by hand: which inputs an actuator gets, reading them into an [`ActuatorCommand`], the request body, and what the server answered.
//!
//! The browser side (`fetch`) lives in `inspector::client`; this is plain data, tested on the host.

use vlab_protocol::{ActuatorCommand, ActuatorCommands, RobotReport};

use crate::api::{ApiError, error_sentence};

/// The inputs an actuator takes by hand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommandForm {
    /// One target speed (`SimpleMotor`).
    Speed,
    /// One target position (`SimpleServo`).
    Position,
    /// Forward speed and turn rate (`DiffDrive`).
    Drive,
}

/// One input of a form: its label, unit and tooltip.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommandField {
    /// Short label shown before the input.
    pub label: &'static str,
    /// Unit shown after it.
    pub unit: &'static str,
    /// What it means, for the tooltip.
    pub title: &'static str,
}

const SPEED: [CommandField; 1] =
    [CommandField { label: "speed", unit: "rad/s", title: "target speed: rad/s on a hinge, m/s on a slider" }];
const POSITION: [CommandField; 1] =
    [CommandField { label: "position", unit: "rad", title: "target position: rad on a hinge, m on a slider" }];
const DRIVE: [CommandField; 2] = [
    CommandField { label: "v", unit: "m/s", title: "forward speed, m/s" },
    CommandField { label: "ω", unit: "rad/s", title: "turn rate, rad/s, counter-clockwise seen from above" },
];

impl CommandForm {
    /// The form for an actuator of catalogue type `kind`; an unknown type gets the form
    /// of the command it holds now.
    pub fn for_actuator(kind: &str, command: &ActuatorCommand) -> CommandForm {
        match kind {
            "SimpleMotor" => CommandForm::Speed,
            "SimpleServo" => CommandForm::Position,
            "DiffDrive" => CommandForm::Drive,
            _ => match command {
                ActuatorCommand::Speed { .. } => CommandForm::Speed,
                ActuatorCommand::Position { .. } => CommandForm::Position,
                ActuatorCommand::Drive { .. } => CommandForm::Drive,
            },
        }
    }

    /// Its inputs, in order.
    pub fn fields(self) -> &'static [CommandField] {
        match self {
            CommandForm::Speed => &SPEED,
            CommandForm::Position => &POSITION,
            CommandForm::Drive => &DRIVE,
        }
    }
}

/// What the inputs start with: the actuator's current command when it fits the form, else zeros.
pub fn initial_fields(form: CommandForm, command: &ActuatorCommand) -> Vec<String> {
    let values = match (form, command) {
        (CommandForm::Speed, ActuatorCommand::Speed { speed }) => vec![*speed],
        (CommandForm::Position, ActuatorCommand::Position { position }) => vec![*position],
        (CommandForm::Drive, ActuatorCommand::Drive { v, omega }) => vec![*v, *omega],
        (form, _) => vec![0.0; form.fields().len()],
    };
    values.into_iter().map(|value| value.to_string()).collect()
}

/// Reads the inputs of `form` (one text per field) into a command, or says which one is
/// not a number. A decimal comma is read as a point.
pub fn parse_command(form: CommandForm, texts: &[String]) -> Result<ActuatorCommand, String> {
    let fields = form.fields();
    if texts.len() != fields.len() {
        return Err(format!("expected {} values, got {}", fields.len(), texts.len()));
    }
    let mut values = Vec::with_capacity(texts.len());
    for (text, field) in texts.iter().zip(fields) {
        let text = text.trim();
        if text.is_empty() {
            return Err(format!("enter a value for {}", field.label));
        }
        match text.replace(',', ".").parse::<f64>() {
            Ok(value) if value.is_finite() => values.push(value),
            _ => return Err(format!("{}: “{text}” is not a number", field.label)),
        }
    }
    Ok(match form {
        CommandForm::Speed => ActuatorCommand::Speed { speed: values[0] },
        CommandForm::Position => ActuatorCommand::Position { position: values[0] },
        CommandForm::Drive => ActuatorCommand::Drive { v: values[0], omega: values[1] },
    })
}

/// The JSON body of `POST /api/labs/{lab}/robots/{robot}/actuators` commanding one actuator.
pub fn actuators_body(actuator: &str, command: &ActuatorCommand) -> String {
    let mut commands = ActuatorCommands::new();
    commands.insert(actuator.to_owned(), serde_json::to_value(command).unwrap_or_default());
    serde_json::to_string(&commands).unwrap_or_default()
}

/// How a manual command ended.
#[derive(Clone, Debug, PartialEq)]
pub enum CommandOutcome {
    /// Accepted: the robot as it is now, with the new command.
    Applied(Box<RobotReport>),
    /// Refused or lost: a sentence for the user.
    Failed(String),
}

/// Reads the server's answer to the actuators request.
pub fn interpret_actuator_response(answer: Result<RobotReport, ApiError>) -> CommandOutcome {
    match answer {
        Ok(report) => CommandOutcome::Applied(Box::new(report)),
        Err(error) => CommandOutcome::Failed(error_sentence(&error)),
    }
}

#[cfg(test)]
mod tests {
    use vlab_protocol::{ProgramState, ProgramStatus, RobotPose};

    use super::*;
    use crate::api::read_json;

    fn texts(values: &[&str]) -> Vec<String> {
        values.iter().map(|v| (*v).to_owned()).collect()
    }

    #[test]
    fn each_actuator_type_gets_its_inputs() {
        let speed = ActuatorCommand::Speed { speed: 1.0 };
        assert_eq!(CommandForm::for_actuator("SimpleMotor", &speed), CommandForm::Speed);
        assert_eq!(CommandForm::for_actuator("SimpleServo", &speed), CommandForm::Position);
        assert_eq!(CommandForm::for_actuator("DiffDrive", &speed), CommandForm::Drive);
        let drive = ActuatorCommand::Drive { v: 0.0, omega: 0.0 };
        assert_eq!(CommandForm::for_actuator("FutureThing", &drive), CommandForm::Drive);
        assert_eq!(CommandForm::Drive.fields().iter().map(|f| f.label).collect::<Vec<_>>(), ["v", "ω"]);
    }

    #[test]
    fn inputs_start_at_the_current_command() {
        assert_eq!(initial_fields(CommandForm::Speed, &ActuatorCommand::Speed { speed: -7.0 }), ["-7"]);
        assert_eq!(
            initial_fields(CommandForm::Drive, &ActuatorCommand::Drive { v: 0.15, omega: 0.3 }),
            ["0.15", "0.3"]
        );
        assert_eq!(initial_fields(CommandForm::Drive, &ActuatorCommand::Speed { speed: 1.0 }), ["0", "0"]);
    }

    #[test]
    fn typed_values_become_commands() {
        assert_eq!(parse_command(CommandForm::Speed, &texts(&[" 6 "])), Ok(ActuatorCommand::Speed { speed: 6.0 }));
        assert_eq!(
            parse_command(CommandForm::Position, &texts(&["-0,5"])),
            Ok(ActuatorCommand::Position { position: -0.5 })
        );
        assert_eq!(
            parse_command(CommandForm::Drive, &texts(&["0.15", "0.3"])),
            Ok(ActuatorCommand::Drive { v: 0.15, omega: 0.3 })
        );
    }

    #[test]
    fn bad_values_say_which_input() {
        assert_eq!(parse_command(CommandForm::Speed, &texts(&["fast"])), Err("speed: “fast” is not a number".into()));
        assert_eq!(parse_command(CommandForm::Drive, &texts(&["1", ""])), Err("enter a value for ω".into()));
        assert!(parse_command(CommandForm::Speed, &texts(&["inf"])).is_err());
        assert!(parse_command(CommandForm::Speed, &texts(&["NaN"])).is_err());
        assert!(parse_command(CommandForm::Drive, &texts(&["1"])).is_err());
    }

    #[test]
    fn the_body_has_the_documented_shape() {
        let body = actuators_body("left_motor", &ActuatorCommand::Speed { speed: 6.0 });
        assert_eq!(body, r#"{"left_motor":{"speed":6.0}}"#);
        let body: serde_json::Value =
            serde_json::from_str(&actuators_body("drive", &ActuatorCommand::Drive { v: 0.15, omega: 0.3 })).unwrap();
        assert_eq!(body, serde_json::json!({"drive": {"v": 0.15, "omega": 0.3}}));
    }

    #[test]
    fn answers_become_a_report_or_a_sentence() {
        let report = RobotReport {
            name: "bot".into(),
            step: 1,
            time: 0.1,
            pose: RobotPose { position: [0.0; 3], quaternion: [1.0, 0.0, 0.0, 0.0], heading: 0.0 },
            sensors: vec![],
            actuators: vec![],
            keys: vec![],
            program: ProgramStatus { file: None, language: None, state: ProgramState::None, message: None, late: None },
            owner: None,
            console: None,
        };
        let body = serde_json::to_string(&report).unwrap();
        assert_eq!(interpret_actuator_response(read_json(200, &body)), CommandOutcome::Applied(Box::new(report)));

        let refused = r#"{"error":{"code":"invalid_argument","message":"no actuator 'x' on robot 'bot'","details":["actuators: left, right"]}}"#;
        assert_eq!(
            interpret_actuator_response(read_json(422, refused)),
            CommandOutcome::Failed("No actuator 'x' on robot 'bot' (actuators: left, right).".into())
        );
        let forbidden = r#"{"error":{"code":"unauthorized","message":"no token"}}"#;
        assert_eq!(interpret_actuator_response(read_json(401, forbidden)), CommandOutcome::Failed("No token.".into()));
        assert_eq!(
            interpret_actuator_response(read_json(502, "Bad Gateway")),
            CommandOutcome::Failed("The server answered HTTP 502: Bad Gateway".into())
        );
        assert!(
            matches!(interpret_actuator_response(read_json(500, "")), CommandOutcome::Failed(m) if m.contains("HTTP 500"))
        );
    }
}
