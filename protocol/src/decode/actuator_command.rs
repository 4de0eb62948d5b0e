//! [`ActuatorCommand`] read by hand: `{"speed": 6.0}`, `{"position": 0.5}` or
//! `{"v": 0.15, "omega": 0.3}`, untagged. As serde's untagged enum did, the variants are
//! tried in order and the first whose fields are all there as numbers wins; other
//! fields are ignored. Like serde's, an array of the fields' values in order is read
//! too: `[6.0]` as a speed, `[0.15, 0.3]` as a drive.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer};
use serde_json::{Error, Value};

use super::to_error;
use crate::ActuatorCommand;

impl<'de> Deserialize<'de> for ActuatorCommand {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        read(Value::deserialize(deserializer)?).map_err(to_error)
    }
}

fn read(value: Value) -> Result<ActuatorCommand, Error> {
    let no_match = || Error::custom("data did not match any variant of untagged enum ActuatorCommand");
    let command = match value {
        Value::Object(map) => {
            let number = |name: &str| map.get(name).and_then(Value::as_f64);
            let speed = || Some(ActuatorCommand::Speed { speed: number("speed")? });
            let position = || Some(ActuatorCommand::Position { position: number("position")? });
            let drive = || Some(ActuatorCommand::Drive { v: number("v")?, omega: number("omega")? });
            speed().or_else(position).or_else(drive)
        }
        Value::Array(items) => match items.iter().map(Value::as_f64).collect::<Option<Vec<f64>>>().as_deref() {
            Some(&[speed]) => Some(ActuatorCommand::Speed { speed }),
            Some(&[v, omega]) => Some(ActuatorCommand::Drive { v, omega }),
            _ => None,
        },
        _ => None,
    };
    command.ok_or_else(no_match)
}

#[cfg(test)]
mod tests {
    use crate::ActuatorCommand;

    #[test]
    fn every_variant_reads_back_as_written() {
        for command in [
            ActuatorCommand::Speed { speed: 6.0 },
            ActuatorCommand::Position { position: -0.5 },
            ActuatorCommand::Drive { v: 0.15, omega: 0.3 },
        ] {
            let json = serde_json::to_string(&command).unwrap();
            assert_eq!(serde_json::from_str::<ActuatorCommand>(&json).unwrap(), command, "{json}");
        }
        assert_eq!(serde_json::to_string(&ActuatorCommand::Speed { speed: 6.0 }).unwrap(), r#"{"speed":6.0}"#);
    }

    #[test]
    fn the_first_variant_that_fits_wins_and_other_fields_are_ignored() {
        let read = |json: &str| serde_json::from_str::<ActuatorCommand>(json);
        assert_eq!(read(r#"{"speed":1,"position":2}"#).unwrap(), ActuatorCommand::Speed { speed: 1.0 });
        assert_eq!(read(r#"{"speed":"x","position":2}"#).unwrap(), ActuatorCommand::Position { position: 2.0 });
        assert_eq!(
            read(r#"{"omega":0.3,"v":1,"colour":"red"}"#).unwrap(),
            ActuatorCommand::Drive { v: 1.0, omega: 0.3 }
        );
        assert_eq!(read("[6.0]").unwrap(), ActuatorCommand::Speed { speed: 6.0 });
        assert_eq!(read("[0.15, 0.3]").unwrap(), ActuatorCommand::Drive { v: 0.15, omega: 0.3 });
        for bad in [r#"{"v":1}"#, r#"{}"#, "[]", "[1,2,3]", r#"["x"]"#, "6.0", r#"{"speed":null}"#] {
            let error = read(bad).unwrap_err().to_string();
            assert!(
                error.starts_with("data did not match any variant of untagged enum ActuatorCommand"),
                "{bad}: {error}"
            );
        }
    }
}
