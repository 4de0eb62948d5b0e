//! `vlab`: the VLab server binary. Parses the command line, opens the store and the
//! demo lab, and serves HTTP and websockets until interrupted.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::{Parser, Subcommand};
use rand::Rng;
use tracing_subscriber::EnvFilter;
use vlab_backend::lab::Labs;
use vlab_backend::net::{self, AppState, classroom, scene_upload};
use vlab_backend::scene::demo_scene;
use vlab_backend::store::{LabRecord, LabScene, Store};

/// VLab: a browser-based, multiuser virtual robotics lab.
#[derive(Parser)]
#[command(name = "vlab", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the labs over HTTP and websockets, starting with the demo lab `demo`.
    Serve(ServeArgs),
}

#[derive(clap::Args)]
struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// SQLite database file (created if missing).
    #[arg(long, default_value = "vlab.db")]
    db: PathBuf,
    /// Folder of the built browser app (`cargo xtask web` writes it).
    #[arg(long, env = "VLAB_WEB_DIR", default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../dist"))]
    web_dir: PathBuf,
    /// The scene library: includes of uploaded scenes are also looked for here.
    #[arg(long, env = "VLAB_SCENES_DIR", default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../scenes"))]
    scenes_dir: PathBuf,
    /// Meshes and textures that scenes refer to.
    #[arg(long, env = "VLAB_ASSETS_DIR", default_value = concat!(env!("CARGO_MANIFEST_DIR"), "/../assets"))]
    assets_dir: PathBuf,
    /// Instructor token of the demo lab. Without it, the token stored in the database
    /// is reused, or a new one is generated and printed.
    #[arg(long, env = "VLAB_INSTRUCTOR_TOKEN", hide_env_values = true)]
    instructor_token: Option<String>,
    /// Seed of the demo lab's random generator (the same seed gives the same room).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Start the demo lab paused instead of running.
    #[arg(long)]
    paused: bool,
    /// Let anybody create a lab (and become its instructor); otherwise creating a lab
    /// needs the server's key, the demo lab's instructor token.
    #[arg(long)]
    open_labs: bool,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,tower_http=info")))
        .init();
    match Cli::parse().command {
        Command::Serve(args) => serve(args).await,
    }
}

async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let store = Store::open(&args.db)?;
    let demo = demo_record(&store, args.instructor_token, args.seed)?;
    let labs = Labs::default();
    let students = |lab: &str| -> anyhow::Result<Vec<(u32, String, String)>> {
        Ok(store.sessions(lab)?.into_iter().map(|s| (s.user, s.name, s.token)).collect())
    };
    labs.insert(classroom::open_lab(&demo, demo_scene(demo.seed), !args.paused, students("demo")?)?);
    let state = AppState {
        scenes_dir: args.scenes_dir,
        assets_dir: args.assets_dir,
        server_key: Some(demo.instructor_token.clone()),
        open_labs: args.open_labs,
        ..AppState::new(labs, args.web_dir.clone())
    };
    // The labs instructors created before the last stop, as they were set up.
    for record in store.open_labs()?.into_iter().filter(|record| record.id != "demo") {
        let opened = match classroom::build_scene(&state, &record.scene, record.seed).await {
            Ok(scene) => classroom::open_lab(&record, scene, true, students(&record.id)?).map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        match opened {
            Ok(lab) => state.labs.insert(lab),
            Err(e) => tracing::error!(lab = %record.id, error = %e, "a stored lab could not be opened again"),
        }
    }
    // What was uploaded into each lab (and removed from it), done again in order.
    for lab in state.labs.all() {
        for insertion in store.insertions(lab.id())? {
            if let Err(e) = scene_upload::replay(&state, &lab, insertion).await {
                tracing::error!(lab = %lab.id(), error = %e, "an upload kept from before could not be done again");
            }
        }
    }
    let state = Arc::new(AppState { store: Some(std::sync::Mutex::new(store)), ..state });
    if !args.web_dir.join("index.html").exists() {
        tracing::warn!(web_dir = %args.web_dir.display(), "the browser app is not built: run `cargo xtask web`");
    }
    let listener =
        tokio::net::TcpListener::bind(args.addr).await.with_context(|| format!("cannot listen on {}", args.addr))?;
    let addr = listener.local_addr()?;
    tracing::info!(%addr, "VLab is serving");
    println!("VLab is serving on http://{addr}");
    println!("  watch the demo lab:      http://{addr}/?lab=demo");
    println!("  instructor (time control): http://{addr}/?lab=demo&token={}", demo.instructor_token);
    println!("  students join the demo lab with the code {}", demo.join_code);
    println!("  create a lab: http://{addr}/?create (server key: the instructor token above)");
    net::serve(listener, Arc::clone(&state), async {
        let _ = tokio::signal::ctrl_c().await;
        tracing::info!("shutting down");
    })
    .await?;
    state.labs.shut_down_all();
    Ok(())
}

/// The demo lab's record: the token given on the command line wins and is stored; else
/// the stored one is kept (instructor links survive restarts); else a new one is made.
fn demo_record(store: &Store, token: Option<String>, seed: u64) -> anyhow::Result<LabRecord> {
    let stored = store.lab("demo")?;
    let instructor_token = token
        .filter(|t| !t.trim().is_empty())
        .or_else(|| stored.as_ref().map(|lab| lab.instructor_token.clone()))
        .unwrap_or_else(|| format!("{:032x}", rand::rng().random::<u128>()));
    let join_code = stored
        .as_ref()
        .map(|lab| lab.join_code.clone())
        .filter(|code| !code.is_empty())
        .unwrap_or_else(vlab_backend::lab::participants::new_join_code);
    let settings_json = stored.map(|lab| lab.settings_json).unwrap_or_default();
    let record = LabRecord {
        id: "demo".into(),
        name: "Demo lab".into(),
        instructor_token,
        seed,
        join_code,
        scene: LabScene::Demo,
        settings_json,
    };
    store.save_lab(&record)?;
    Ok(record)
}
