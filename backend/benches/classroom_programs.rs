//! `cargo bench -p vlab-server --bench classroom_programs` (part of `cargo xtask bench`):
//! the classroom of scenes/classroom.vlab (30 diffbots with 180-beam lidars, 200 props)
//! with every robot driven by its own sandboxed Python program, as a lockstep lab runs
//! them (every answer waited for): once with the exchange of earlier versions (readings
//! out and answers in at the same control step, the lab's thread idle while programs
//! compute) and once pipelined (answers collected one control step later, the physics
//! stepping meanwhile). How long a step takes with and without the programs, what the
//! exchange costs the lab's thread per control step (its wall time, and the part of it
//! the thread spent working rather than waiting for answers: its CPU clock), the
//! programs' own CPU per robot per control step and how long they stood runnable
//! without a core (the scheduler's counts), and the real-time factor of each. The
//! pipelined exchange runs twice: with programs on every CPU, then kept off the CPU the
//! server leaves to the labs' threads (`controller::placement`, the server's default).
//!
//! Prints figures rather than asserting them: timings are for reading, not for tests.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use vlab_protocol::SyncMode;
use vlab_server::controller::ProgramCode;
use vlab_server::controller::placement::{self, ProgramCpus};
use vlab_server::lab::programs::{Exchange, Programs, Tick};
use vlab_server::robot::Robots;
use vlab_server::sim::World;

/// Seconds of simulation before timing: the props settle and the robots spin up.
const WARM_UP_SECS: f64 = 1.0;
/// Seconds of simulation timed.
const TIMED_SECS: f64 = 10.0;

fn main() {
    println!(
        "VLab bench: classroom with programs, every robot of scenes/classroom.vlab running its own Python program"
    );
    // The exchange of earlier versions first (readings out and answers in at the same
    // control step), then the pipelined one with programs on every CPU, then as the
    // server runs them (off the CPU the labs' threads keep): the same run, one machine.
    for (label, exchange, cpus) in [
        ("same-step exchange (before)", Exchange::SameStep, ProgramCpus::All),
        ("pipelined exchange, programs on every CPU (before)", Exchange::Pipelined, ProgramCpus::All),
        ("pipelined exchange, programs off the labs' CPU (now)", Exchange::Pipelined, ProgramCpus::Auto),
    ] {
        let on = placement::set_program_cpus(cpus).expect("every CPU and auto fit any machine");
        println!(
            "{label}: programs on CPUs {} of {}",
            placement::cpu_list(&on),
            placement::cpu_list(&placement::allowed_cpus())
        );
        if !run(label, exchange) {
            return;
        }
    }
}

