//! Challenges (docs/challenges.md): the model each event, combination and score builds,
//! names resolved to the scene's indices, `random` in `start` drawn from the seed, and
//! every mistake at its place.

use crate::common;

use common::{error, run};
use vlab_scene::{
    ChallengeModel, Comparison, Condition, Event, MapLoader, Options, ScoreRule, Touchable, ZoneShape, interpret,
};

/// A room (bodies #0 floor, #1-#4 walls, #5 ceiling), a crate (#6), a static ramp (#7),
/// a container `fence` of two posts (#8, #9) and a robot `bot` (#10).
const SCENE: &str = "environment room { width 10; length 10; }
crate1 { shape box(0.4, 0.4, 0.4); pos(6, 0.2, 6); }
static ramp { shape box(1, 0.2, 1); pos(3, 0.1, 3); }
container fence {
  static post_a { shape cylinder(0.05, 1); pos(8, 0.5, 1); }
  static post_b { shape cylinder(0.05, 1); pos(8, 0.5, 2); }
}
robot bot { body { chassis { shape box(0.2, 0.1, 0.2); pos(1, 0.05, 1); } } }
";

/// The challenge of `SCENE` plus `challenge`.
fn challenge_of(challenge: &str) -> ChallengeModel {
    run(&format!("{SCENE}{challenge}")).model.challenge.expect("the scene sets a challenge")
}

/// The condition of `success <condition>;` in a challenge with the zones `bay` (#0) and
/// `ring` (#1).
fn success(condition: &str) -> Condition {
    challenge_of(&format!(
        "challenge \"c\" {{ time_limit 60;\n zone bay {{ box(1, 0.1, 1); pos(9, 0, 9); }}\n zone ring {{ cylinder(1, 0.1); pos(5, 0, 5); }}\n success {condition}; }}"
    ))
    .success
}

fn event(event: Event) -> Condition {
    Condition::Event(event)
}

fn boxed(condition: Condition) -> Box<Condition> {
    Box::new(condition)
}

#[test]
fn a_challenge_keeps_its_title_time_limit_zones_and_start() {
    let challenge = challenge_of(
        "challenge \"Park in the green bay\" {
          time_limit 60;
          zone bay { box(1.2, 0.05, 0.8); pos(9, 0, 3); color \"Green\"; }
          zone ring { cylinder(0.5, 0.2); pos(2, 0, 2); rotation_axis(0, 1, 0, pi / 2); }
          start { pos(1.5, 0.1, 2); heading 90; }
          success inside(bay);
        }",
    );
    assert_eq!(challenge.title, "Park in the green bay");
    assert_eq!(challenge.time_limit_secs, 60.0);
    let bay = &challenge.zones[0];
    assert_eq!((bay.name.as_str(), bay.material.name.as_str()), ("bay", "Green"));
    assert_eq!(bay.shape, ZoneShape::Box { half_extents: [0.6, 0.025, 0.4] });
    assert_eq!(bay.pose.position, [9.0, 0.0, 3.0]);
    let ring = &challenge.zones[1];
    assert_eq!(ring.shape, ZoneShape::Cylinder { radius: 0.5, half_height: 0.1 });
    assert!((ring.pose.rotation[1] - (std::f32::consts::FRAC_PI_4).sin()).abs() < 1e-6, "turned about Y");
    let start = challenge.start.expect("a start");
    assert_eq!((start.position, start.heading_deg), ([1.5, 0.1, 2.0], 90.0));
    assert_eq!((challenge.failure, challenge.score), (None, ScoreRule::Time));
    assert!(challenge.goals.is_empty() && challenge.points.is_empty());
}

#[test]
fn a_scene_without_a_challenge_has_none() {
    assert_eq!(run(SCENE).model.challenge, None);
}

