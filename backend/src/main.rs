//! `vlab`: the VLab server binary. Parses the command line, opens the store and the
//! demo lab, and serves HTTP and websockets until interrupted.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::Context;
use clap::{Parser, Subcommand};
use tracing_subscriber::EnvFilter;
use vlab_backend::classroom::{Classroom, ClassroomConfig, DemoLab, Library};
use vlab_backend::net::{self, AppState};
use vlab_backend::store::Store;

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
    let mut classroom = Classroom::new(ClassroomConfig {
        library: Library { scenes_dir: args.scenes_dir, assets_dir: args.assets_dir },
        server_key: None,
        open_labs: args.open_labs,
        store: Some(store),
    });
    let demo = classroom.open_demo(DemoLab {
        instructor_token: args.instructor_token,
        seed: args.seed,
        start_running: !args.paused,
    })?;
    // The demo lab's instructor token is the server's key: it creates labs.
    classroom.set_server_key(demo.instructor_token.clone());
    let failed = classroom.restore().await?;
    if failed > 0 {
        tracing::warn!(failed, "some uploads kept from before could not be done again (see the errors above)");
    }
    let state = Arc::new(AppState { classroom, web_dir: args.web_dir.clone() });
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
    state.classroom.shut_down();
    Ok(())
}
