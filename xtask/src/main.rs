//! VLab's build helper: builds the browser bundle, runs the server, the tests and the benches.
//!
//! `cargo xtask <command>` (the alias lives in `.cargo/config.toml`). Everything a fresh
//! machine needs is installed here, by the command that needs it, so the README's two
//! commands work on a new clone: `cargo xtask run` and `cargo xtask test`.

mod cluster;
mod prune;
mod python_client;
mod services;
mod soak;
mod test_all;
mod web;

use anyhow::{Result, bail};
use xtask::{cargo, cargo_command, run, target_dir, workspace_root};

const USAGE: &str = "\
usage: cargo xtask <command>

commands:
  web            build the browser bundle (wasm + JS glue + index.html) into dist/
  run [ARGS..]   build the bundle and the server (release), then `vlab serve ARGS`
                 (default: --addr 127.0.0.1:8080 --db vlab.db)
  test           run every test: unit, integration, and browser (e2e) tests;
                 installs what they need (wasm target, Chromium, npm packages,
                 nats-server, PostgreSQL) and starts throw-away NATS and PostgreSQL
  cluster [--servers N]
                 throw-away NATS and PostgreSQL, and N (default 2, at most 9)
                 `vlab serve --cluster .. --db .. --addr 127.0.0.1:808<i>` on them
  bench          run the benchmarks and print their figures, then the load sweeps:
                 server CPU against viewers (1 to 1000) and against labs (1 to 100)
  load [--viewers 100] [--lab demo] [--seconds 10] [--labs 1] [--server URL [--pid P] [--key K]]
                 N websocket viewers on a lab of a release server (started here, or
                 running at URL): its CPU, the lab's real-time factor, each viewer's
                 bytes and frames per second, frame delays (`cargo xtask load --help`)
  load --sweep   only the load sweeps of `bench`, without the benches
  load --cluster N [--viewers 100] [--seconds 10]
                 N release servers on a throw-away NATS and PostgreSQL: the demo
                 lab's viewers on one server alone, on the lab's server, and split
                 over the others (each server's CPU, frame delays), then a failover
  soak --minutes N [--robots 30]
                 load a release server with a class (robots, programs, viewers,
                 uploads and removals) for N minutes, printing its memory and step
                 rate; fails if its memory keeps growing (docs/operations.md, Soak)
";

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(command) = args.first() else {
        eprint!("{USAGE}");
        std::process::exit(2);
    };
    let rest = &args[1..];
    match command.as_str() {
        "web" => web::build_bundle(web::Bundler::Alone).map(|_| ()),
        "run" => run_server(rest),
        "test" => test_all::run(),
        "cluster" => cluster::run(rest),
        "bench" => {
            cargo(&["bench", "-p", "vlab-server"])?;
            load(&["--sweep".to_owned()])
        }
        "load" => load(rest),
        "soak" => soak::run(rest),
        "help" | "--help" | "-h" => {
            print!("{USAGE}");
            Ok(())
        }
        other => bail!("unknown command `{other}`\n\n{USAGE}"),
    }
}

/// `cargo xtask load ARGS`: the load tool (`vlab-load`), built and run with `ARGS`;
/// with `--cluster`, on a throw-away NATS and PostgreSQL it names to the tool.
fn load(args: &[String]) -> Result<()> {
    let mut command_line = vec!["run", "-p", "vlab-load", "--"];
    command_line.extend(args.iter().map(String::as_str));
    let mut command = cargo_command(&command_line);
    let wants_cluster = args.iter().any(|arg| arg == "--cluster" || arg.starts_with("--cluster="));
    let services = if wants_cluster {
        test_all::ensure_debian_packages(services::PACKAGES)?;
        let services = services::Services::start()?;
        services.create_database(LOAD_DATABASE)?;
        command
            .env("VLAB_LOAD_NATS", services.nats_url())
            .env("VLAB_LOAD_POSTGRES", services.database_url(LOAD_DATABASE));
        Some(services)
    } else {
        None
    };
    let ran = run(&mut command);
    drop(services);
    ran
}

/// The database a `cargo xtask load --cluster` run's servers share.
const LOAD_DATABASE: &str = "vlab_load";

fn run_server(args: &[String]) -> Result<()> {
    // A first run compiles the page and the server from source: minutes on a small
    // machine. Say which part is being built, so a long build never looks like a hang.
    eprintln!("xtask run: [1/3] building the page (WebAssembly; the first time takes several minutes)");
    web::build_bundle(web::Bundler::Alone)?;
    eprintln!("xtask run: [2/3] building the server (release; the first time takes several minutes)");
    cargo(&["build", "--release", "-p", "vlab-server", "--bin", "vlab"])?;
    eprintln!("xtask run: [3/3] starting the server");
    let mut serve_args: Vec<String> = vec!["serve".into()];
    if args.is_empty() {
        serve_args.extend(["--addr", "127.0.0.1:8080", "--db", "vlab.db"].map(String::from));
    } else {
        serve_args.extend(args.iter().cloned());
    }
    let mut command_line = vec!["run", "--release", "-p", "vlab-server", "--bin", "vlab", "--"];
    command_line.extend(serve_args.iter().map(String::as_str));
    cargo(&command_line)
}
