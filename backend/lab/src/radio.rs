//! The lab's radio: at every control step, the messages robots' programs sent are
//! routed to the radios that hear them, on the lab's thread, in an order that never
//! depends on timing (docs/sensors.md, "Radio").
//!
//! A message a program sends with its answer leaves when the lab takes that answer and
//! is heard in the readings of the same control step, which the receivers' programs
//! get next: one control step after it was sent, in simulation time. A radio hears a
//! message when it is on the sender's channel, within the sender's `range` and, for a
//! sender with `line_of_sight`, when nothing but the two robots stands between them.
//! Messages are delivered by sender name, then in the order each sender sent them; a
//! radio hears at most its `max_heard` per control step and the rest are lost.
//!
//! A robot sends at most [`MAX_SENT_BYTES_PER_SEC`] per second of simulation time
//! ([`Airtime`]): what a radio sends is copied into every reading that hears it, to
//! every program, and into the recording, so one robot's flood would cost the whole
//! lab. Past it, its messages are refused until the next second, and its console says
//! so once that second.

use std::collections::BTreeMap;

use vlab_protocol::RadioMessage;

use vlab_sim::robot::Robots;
use vlab_sim::robot::frame::wide;
use vlab_sim::robot::sensors::RadioSettings;
use vlab_sim::sim::{RayFilter, World};

/// The most messages one robot may send per control step; more are not sent.
pub use vlab_programs::MAX_RADIO_SENT_PER_STEP as MAX_SENT_PER_STEP;

/// The most bytes of messages one robot may send per second of simulation time (whole
/// seconds: 0 to 1 s, 1 to 2 s, ...), counted on the messages that leave it; one that
/// would pass it is refused. 16 KiB: five times a robot sending one message of the
/// default `max_length` (64 bytes) at every control step (48 a second, 3,072 bytes),
/// about twenty times the rendezvous example (scenes/examples/rendezvous: a position
/// of about 18 bytes per control step), and still sixteen messages of the longest
/// (1,024 bytes) a second; a robot sending sixteen of those at every control step (786
/// KB a second, copied to every radio in range) is cut to a fiftieth.
pub const MAX_SENT_BYTES_PER_SEC: usize = 16 * 1024;

/// Two robots' straight line counts as clear when the rays between them leave less
/// than this unaccounted for, metres (thinner than any wall of a lab).
const CLEAR_SLACK: f64 = 1e-4;

/// Why messages a program sent did not leave its robot.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RadioError {
    /// Its robot has no `Radio`.
    #[error("radio: {count} message(s) not sent: this robot has no Radio")]
    NoRadio {
        /// Messages dropped.
        count: usize,
    },
    /// A message longer than the radio's `max_length`.
    #[error("radio: a message of {bytes} bytes not sent: this radio sends at most {max} bytes (max_length)")]
    TooLong {
        /// Its length, bytes of UTF-8.
        bytes: usize,
        /// The radio's `max_length`.
        max: usize,
    },
    /// Past [`MAX_SENT_BYTES_PER_SEC`] in this second of simulation time (said once a
    /// second, at the first message refused).
    #[error(
        "radio: messages not sent until the next second of simulation time: a robot may send at most {MAX_SENT_BYTES_PER_SEC} bytes a second, and this one has sent {sent} bytes this second"
    )]
    OverBudget {
        /// Bytes it sent this second.
        sent: usize,
    },
    /// More than [`MAX_SENT_PER_STEP`] messages in one control step.
    #[error("radio: {dropped} message(s) not sent: at most {MAX_SENT_PER_STEP} per control step")]
    TooMany {
        /// Messages dropped (the last ones).
        dropped: usize,
    },
}

/// What each robot has sent in the current second of simulation time, kept from one
/// control step to the next (by the lab's programs).
#[derive(Debug, Default)]
pub struct Airtime {
    by_robot: BTreeMap<String, Spent>,
}

/// One robot's bytes sent in one second.
#[derive(Clone, Copy, Debug, Default)]
struct Spent {
    second: u64,
    bytes: usize,
    /// Whether its console was told of a refusal this second.
    told: bool,
}

/// The whole second of simulation time `time` falls in (a step's time computed as
/// step × dt may land a hair under a whole second).
fn second_of(time: f64) -> u64 {
    (time + 1e-9).floor().max(0.0) as u64
}