#[test]
fn zone_events_name_their_zone_by_index() {
    assert_eq!(success("entered(bay)"), event(Event::Entered { zone: 0 }));
    assert_eq!(success("left(ring)"), event(Event::Left { zone: 1 }));
    assert_eq!(success("inside(ring)"), event(Event::Inside { zone: 1 }));
    assert_eq!(success("stopped_in(bay, 1.5)"), event(Event::StoppedIn { zone: 0, secs: 1.5 }));
}

#[test]
fn touched_names_a_body_a_container_a_robot_the_floor_or_the_walls() {
    assert_eq!(success("touched(crate1)"), event(Event::Touched(Touchable::Body(6))));
    assert_eq!(success("touched(floor)"), event(Event::Touched(Touchable::Body(0))));
    let group = |name: &str, bodies: Vec<usize>| event(Event::Touched(Touchable::Group { name: name.into(), bodies }));
    assert_eq!(success("touched(walls)"), group("walls", vec![1, 2, 3, 4]));
    assert_eq!(success("touched(fence)"), group("fence", vec![8, 9]));
    assert_eq!(success("touched(bot)"), group("bot", vec![10]));
    assert_eq!(success("touched(post_b)"), event(Event::Touched(Touchable::Body(9))));
}

#[test]
fn pushed_into_names_an_object_and_a_zone() {
    assert_eq!(success("pushed_into(crate1, ring)"), event(Event::PushedInto { body: 6, zone: 1 }));
}

#[test]
fn events_of_the_robot_alone() {
    assert_eq!(success("fell()"), event(Event::Fell));
    assert_eq!(success("flipped()"), event(Event::Flipped));
    assert_eq!(success("no_progress(10)"), event(Event::NoProgress { secs: 10.0 }));
}

#[test]
fn sensor_and_time_compare_with_a_number() {
    let sensor = |comparison, value| event(Event::Sensor { name: "front".into(), comparison, value });
    assert_eq!(success("sensor(front) < 0.3"), sensor(Comparison::Less, 0.3));
    assert_eq!(success("sensor(front) <= 0.3"), sensor(Comparison::LessOrEqual, 0.3));
    assert_eq!(success("sensor(front) > 2 * 0.5"), sensor(Comparison::Greater, 1.0));
    assert_eq!(success("sensor(front) == 1"), sensor(Comparison::Equal, 1.0));
    // The sensor keeps its name as written: the robot's are checked when an attempt starts.
    assert_eq!(
        success("sensor(Lidar_Front) >= -1"),
        event(Event::Sensor { name: "Lidar_Front".into(), comparison: Comparison::GreaterOrEqual, value: -1.0 })
    );
    assert_eq!(success("time() >= 30"), event(Event::Time { comparison: Comparison::GreaterOrEqual, secs: 30.0 }));
}

#[test]
fn each_combination_builds_its_node() {
    let (bay, ring) = (event(Event::Inside { zone: 0 }), event(Event::Inside { zone: 1 }));
    assert_eq!(success("inside(bay) and inside(ring)"), Condition::And(boxed(bay.clone()), boxed(ring.clone())));
    assert_eq!(success("inside(bay) or inside(ring)"), Condition::Or(boxed(bay.clone()), boxed(ring.clone())));
    assert_eq!(success("not inside(bay)"), Condition::Not(boxed(bay.clone())));
    assert_eq!(success("inside(bay) then inside(ring)"), Condition::Then(boxed(bay.clone()), boxed(ring.clone())));
    assert_eq!(success("once(inside(bay))"), Condition::Once(boxed(bay.clone())));
    // The language's own operators mean the same, and the words take any case.
    assert_eq!(success("inside(bay) && !inside(ring)"), success("inside(bay) AND Not inside(ring)"));
    assert_eq!(success("inside(bay) || inside(ring)"), success("INSIDE(bay) Or inside(ring)"));
}