/// Runs the classroom with `exchange` in lockstep; `false` when programs cannot run here.
fn run(label: &str, exchange: Exchange) -> bool {
    let model = common::classroom();
    let dt = model.dt_secs;
    let mut world = World::build(&model).expect("the classroom builds");
    let mut robots = Robots::configure(&model, 1).expect("the classroom's robots configure");
    robots.install(&mut world, 0, 0.0);
    let names: Vec<String> = robots.all().iter().map(|r| r.name().to_owned()).collect();
    let (console, _) = tokio::sync::broadcast::channel(1024);
    let mut programs = Programs::new(1, dt, console).with_exchange(exchange);
    let code = Arc::new(ProgramCode::python("main.py", [("main.py".to_owned(), common::WANDERER.to_owned())].into()));
    let started = Instant::now();
    for name in &names {
        programs.start(name, &mut robots, Arc::clone(&code), dt, 0);
    }
    while programs.poll_started(&mut robots, 0, dt) {
        std::thread::sleep(Duration::from_millis(2));
    }
    let first = robots.all()[0].program().clone();
    if first.state != vlab_protocol::ProgramState::Running {
        println!("classroom_programs: not run: {}", first.message.unwrap_or_default());
        return false;
    }
    println!(
        "{label}: {} robots, programs started in {:.0} ms, lockstep (every answer waited for)",
        names.len(),
        started.elapsed().as_secs_f64() * 1e3
    );

    let mut step = 0u64;
    // The thread's CPU clock is read on control steps only: each read is a system call,
    // kept out of the other steps' timings.
    let period = programs.control_period();
    let mut one_step = |world: &mut World, robots: &mut Robots, programs: &mut Programs| -> (u64, [Duration; 4]) {
        let control = (step + 1).is_multiple_of(period);
        let cpu = || if control { thread_cpu() } else { Duration::ZERO };
        let (started, cpu_started) = (Instant::now(), cpu());
        programs.pre_step(robots, step, dt);
        let (commanded, cpu_commanded) = (Instant::now(), cpu());
        robots.apply_actuators(world);
        world.step();
        step += 1;
        robots.update_sensors(world, step, step as f64 * dt);
        let (simulated, cpu_simulated) = (Instant::now(), cpu());
        programs.post_step(robots, world, Tick { step, dt_secs: dt, sync: SyncMode::Lockstep, wall_per_sim: 1.0 });
        let answered = Instant::now();
        let worked = (cpu_commanded - cpu_started) + (cpu() - cpu_simulated);
        (step, [commanded - started, simulated - commanded, answered - simulated, worked])
    };
    for _ in 0..(WARM_UP_SECS / dt) as usize {
        one_step(&mut world, &mut robots, &mut programs);
    }
    let steps = (TIMED_SECS / dt) as usize;
    let (mut simulation, mut exchanges, mut full) = (Vec::new(), Vec::new(), Vec::with_capacity(steps));
    let mut working = Vec::new();
    let programs_at_start = children_schedstat();
    let lab_at_start = own_schedstat();
    let wall = Instant::now();
    for _ in 0..steps {
        let (at, [pre, sim, post, worked]) = one_step(&mut world, &mut robots, &mut programs);
        simulation.push(sim);
        if at.is_multiple_of(period) {
            exchanges.push(pre + post);
            working.push(worked);
        }
        full.push(pre + sim + post);
    }
    let wall = wall.elapsed();
    let programs = children_schedstat().since(programs_at_start);
    let lab = own_schedstat().since(lab_at_start);
    let stopped = robots.all().iter().filter(|r| r.program().state != vlab_protocol::ProgramState::Running).count();
    println!(
        "  {steps} steps ({TIMED_SECS} s of simulation) after {WARM_UP_SECS} s of warm-up, {stopped} programs stopped:"
    );
    // What the lab's thread cannot hand to another core: its physics, actuators and
    // sensors, and its own work in the exchange. The whole step can come no closer.
    let own_work = simulation.iter().chain(&working).sum::<Duration>().as_secs_f64() * 1e6 / steps as f64;
    common::report_steps("  physics + actuators + sensors        ", &mut simulation, dt);
    common::report_steps("  + the programs (whole step)          ", &mut full, dt);
    let per_robot = |samples: &mut Vec<Duration>| common::summarize(samples, names.len() as u32);
    let exchange = common::summarize(&mut exchanges.clone(), 1);
    let robot = per_robot(&mut exchanges);
    let work = per_robot(&mut working);
    println!(
        "  lab's thread in the exchange per control step: mean {:.1} µs, p50 {:.1} µs, p99 {:.1} µs; per robot mean {:.1} µs",
        exchange.mean, exchange.p50, exchange.p99, robot.mean
    );
    println!(
        "  of which working (its CPU clock) per robot mean {:.1} µs, waiting for answers {:.1} µs",
        work.mean,
        robot.mean - work.mean
    );
    let per_robot_step = |time: Duration| time.as_secs_f64() * 1e6 / (working.len() * names.len()).max(1) as f64;
    println!(
        "  the programs' own CPU per robot per control step: {:.1} µs; runnable but waiting for a core: {:.1} µs",
        per_robot_step(programs.ran),
        per_robot_step(programs.waited)
    );
    println!(
        "  the lab's thread's own work (physics + actuators + sensors as timed above, and its CPU in the exchange): {own_work:.1} µs a step, {:.1}× real time if it never waited",
        dt * 1e6 / own_work
    );
    println!(
        "  the lab's thread waited for a core {:.1} µs per step ({:.1} % of the wall time)",
        lab.waited.as_secs_f64() * 1e6 / steps as f64,
        100.0 * lab.waited.as_secs_f64() / wall.as_secs_f64()
    );
    println!(
        "  {label}: wall time {:.2} s for {TIMED_SECS} s of simulation: {:.1}× real time",
        wall.as_secs_f64(),
        TIMED_SECS / wall.as_secs_f64()
    );
    let pose = robots.report(&names[0], &world, 0, 0.0).expect("a robot").pose.position;
    println!("  (robot {} ended at {pose:.2?})", names[0]);
    true
}

/// What the scheduler counted for some tasks (`/proc/<pid>/schedstat`): time run on
/// a core and time spent runnable, waiting for one.
#[derive(Clone, Copy, Default)]
struct Schedstat {
    ran: Duration,
    waited: Duration,
}

impl Schedstat {
    fn read(path: &std::path::Path) -> Schedstat {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        let mut fields = text.split_whitespace().map(|field| Duration::from_nanos(field.parse().unwrap_or(0)));
        Schedstat { ran: fields.next().unwrap_or_default(), waited: fields.next().unwrap_or_default() }
    }

    fn since(self, start: Schedstat) -> Schedstat {
        Schedstat { ran: self.ran.saturating_sub(start.ran), waited: self.waited.saturating_sub(start.waited) }
    }
}

/// The processes this one started (the programs), summed; zero where there are none.
fn children_schedstat() -> Schedstat {
    let me = std::process::id().to_string();
    let Ok(entries) = std::fs::read_dir("/proc") else { return Schedstat::default() };
    let mut total = Schedstat::default();
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(stat) = std::fs::read_to_string(path.join("stat")) else { continue };
        // The parent's pid is the second field after the command's closing parenthesis.
        let parent = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(1));
        if parent != Some(me.as_str()) {
            continue;
        }
        let child = Schedstat::read(&path.join("schedstat"));
        total.ran += child.ran;
        total.waited += child.waited;
    }
    total
}

/// The calling thread (the lab's).
fn own_schedstat() -> Schedstat {
    Schedstat::read(std::path::Path::new("/proc/thread-self/schedstat"))
}

/// The CPU time of the calling thread.
fn thread_cpu() -> Duration {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID).map(Duration::from).unwrap_or_default()
}