impl Airtime {
    /// Charges `bytes` sent by `robot` at simulation time `time` if they fit in this
    /// second's budget; `Err(Some(..))` the first time a message does not fit in a
    /// second (to be said), `Err(None)` for the next ones that second.
    fn charge(&mut self, robot: &str, time: f64, bytes: usize) -> Result<(), Option<RadioError>> {
        let second = second_of(time);
        let spent = self.by_robot.entry(robot.to_owned()).or_default();
        if spent.second != second {
            *spent = Spent { second, ..Spent::default() };
        }
        if spent.bytes + bytes <= MAX_SENT_BYTES_PER_SEC {
            spent.bytes += bytes;
            return Ok(());
        }
        if std::mem::replace(&mut spent.told, true) {
            return Err(None);
        }
        Err(Some(RadioError::OverBudget { sent: spent.bytes }))
    }

    /// Forgets robots that are gone (by name), so the map holds the lab's robots only.
    fn keep_only(&mut self, present: &[Station]) {
        self.by_robot.retain(|name, _| present.iter().any(|s| s.robot == name));
    }
}

/// A radio as one control step sees it.
struct Station<'a> {
    robot: &'a str,
    index: u32,
    position: [f64; 3],
    settings: &'a RadioSettings,
}

/// Routes `outgoing` (each robot's messages, in the order sent) at control step
/// `step` / `time`, each robot's bytes charged to its `airtime`: every robot's radio is
/// given what it heard and what it sent. Returns what was refused, by robot, for their
/// consoles.
pub fn route(
    robots: &mut Robots,
    world: &World,
    airtime: &mut Airtime,
    outgoing: BTreeMap<String, Vec<String>>,
    step: u64,
    time: f64,
) -> Vec<(String, RadioError)> {
    let stations: Vec<Station> = robots
        .radios()
        .map(|(robot, index, settings)| Station {
            robot,
            index,
            position: wide(world.pose(settings.body).position),
            settings,
        })
        .collect();
    if stations.is_empty() && outgoing.is_empty() {
        return Vec::new();
    }
    airtime.keep_only(&stations);
    let mut refused = Vec::new();
    // What leaves each sender, by sender name (the map's order).
    let mut sent: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for (robot, messages) in &outgoing {
        let Some(station) = stations.iter().find(|s| s.robot == robot) else {
            if !messages.is_empty() {
                refused.push((robot.clone(), RadioError::NoRadio { count: messages.len() }));
            }
            continue;
        };
        let mut leaving = Vec::new();
        for (i, message) in messages.iter().enumerate() {
            if leaving.len() == MAX_SENT_PER_STEP {
                refused.push((robot.clone(), RadioError::TooMany { dropped: messages.len() - i }));
                break;
            }
            if message.len() > station.settings.max_length {
                let error = RadioError::TooLong { bytes: message.len(), max: station.settings.max_length };
                refused.push((robot.clone(), error));
                continue;
            }
            match airtime.charge(robot, time, message.len()) {
                Ok(()) => leaving.push(message.clone()),
                Err(Some(error)) => refused.push((robot.clone(), error)),
                Err(None) => {}
            }
        }
        sent.insert(station.robot, leaving);
    }
    let mut deliveries = Vec::with_capacity(stations.len());
    for receiver in &stations {
        let mut heard = Vec::new();
        for (sender_name, messages) in &sent {
            let Some(sender) = stations.iter().find(|s| s.robot == *sender_name) else { continue };
            if sender.robot == receiver.robot || messages.is_empty() || !hears(world, sender, receiver) {
                continue;
            }
            for text in messages {
                heard.push(RadioMessage { from: sender.robot.to_owned(), text: text.clone() });
            }
        }
        heard.truncate(receiver.settings.max_heard);
        let own = sent.get(receiver.robot).cloned().unwrap_or_default();
        deliveries.push((receiver.robot.to_owned(), heard, own));
    }
    for (robot, heard, own) in deliveries {
        robots.hear(&robot, step, time, heard, own);
    }
    refused
}

/// Whether `receiver` hears what `sender` sends now.
fn hears(world: &World, sender: &Station, receiver: &Station) -> bool {
    if sender.settings.channel != receiver.settings.channel {
        return false;
    }
    let distance = length(difference(receiver.position, sender.position));
    distance <= sender.settings.range && (!sender.settings.line_of_sight || clear(world, sender, receiver, distance))
}