#[test]
fn then_is_loosest_then_or_then_and_then_not() {
    let zone = |zone| event(Event::Inside { zone });
    let fell = event(Event::Fell);
    let expected = Condition::Then(
        boxed(Condition::Or(
            boxed(zone(0)),
            boxed(Condition::And(boxed(zone(1)), boxed(Condition::Not(boxed(fell.clone()))))),
        )),
        boxed(Condition::Once(boxed(zone(0)))),
    );
    assert_eq!(success("inside(bay) or inside(ring) and not fell() then once(inside(bay))"), expected);
    let grouped = Condition::And(boxed(Condition::Or(boxed(zone(0)), boxed(zone(1)))), boxed(fell));
    assert_eq!(success("(inside(bay) or inside(ring)) and fell()"), grouped);
    // Each level groups to the left.
    let chain = Condition::Then(boxed(Condition::Then(boxed(zone(0)), boxed(zone(1)))), boxed(event(Event::Flipped)));
    assert_eq!(success("inside(bay) then inside(ring) then flipped()"), chain);
}

#[test]
fn failure_goals_and_points_keep_their_conditions() {
    let challenge = challenge_of(
        "challenge \"c\" {
          time_limit 30;
          zone bay { box(1, 0.1, 1); pos(9, 0, 9); }
          success inside(bay);
          failure touched(walls) or fell();
          goal \"reach the bay\" entered(bay);
          goal \"no falls\" not fell();
          points 10 when entered(bay);
          points -2.5 when touched(crate1);
          score time;
        }",
    );
    let walls = Touchable::Group { name: "walls".into(), bodies: vec![1, 2, 3, 4] };
    let failure = Condition::Or(boxed(event(Event::Touched(walls))), boxed(event(Event::Fell)));
    assert_eq!(challenge.failure, Some(failure));
    assert_eq!(
        challenge.goals,
        vec![
            ("reach the bay".to_owned(), event(Event::Entered { zone: 0 })),
            ("no falls".to_owned(), Condition::Not(boxed(event(Event::Fell)))),
        ]
    );
    assert_eq!(
        challenge.points,
        vec![(10.0, event(Event::Entered { zone: 0 })), (-2.5, event(Event::Touched(Touchable::Body(6))))]
    );
}

/// The score of a challenge with the zones `bay` and `ring`, a goal and points.
fn score_of(score: &str) -> ScoreRule {
    challenge_of(&format!(
        "challenge \"c\" {{ time_limit 60; zone bay {{ box(1, 1, 1); }} zone ring {{ box(1, 1, 1); }}
          success inside(bay); goal \"g\" inside(ring); points 1 when fell(); {score} }}"
    ))
    .score
}

#[test]
fn each_score_is_its_rule() {
    assert_eq!(score_of(""), ScoreRule::Time, "time by default");
    assert_eq!(score_of("score time;"), ScoreRule::Time);
    assert_eq!(score_of("score distance(ring);"), ScoreRule::Distance { zone: 1 });
    assert_eq!(score_of("score percent;"), ScoreRule::Percent);
    assert_eq!(score_of("score points;"), ScoreRule::Points);
    assert_eq!(score_of("SCORE Percent;"), ScoreRule::Percent);
}

