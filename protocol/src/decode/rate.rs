//! [`Rate`] read by hand: a number (the real-time factor) or the string `"max"` (any
//! case). A visitor, not serde's untagged enum, which would buffer the value first.

use std::fmt;

use serde::de::{Error, Visitor};
use serde::{Deserialize, Deserializer};

use crate::Rate;

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(RateVisitor)
    }
}

struct RateVisitor;

impl Visitor<'_> for RateVisitor {
    type Value = Rate;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a number or \"max\"")
    }

    fn visit_f64<E: Error>(self, factor: f64) -> Result<Rate, E> {
        Ok(Rate::RealTime(factor))
    }

    fn visit_u64<E: Error>(self, factor: u64) -> Result<Rate, E> {
        Ok(Rate::RealTime(factor as f64))
    }

    fn visit_i64<E: Error>(self, factor: i64) -> Result<Rate, E> {
        Ok(Rate::RealTime(factor as f64))
    }

    fn visit_str<E: Error>(self, word: &str) -> Result<Rate, E> {
        if word.eq_ignore_ascii_case("max") {
            Ok(Rate::Max)
        } else {
            Err(E::custom(format!("rate must be a number or \"max\", got \"{word}\"")))
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::Rate;

    #[test]
    fn rates_are_numbers_or_max() {
        let read = |json: &str| serde_json::from_str::<Rate>(json);
        assert_eq!(read("2.5").unwrap(), Rate::RealTime(2.5));
        assert_eq!(read("2").unwrap(), Rate::RealTime(2.0));
        assert_eq!(read("-1").unwrap(), Rate::RealTime(-1.0), "the range is checked by `validated`");
        assert_eq!(read(r#""MAX""#).unwrap(), Rate::Max);
        assert_eq!(serde_json::from_value::<Rate>(serde_json::json!("max")).unwrap(), Rate::Max);
        assert_eq!(serde_json::from_value::<Rate>(serde_json::json!(0.5)).unwrap(), Rate::RealTime(0.5));
        assert!(
            read(r#""fast""#).unwrap_err().to_string().starts_with(r#"rate must be a number or "max", got "fast""#)
        );
        assert!(read("true").is_err() && read("null").is_err() && read("[1]").is_err());
        for rate in [Rate::Max, Rate::RealTime(0.25)] {
            assert_eq!(read(&serde_json::to_string(&rate).unwrap()).unwrap(), rate);
        }
        assert_eq!(serde_json::to_string(&Rate::Max).unwrap(), r#""max""#);
        assert_eq!(serde_json::to_string(&Rate::RealTime(1.0)).unwrap(), "1.0");
    }
}