/// Whether nothing but the two robots stands on the straight line between them
/// (glass does not block a radio). One ray from each end, each blind to its own
/// robot: the first stops at the other robot's surface or at an obstacle, the second
/// at the first robot's surface or at the same obstacle. With nothing between, the two
/// reach past each other (their lengths add up to the distance at least); an obstacle
/// holds both short of it by its thickness.
fn clear(world: &World, sender: &Station, receiver: &Station, distance: f64) -> bool {
    if distance < CLEAR_SLACK {
        return true;
    }
    let reach = |from: &Station, to: &Station| {
        let direction = difference(to.position, from.position).map(|c| (c / distance) as f32);
        let filter = RayFilter { ignore_robot: Some(from.index), through_transparent: true };
        let origin = from.position.map(|c| c as f32);
        world.cast_ray(origin, direction, distance as f32, filter).map_or(distance, f64::from)
    };
    reach(sender, receiver) + reach(receiver, sender) >= distance - CLEAR_SLACK
}

fn difference(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn length(v: [f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

#[cfg(test)]
mod tests {
    use vlab_protocol::SensorValue;

    use super::*;
    use vlab_sim::scene;

    /// Static robots standing on a floor: `(name, x, radio parameters)`, all at z = 5;
    /// `wall` puts a wall across the line at x = 3.
    fn lab(robots: &[(&str, f64, &str)], wall: bool) -> (World, Robots) {
        let mut source = String::from("static ground { shape box(20, 0.2, 12); pos(5, -0.1, 5); }\n");
        if wall {
            source.push_str("static wall { shape box(0.2, 2, 4); pos(3, 1, 5); }\n");
        }
        for (name, x, radio) in robots {
            // "-": no radio at all.
            let radio = if *radio == "-" { String::new() } else { format!("Radio r {{ {radio} }}") };
            source.push_str(&format!(
                "robot {name} {{ body {{ static {name}_c {{ shape box(0.4, 0.2, 0.4); pos({x}, 0.5, 5); {radio} }} }} }}\n"
            ));
        }
        let options = scene::Options { seed: 1, ..scene::Options::default() };
        let model = scene::interpret(&source, "radio.vlab", &scene::MapLoader::new(), &options)
            .unwrap_or_else(|e| panic!("{e:?}\n{source}"))
            .model;
        let mut world = World::build(&model).unwrap();
        let mut robots = Robots::configure(&model, 1).unwrap();
        robots.install(&mut world, 0, 0.0);
        world.step();
        (world, robots)
    }

    fn send(messages: &[(&str, &[&str])]) -> BTreeMap<String, Vec<String>> {
        messages
            .iter()
            .map(|(robot, texts)| (robot.to_string(), texts.iter().map(|t| t.to_string()).collect()))
            .collect()
    }

    /// What robot `name`'s radio heard and sent at its latest control step.
    fn heard(robots: &Robots, name: &str) -> (Vec<(String, String)>, Vec<String>) {
        let radio = robots.get(name).unwrap().sensors().iter().find(|s| s.kind() == "Radio").unwrap();
        match &radio.last().expect("a reading every control step").measured {
            SensorValue::Radio { heard, sent } => {
                (heard.iter().map(|m| (m.from.clone(), m.text.clone())).collect(), sent.clone())
            }
            other => panic!("{other:?}"),
        }
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
    }

    #[test]
    fn in_range_hears_exactly_what_was_sent_and_out_of_range_nothing() {
        // b is 4.9 m from a and c 5.1 m: a's range is 5 m.
        let (world, mut robots) = lab(&[("a", 0.0, "range 5;"), ("b", 4.9, "range 5;"), ("c", -5.1, "")], false);
        let refused = route(&mut robots, &world, &mut Airtime::default(), send(&[("a", &["hello", "over"])]), 10, 0.5);
        assert!(refused.is_empty(), "{refused:?}");
        assert_eq!(heard(&robots, "b"), (pairs(&[("a", "hello"), ("a", "over")]), vec![]));
        assert_eq!(heard(&robots, "c"), (vec![], vec![]), "5.1 m: out of a's 5 m");
        assert_eq!(heard(&robots, "a"), (vec![], vec!["hello".into(), "over".into()]), "a does not hear itself");
        let radio = robots.get("b").unwrap().sensors().iter().find(|s| s.kind() == "Radio").unwrap();
        assert_eq!((radio.last().unwrap().step, radio.last().unwrap().time), (10, 0.5));
    }

    #[test]
    fn only_the_same_channel_hears() {
        let (world, mut robots) = lab(&[("a", 0.0, "channel 2;"), ("b", 1.0, "channel 2;"), ("c", 2.0, "")], false);
        route(&mut robots, &world, &mut Airtime::default(), send(&[("a", &["ping"])]), 5, 0.0);
        assert_eq!(heard(&robots, "b").0, pairs(&[("a", "ping")]));
        assert_eq!(heard(&robots, "c").0, vec![], "c listens on channel 1, the default");
    }

    #[test]
    fn messages_arrive_by_sender_name_then_send_order_within_max_heard() {
        let robots_here = [("zed", 0.0, ""), ("amy", 1.0, ""), ("bob", 2.0, ""), ("ear", 3.0, "max_heard 3;")];
        let (world, mut robots) = lab(&robots_here, false);
        let outgoing = send(&[("zed", &["z1"]), ("bob", &["b1", "b2"]), ("amy", &["a1"])]);
        route(&mut robots, &world, &mut Airtime::default(), outgoing, 5, 0.0);
        // amy, bob, zed: four messages, of which the fourth is past ear's max_heard.
        assert_eq!(heard(&robots, "ear").0, pairs(&[("amy", "a1"), ("bob", "b1"), ("bob", "b2")]));
        assert_eq!(heard(&robots, "amy").0, pairs(&[("bob", "b1"), ("bob", "b2"), ("zed", "z1")]));
    }

    #[test]
    fn max_length_and_the_per_step_limit_hold_at_their_edge() {
        let (world, mut robots) = lab(&[("a", 0.0, "max_length 5;"), ("b", 1.0, "")], false);
        let refused =
            route(&mut robots, &world, &mut Airtime::default(), send(&[("a", &["12345", "123456", "héllo"])]), 5, 0.0);
        // "héllo" is 6 bytes of UTF-8.
        assert_eq!(
            refused,
            vec![
                ("a".into(), RadioError::TooLong { bytes: 6, max: 5 }),
                ("a".into(), RadioError::TooLong { bytes: 6, max: 5 })
            ]
        );
        assert_eq!(heard(&robots, "b").0, pairs(&[("a", "12345")]));
        let many: Vec<String> = (0..MAX_SENT_PER_STEP + 2).map(|i| i.to_string()).collect();
        let refused = route(
            &mut robots,
            &world,
            &mut Airtime::default(),
            BTreeMap::from([("a".to_string(), many.clone())]),
            10,
            0.0,
        );
        assert_eq!(refused, vec![("a".into(), RadioError::TooMany { dropped: 2 })]);
        assert_eq!(heard(&robots, "a").1, many[..MAX_SENT_PER_STEP].to_vec());
    }

    /// Messages of `bytes` bytes each, `count` of them.
    fn messages(count: usize, bytes: usize) -> Vec<String> {
        (0..count).map(|i| format!("{i:0bytes$}")).collect()
    }

    #[test]
    fn a_robot_sends_its_bytes_a_second_exactly_and_is_told_once_when_past_them() {
        let (world, mut robots) = lab(&[("a", 0.0, "max_length 1024;"), ("b", 1.0, "max_heard 64;")], false);
        let mut airtime = Airtime::default();
        // 15 messages of 1,024 bytes and one of 1,023, then 1 byte: exactly the budget.
        let mut first = messages(15, 1024);
        first.push("x".repeat(1023));
        let refused = route(&mut robots, &world, &mut airtime, BTreeMap::from([("a".into(), first.clone())]), 5, 0.2);
        assert!(refused.is_empty(), "{refused:?}");
        assert_eq!(first.iter().map(String::len).sum::<usize>(), MAX_SENT_BYTES_PER_SEC - 1);
        let refused = route(&mut robots, &world, &mut airtime, send(&[("a", &["y"])]), 10, 0.4);
        assert!(refused.is_empty(), "the budget's last byte passes: {refused:?}");
        assert_eq!(heard(&robots, "b").0, pairs(&[("a", "y")]));

        // One byte more in the same second: refused, and said once however many follow.
        let refused = route(&mut robots, &world, &mut airtime, send(&[("a", &["z", "z"])]), 15, 0.6);
        assert_eq!(refused, vec![("a".into(), RadioError::OverBudget { sent: MAX_SENT_BYTES_PER_SEC })]);
        assert_eq!(heard(&robots, "b").0, vec![]);
        assert_eq!(heard(&robots, "a").1, Vec::<String>::new(), "nothing left");
        let refused = route(&mut robots, &world, &mut airtime, send(&[("a", &["z"])]), 20, 0.999_999_9);
        assert!(refused.is_empty(), "told once a second: {refused:?}");
        assert_eq!(heard(&robots, "b").0, vec![]);

        // The next second of simulation time (1.0 as 240 steps of 1/240 s land it) starts afresh.
        let time = 240.0 * (1.0 / 240.0);
        let again = messages(16, 1024);
        let refused = route(&mut robots, &world, &mut airtime, BTreeMap::from([("a".into(), again)]), 240, time);
        assert!(refused.is_empty(), "{refused:?}");
        assert_eq!(heard(&robots, "b").0.len(), 16);
        let refused = route(&mut robots, &world, &mut airtime, send(&[("a", &["z"])]), 245, time + 0.02);
        assert_eq!(refused, vec![("a".into(), RadioError::OverBudget { sent: MAX_SENT_BYTES_PER_SEC })]);
    }

    #[test]
    fn one_robot_past_its_budget_leaves_the_others_theirs() {
        let (world, mut robots) =
            lab(&[("a", 0.0, "max_length 1024;"), ("b", 1.0, "max_length 1024;"), ("c", 2.0, "")], false);
        let mut airtime = Airtime::default();
        let full = messages(16, 1024);
        route(&mut robots, &world, &mut airtime, BTreeMap::from([("a".into(), full)]), 5, 0.0);
        let outgoing = BTreeMap::from([("a".into(), vec!["more".into()]), ("b".into(), vec!["hi".into()])]);
        let refused = route(&mut robots, &world, &mut airtime, outgoing, 10, 0.02);
        assert_eq!(refused, vec![("a".into(), RadioError::OverBudget { sent: MAX_SENT_BYTES_PER_SEC })]);
        assert_eq!(heard(&robots, "c").0, pairs(&[("b", "hi")]));
    }

    #[test]
    fn refused_messages_cost_nothing() {
        let (world, mut robots) = lab(&[("a", 0.0, "max_length 8;"), ("b", 1.0, "")], false);
        let mut airtime = Airtime::default();
        let too_long = vec!["x".repeat(9); 16];
        route(&mut robots, &world, &mut airtime, BTreeMap::from([("a".into(), too_long)]), 5, 0.0);
        assert_eq!(airtime.by_robot.get("a").map_or(0, |spent| spent.bytes), 0);
        let too_many = messages(MAX_SENT_PER_STEP + 4, 8);
        route(&mut robots, &world, &mut airtime, BTreeMap::from([("a".into(), too_many)]), 10, 0.0);
        assert_eq!(airtime.by_robot["a"].bytes, 8 * MAX_SENT_PER_STEP);
    }

    #[test]
    fn a_wall_blocks_a_line_of_sight_radio_only() {
        let (world, mut robots) =
            lab(&[("a", 1.0, "line_of_sight true;"), ("b", 5.0, ""), ("c", 2.0, ""), ("d", 0.0, "")], true);
        route(&mut robots, &world, &mut Airtime::default(), send(&[("a", &["x"])]), 5, 0.0);
        assert_eq!(heard(&robots, "b").0, vec![], "the wall at x = 3 stands between a and b");
        assert_eq!(heard(&robots, "c").0, pairs(&[("a", "x")]), "nothing between a and c");
        assert_eq!(heard(&robots, "d").0, pairs(&[("a", "x")]));
        route(&mut robots, &world, &mut Airtime::default(), send(&[("b", &["y"])]), 10, 0.0);
        assert_eq!(heard(&robots, "a").0, pairs(&[("b", "y")]), "b's radio needs no line of sight");
    }

    #[test]
    fn a_robot_without_a_radio_sends_nothing() {
        let (world, mut robots) = lab(&[("a", 0.0, ""), ("mute", 1.0, "-")], false);
        let refused = route(&mut robots, &world, &mut Airtime::default(), send(&[("mute", &["hi"])]), 5, 0.0);
        assert_eq!(refused, vec![("mute".into(), RadioError::NoRadio { count: 1 })]);
        assert_eq!(heard(&robots, "a").0, vec![]);
    }
}