#[test]
fn variables_loops_and_computed_names_work_in_a_challenge() {
    let challenge = challenge_of(
        "num limit = 45;
        challenge \"Three bays\" {
          time_limit limit + 15;
          for i in {0>3} {
            zone id:[\"bay_\" . string(i)] { box(1, 0.1, 1); pos(2 + 2 * i, 0, 8); }
            points 10 * (i + 1) when inside(\"bay_\" . string(i));
          }
          success inside(\"bay_\" . string(2)) or touched(\"crate\" . string(1));
        }",
    );
    assert_eq!(challenge.time_limit_secs, 60.0);
    let names: Vec<&str> = challenge.zones.iter().map(|zone| zone.name.as_str()).collect();
    assert_eq!(names, ["bay_0", "bay_1", "bay_2"]);
    assert_eq!(challenge.zones[2].pose.position, [6.0, 0.0, 8.0]);
    let points: Vec<f64> = challenge.points.iter().map(|(points, _)| *points).collect();
    assert_eq!(points, [10.0, 20.0, 30.0]);
    assert_eq!(challenge.points[1].1, event(Event::Inside { zone: 1 }));
    assert_eq!(
        challenge.success,
        Condition::Or(boxed(event(Event::Inside { zone: 2 })), boxed(event(Event::Touched(Touchable::Body(6)))))
    );
}

#[test]
fn a_challenge_may_name_objects_declared_after_it() {
    let model = run("challenge \"c\" { time_limit 10; success touched(late); }\nlate { shape sphere(0.1); }").model;
    let late = model.body_index("late").unwrap();
    assert_eq!(model.challenge.unwrap().success, event(Event::Touched(Touchable::Body(late))));
}

/// Where `random` puts the start with `seed`.
fn start_with_seed(seed: u64) -> ([f32; 3], f32) {
    let scene = "challenge \"c\" { time_limit 10; success fell();
      start { pos(random(1, 3), 0.1, random(1, 11)); heading random(0, 360); } }";
    let options = Options { seed, ..Options::default() };
    let model = interpret(scene, "main.vlab", &MapLoader::new(), &options).unwrap().model;
    let start = model.challenge.unwrap().start.unwrap();
    (start.position, start.heading_deg)
}

#[test]
fn random_in_start_draws_from_the_seed() {
    assert_eq!(start_with_seed(7), start_with_seed(7), "the same seed gives the same start");
    let starts: Vec<([f32; 3], f32)> = (0..4).map(start_with_seed).collect();
    for (i, a) in starts.iter().enumerate() {
        for b in &starts[i + 1..] {
            assert_ne!(a, b, "different seeds give different starts");
        }
    }
    for (position, heading) in starts {
        assert!((1.0..3.0).contains(&position[0]) && (1.0..11.0).contains(&position[2]), "{position:?}");
        assert!((0.0..360.0).contains(&heading), "{heading}");
    }
}

#[test]
fn challenge_words_stay_free_names_elsewhere() {
    let model = run("num score = 1; num points = 2; zone { shape box(1, 1, 1); } start { shape sphere(1); }\n\
         string success = \"yes\"; print_num score + points;")
    .model;
    assert!(model.body_index("zone").is_some() && model.body_index("start").is_some());
    assert_eq!(model.challenge, None);
}

// ---- mistakes, each at its place ---------------------------------------------------------

/// The error of a challenge of `SCENE` whose block is `body` (line 10 is the block's first).
fn challenge_error(body: &str) -> String {
    error(&format!("{SCENE}challenge \"c\" {{\n{body}\n}}"))
}

#[test]
fn unknown_names_say_which_there_are() {
    assert_eq!(
        challenge_error("time_limit 10; zone bay { box(1, 1, 1); }\nsuccess entered(bey);"),
        "main.vlab:11:17: unknown zone 'bey' in entered(...) (the challenge's zones: bay)"
    );
    assert_eq!(
        challenge_error("time_limit 10;\nsuccess inside(bay);"),
        "main.vlab:11:16: unknown zone 'bay' in inside(...) (the challenge declares no zone: add zone <name> { box(...); pos(...); })"
    );
    assert_eq!(
        challenge_error("time_limit 10;\nsuccess fell(); failure fell() or touched(crate);"),
        "main.vlab:11:43: unknown body or group 'crate' in touched(...) (the scene has crate1, ramp, post_a, post_b, fence, bot, floor, walls)"
    );
    assert_eq!(
        challenge_error("time_limit 10; zone bay { box(1, 1, 1); }\nsuccess fell(); score distance(bey);"),
        "main.vlab:11:32: unknown zone 'bey' in score distance(...) (the challenge's zones: bay)"
    );
}

#[test]
fn a_zone_declared_twice_is_refused_at_the_second() {
    assert_eq!(
        challenge_error("time_limit 10; zone bay { box(1, 1, 1); }\n  zone bay { box(2, 1, 1); } success fell();"),
        "main.vlab:11:3: the zone 'bay' is already declared at main.vlab:10:16"
    );
}

#[test]
fn an_unknown_event_lists_the_events() {
    assert_eq!(
        challenge_error("time_limit 10;\nsuccess fell() or arrived(bay);"),
        "main.vlab:11:19: unknown event 'arrived': the events are entered(zone), left(zone), inside(zone), stopped_in(zone, seconds), touched(body or group), pushed_into(object, zone), fell(), flipped(), no_progress(seconds), sensor(name) < number, time() >= number"
    );
}

#[test]
fn wrong_arguments_are_refused_at_the_event_or_the_argument() {
    let zone = "time_limit 10; zone bay { box(1, 1, 1); }\n";
    assert_eq!(
        challenge_error(&format!("{zone}success entered(bay, 2);")),
        "main.vlab:11:9: entered takes 1 value(s), not 2: entered(zone)"
    );
    assert_eq!(
        challenge_error(&format!("{zone}success fell(1);")),
        "main.vlab:11:9: fell takes 0 value(s), not 1: fell()"
    );
    assert_eq!(
        challenge_error(&format!("{zone}success entered(3);")),
        "main.vlab:11:17: entered(zone) takes a zone's name here, not a num"
    );
    assert_eq!(
        challenge_error(&format!("{zone}success stopped_in(bay, \"long\");")),
        "main.vlab:11:25: the seconds of stopped_in must be a num, not a string"
    );
    assert_eq!(
        challenge_error(&format!("{zone}success no_progress(-1);")),
        "main.vlab:11:21: the seconds of no_progress must be positive, got -1"
    );
    assert_eq!(
        challenge_error(&format!("{zone}success sensor(front);")),
        "main.vlab:11:9: sensor is a number: compare it, as in sensor(name) < number"
    );
    assert_eq!(
        challenge_error(&format!("{zone}success inside(bay) > 1;")),
        "main.vlab:11:21: inside(zone) is true or false: only sensor(...) and time() are compared with a number"
    );
    assert_eq!(
        challenge_error(&format!("{zone}success time() != 3;")),
        "main.vlab:11:16: time compares with <, <=, >, >= or ==, not !="
    );
    assert_eq!(
        challenge_error(&format!("{zone}success pushed_into(ramp, bay);")),
        "main.vlab:11:21: 'ramp' is static: nothing can push it into a zone"
    );
    assert_eq!(
        challenge_error(&format!("{zone}success pushed_into(fence, bay);")),
        "main.vlab:11:21: 'fence' is a container: pushed_into(...) takes one object"
    );
}

#[test]
fn what_a_challenge_needs_is_asked_for_at_the_challenge() {
    assert_eq!(
        challenge_error("time_limit 10;"),
        "main.vlab:9:1: the challenge \"c\" has no success: add success <condition>; (for example success inside(zone);)"
    );
    assert_eq!(
        challenge_error("success fell();"),
        "main.vlab:9:1: the challenge \"c\" has no time_limit: add time_limit <seconds>; (at most 3600)"
    );
    assert_eq!(
        challenge_error("time_limit 10; success fell();\n  score percent;"),
        "main.vlab:11:3: score percent counts goals reached: add at least one goal \"name\" <condition>;"
    );
    assert_eq!(
        challenge_error("time_limit 10; success fell();\n  score points;"),
        "main.vlab:11:3: score points adds up points: add at least one points <number> when <condition>;"
    );
    assert_eq!(
        challenge_error("time_limit 10; success fell();\n  score speed;"),
        "main.vlab:11:9: unknown score 'speed': use time, distance(zone), percent or points"
    );
}

#[test]
fn time_limits_and_statements_said_twice_are_refused() {
    assert_eq!(
        challenge_error("time_limit 0; success fell();"),
        "main.vlab:10:12: time_limit must be more than 0 and at most 3600 seconds, got 0"
    );
    assert_eq!(
        challenge_error("time_limit 4000; success fell();"),
        "main.vlab:10:12: time_limit must be more than 0 and at most 3600 seconds, got 4000"
    );
    assert_eq!(
        challenge_error("time_limit 10; success fell();\n  success flipped();"),
        "main.vlab:11:3: the challenge already has a success at main.vlab:10:16"
    );
    assert_eq!(
        challenge_error("time_limit 10; success fell(); goal \"g\" fell();\n  goal \"g\" flipped();"),
        "main.vlab:11:3: the goal \"g\" is already declared at main.vlab:10:32"
    );
}

#[test]
fn zones_and_starts_say_what_they_miss() {
    assert_eq!(
        challenge_error("time_limit 10; success fell();\n  zone ball { sphere(1); }"),
        "main.vlab:11:15: a zone is a box(width, height, length) or a cylinder(radius, height), not a sphere"
    );
    assert_eq!(
        challenge_error("time_limit 10; success fell();\n  zone bay { pos(1, 0, 1); }"),
        "main.vlab:11:3: the zone 'bay' has no shape: add box(width, height, length) or cylinder(radius, height)"
    );
    assert_eq!(
        challenge_error("time_limit 10; success fell();\n  start { heading 90; }"),
        "main.vlab:11:3: start needs pos(x, y, z): where robots start"
    );
    assert_eq!(
        challenge_error("time_limit 10; success fell();\n  heading 90;"),
        "main.vlab:11:3: heading belongs inside start { ... } of a challenge"
    );
}

#[test]
fn a_challenge_belongs_at_the_top_level_once() {
    let challenge = "challenge \"c\" { time_limit 10; success fell(); }";
    assert_eq!(
        error(&format!("a {{ shape box(1, 1, 1);\n  {challenge} }}")),
        "main.vlab:2:3: a challenge belongs at the top level of the scene, not inside an object, robot or container"
    );
    assert_eq!(
        error(&format!("robot r {{ body {{ b {{ shape box(1, 1, 1); }} }}\n  {challenge} }}")),
        "main.vlab:2:3: a challenge belongs at the top level of the scene, not inside an object, robot or container"
    );
    assert_eq!(
        error(&format!("{challenge}\n{challenge}")),
        "main.vlab:2:1: a scene sets one challenge, and it already has \"c\" at main.vlab:1:1"
    );
}

#[test]
fn nothing_solid_is_declared_inside_a_challenge() {
    assert_eq!(
        challenge_error("time_limit 10; success fell();\n  zone bay { box(1, 1, 1); wall { shape box(1, 1, 1); } }"),
        "main.vlab:11:28: the object 'wall' cannot be declared inside a challenge: declare it before or after"
    );
    assert_eq!(
        challenge_error("time_limit 10; success fell();\n  crate2 { shape box(1, 1, 1); }"),
        "main.vlab:11:3: the object 'crate2' cannot be declared inside a challenge: declare it before or after"
    );
    assert_eq!(
        challenge_error("time_limit 10; success fell();\n  JointFixed(crate1, ramp);"),
        "main.vlab:11:3: JointFixed cannot be declared inside a challenge"
    );
}

#[test]
fn challenge_statements_belong_inside_a_challenge() {
    assert_eq!(
        error("num x = 1;\nsuccess fell();"),
        "main.vlab:2:1: success belongs inside a challenge \"...\" { ... }"
    );
    assert_eq!(error("time_limit 60;"), "main.vlab:1:1: time_limit belongs inside a challenge \"...\" { ... }");
    assert_eq!(
        error("a { shape box(1, 1, 1); color \"Green\"; }"),
        "main.vlab:1:25: color belongs inside a zone of a challenge"
    );
}
