//! `vlab`: the VLab server binary. Parses the command line, opens the store and the
//! demo lab, and serves HTTP and websockets until interrupted.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use clap::builder::TypedValueParser as _;
use clap::{Parser, Subcommand};
use tracing_subscriber::EnvFilter;
use vlab_server::classroom::recording::DEFAULT_RECORDING_BUDGET_BYTES;
use vlab_server::classroom::{Classroom, ClassroomConfig, DemoLab, KeptCheckpoints, Library};
use vlab_server::cluster::Node;
use vlab_server::controller::placement::{self, ProgramCpus};
use vlab_server::net::limits::{self, Rate};
use vlab_server::net::peers::{self, Peers};
use vlab_server::net::{self, AppState, Limits};
use vlab_server::store::{AttemptStore, Database, RecordingStore, Store, key_file_of};

/// VLab: a browser-based, multiuser virtual robotics lab.
#[derive(Parser)]
#[command(name = "vlab", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Parsed once at start-up: the size of the larger variant costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand)]
enum Command {
    /// Serve the labs over HTTP and websockets, starting with the demo lab `demo`.
    Serve(ServeArgs),
    /// Cluster mode: drain a server, which then takes no new labs and hands its labs
    /// over to the others (their pages connect again by themselves).
    Drain(DrainArgs),
    /// Print the demo lab's instructor link and the server's key, as kept in the key
    /// file beside the database (`vlab serve` prints them only on the first start).
    Key(KeyArgs),
}

#[derive(clap::Args)]
struct DrainArgs {
    /// The cluster's NATS server.
    #[arg(long, env = "VLAB_CLUSTER")]
    cluster: String,
    /// The cluster's name.
    #[arg(long, env = "VLAB_CLUSTER_NAME", default_value = vlab_cluster::directory::DEFAULT_NAME,
          value_parser = cluster_name)]
    cluster_name: String,
    /// The server to drain (its id, as `vlab serve` logged it when it joined).
    server: String,
}

#[derive(clap::Args)]
struct KeyArgs {
    /// The database the server uses: a SQLite file, or a `postgres://` URL.
    #[arg(long, env = "VLAB_DB", hide_env_values = true, default_value = "vlab.db")]
    db: String,
    /// With PostgreSQL: the file the server key is kept in.
    #[arg(long, env = "VLAB_KEY_FILE", default_value = DEFAULT_KEY_FILE)]
    key_file: PathBuf,
}

/// With PostgreSQL, where the server key is kept unless `--key-file` says: the
/// database keeps only its digest, the key itself stays on the server's disk.
const DEFAULT_KEY_FILE: &str = "vlab.key";

/// The file the server key of `database` is kept in: beside a SQLite file
/// (`vlab.db.key`), else `key_file`.
fn key_file(database: &Database, key_file: &std::path::Path) -> PathBuf {
    match database {
        Database::Sqlite(path) => key_file_of(path),
        Database::Postgres(_) => key_file.to_owned(),
    }
}

#[derive(clap::Args)]
struct ServeArgs {
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// The database: a SQLite file (created if missing), or a PostgreSQL URL
    /// `postgres://user:password@host:port/dbname` (docs/operations.md, "PostgreSQL").
    #[arg(long, env = "VLAB_DB", hide_env_values = true, default_value = "vlab.db")]
    db: String,
    /// With PostgreSQL: the file the server key is kept in (with SQLite it is
    /// `<db>.key`); compiled programs are kept beside it (`vlab.compiled/`).
    #[arg(long, env = "VLAB_KEY_FILE", default_value = DEFAULT_KEY_FILE)]
    key_file: PathBuf,
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
    /// Most connections open at once, websockets included; past it a new connection is
    /// answered 503 and closed (docs/operations.md).
    #[arg(long, env = "VLAB_MAX_CONNECTIONS", default_value_t = limits::DEFAULT_MAX_CONNECTIONS,
          value_parser = clap::value_parser!(u32).range(1..).map(|n| n as usize))]
    max_connections: usize,
    /// Most connections open at once from one client address (a whole class behind one
    /// school address counts as one); past it 429.
    #[arg(long, env = "VLAB_MAX_CONNECTIONS_PER_ADDRESS", default_value_t = limits::DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
          value_parser = clap::value_parser!(u32).range(1..).map(|n| n as usize))]
    max_connections_per_address: usize,
    /// Seconds a connection has to send a request's headers (also how long an idle
    /// kept-alive connection stays open).
    #[arg(long, env = "VLAB_HEADER_TIMEOUT", default_value_t = limits::DEFAULT_HEADER_TIMEOUT.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..))]
    header_timeout: u64,
    /// Seconds a request's body (an upload) has to arrive once its headers did.
    #[arg(long, env = "VLAB_BODY_TIMEOUT", default_value_t = limits::DEFAULT_BODY_TIMEOUT.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..))]
    body_timeout: u64,
    /// Joins per client address, right or wrong code, as `COUNT/PERIOD` (250/5min: a
    /// burst of 250, then one every 1.2 s); past it 429.
    #[arg(long, env = "VLAB_JOIN_RATE", default_value_t = limits::DEFAULT_JOIN_RATE)]
    join_rate: Rate,
    /// Uploads (robots, scenes, programs) per client address, as `COUNT/PERIOD`.
    #[arg(long, env = "VLAB_UPLOAD_RATE", default_value_t = limits::DEFAULT_UPLOAD_RATE)]
    upload_rate: Rate,
    /// Time-control commands over HTTP per client address, as `COUNT/PERIOD`.
    #[arg(long, env = "VLAB_CONTROL_RATE", default_value_t = limits::DEFAULT_CONTROL_RATE)]
    control_rate: Rate,
    /// MiB each lab's recording may take in `<db>.recordings.db` (the oldest is dropped
    /// beyond it); 0 records nothing.
    #[arg(long, env = "VLAB_RECORDING_MIB", default_value_t = DEFAULT_RECORDING_BUDGET_BYTES / MIB)]
    recording_mib: u64,
    /// Cluster mode: the NATS server the cluster's servers meet on (`nats://host:4222`).
    /// Needs `--db` to name the cluster's shared PostgreSQL database (docs/operations.md,
    /// "Running a cluster").
    #[arg(long, env = "VLAB_CLUSTER")]
    cluster: Option<String>,
    /// The cluster's name: its directory's buckets and its subjects on NATS (several
    /// clusters may share one NATS server).
    #[arg(long, env = "VLAB_CLUSTER_NAME", default_value = vlab_cluster::directory::DEFAULT_NAME,
          value_parser = cluster_name)]
    cluster_name: String,
    /// This server's id in the cluster (default: this machine's name and the port).
    #[arg(long, env = "VLAB_SERVER_ID", value_parser = cluster_name)]
    server_id: Option<String>,
    /// CPUs robot programs run on: `auto` (every CPU the server may use but the first,
    /// which the labs' threads keep), `all`, or a list such as `1-3,5`.
    #[arg(long, env = "VLAB_PROGRAM_CPUS", default_value_t = ProgramCpus::Auto)]
    program_cpus: ProgramCpus,
}

const MIB: u64 = 1024 * 1024;

/// A name that can be part of a NATS subject and a bucket name.
fn cluster_name(name: &str) -> Result<String, String> {
    if vlab_server::net::peers::valid_token(name) {
        Ok(name.to_owned())
    } else {
        Err("use 1 to 128 letters, digits, '-' or '_'".into())
    }
}

/// Where compiled C and C++ programs are kept (a cache, by their sources' digest):
/// `vlab.db` → `vlab.db.compiled/`; with PostgreSQL beside the key file, `vlab.key` →
/// `vlab.compiled/`.
fn compiled_folder_of(database: &Database, key_file: &std::path::Path) -> PathBuf {
    match database {
        Database::Sqlite(db) => {
            let mut name = db.as_os_str().to_owned();
            name.push(".compiled");
            PathBuf::from(name)
        }
        Database::Postgres(_) => key_file.with_extension("compiled"),
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,tower_http=info")))
        .init();
    match Cli::parse().command {
        Command::Serve(args) => serve(args).await,
        Command::Key(args) => print_key(&args),
        Command::Drain(args) => drain(&args).await,
    }
}

/// `vlab drain`: sets the server's draining flag in the cluster's directory.
async fn drain(args: &DrainArgs) -> anyhow::Result<()> {
    let nats = async_nats::connect(&args.cluster)
        .await
        .with_context(|| format!("cannot connect to the cluster's NATS server at {}", args.cluster))?;
    let directory = vlab_cluster::Directory::open(nats, &args.cluster_name, vlab_cluster::Timing::DEFAULT).await?;
    let servers = directory.servers().await?;
    if !servers.iter().any(|server| server.id == args.server) {
        let known: Vec<&str> = servers.iter().map(|server| server.id.as_str()).collect();
        anyhow::bail!(
            "no server '{}' in cluster '{}' (its servers: {})",
            args.server,
            args.cluster_name,
            known.join(", ")
        );
    }
    directory.drain(&args.server).await?;
    println!("server {} is draining: it takes no new labs and hands its labs to the others", args.server);
    Ok(())
}

/// `vlab key`: the operator's way back to the instructor link and the server key. The
/// database keeps only the key's digest; the key itself is in the key file, checked
/// against that digest.
fn print_key(args: &KeyArgs) -> anyhow::Result<()> {
    let database = Database::parse(&args.db);
    if let Database::Sqlite(path) = &database
        && !path.exists()
    {
        anyhow::bail!("there is no database {database} yet: start the server once with `vlab serve`");
    }
    let key_file = key_file(&database, &args.key_file);
    let store = Store::open_database(&database, &key_file)?;
    let Some(demo) = store.lab("demo")? else {
        anyhow::bail!("{database} has no demo lab yet: start the server once with `vlab serve`");
    };
    let Some(key) = store.server_key()? else {
        anyhow::bail!(
            "the key file {} is missing, and the database keeps only a digest of the key: \
             set a new key with `vlab serve --instructor-token <new key>`",
            key_file.display()
        );
    };
    if !demo.instructor.matches(&key) {
        anyhow::bail!(
            "the key in {} is not the demo lab's token any more (the file was edited or copied from another \
             server): set the key with `vlab serve --instructor-token <key>`",
            key_file.display()
        );
    }
    println!("instructor link: /?lab=demo&token={key}");
    println!("server key (creates labs): {key}");
    Ok(())
}

/// Cluster mode: joins the cluster's directory as this server, serves the labs others
/// ask this server for, claims every lab opened here and every evaluation started here,
/// and takes over the labs and evaluations no server runs, now and every few seconds (docs/operations.md, "Running a cluster").
async fn join_cluster(
    url: &str,
    args: &ServeArgs,
    addr: SocketAddr,
    classroom: Classroom,
    limits: Limits,
) -> anyhow::Result<Arc<AppState>> {
    let nats = async_nats::ConnectOptions::new()
        .name(format!("vlab {addr}"))
        .retry_on_initial_connect()
        .connect(url)
        .await
        .with_context(|| format!("cannot connect to the cluster's NATS server at {url}"))?;
    let directory = vlab_cluster::Directory::open(nats.clone(), &args.cluster_name, vlab_cluster::Timing::DEFAULT)
        .await
        .context("cannot open the cluster's directory")?;
    let me = args.server_id.clone().unwrap_or_else(|| default_server_id(addr));
    let node = Node::join(directory, me.clone(), &addr.to_string()).await.context("cannot join the cluster")?;
    let peers =
        Arc::new(Peers::new(nats.clone(), &args.cluster_name, me.clone(), Arc::clone(&node) as Arc<dyn peers::Owners>));
    let state =
        Arc::new(AppState { classroom, web_dir: args.web_dir.clone(), limits, peers: Some(Arc::clone(&peers)) });
    node.claim_every_lab(&state);
    node.run_evaluations(&state.classroom);
    peers::serve_owned(Arc::clone(&peers), Arc::clone(&state), net::app(Arc::clone(&state)))
        .await
        .context("cannot listen to the cluster")?;
    let changes = vlab_server::cluster::course::changes_subject(&args.cluster_name);
    vlab_server::cluster::course::share(nats, changes, me.clone(), &state)
        .await
        .context("cannot listen to the cluster's course changes")?;
    tracing::info!(server = %me, cluster = %args.cluster_name, "joined the cluster");
    let served = Arc::downgrade(&state);
    tokio::spawn(async move {
        let mut every = tokio::time::interval(vlab_cluster::directory::ORPHAN_POLL);
        loop {
            every.tick().await;
            let Some(state) = served.upgrade() else { return };
            let mirrored = peers.mirrored().iter().map(|(_, viewers)| viewers).sum();
            node.report_load(&state.classroom, mirrored);
            if node.is_draining() {
                node.hand_over_all(&state.classroom).await;
                continue;
            }
            match node.take_over(&state.classroom).await {
                Ok(0) => {}
                Ok(taken) => tracing::info!(taken, "took over labs no server ran"),
                Err(error) => tracing::warn!(%error, "cannot look for labs no server runs"),
            }
            match state.classroom.course().take_over_evaluations().await {
                Ok(0) => {}
                Ok(taken) => tracing::info!(taken, "took over evaluations no server ran"),
                Err(error) => tracing::warn!(%error, "cannot look for evaluations no server runs"),
            }
        }
    });
    Ok(state)
}

/// `host-port`: unique among servers on distinct machines or ports.
fn default_server_id(addr: SocketAddr) -> String {
    let host = std::fs::read_to_string("/etc/hostname").unwrap_or_default();
    let host: String = host.trim().chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
    format!("{}-{}", if host.is_empty() { "vlab" } else { &host }, addr.port())
}

/// The `--db` to print in a `vlab key` hint: the URL as given only if it holds no
/// password (`$VLAB_DB` otherwise, which the operator set).
fn key_command_db(db: &str, database: &Database) -> String {
    match database {
        Database::Postgres(_) if db.split('@').next().is_some_and(|auth| auth.matches(':').count() > 1) => {
            "\"$VLAB_DB\"".to_owned()
        }
        _ => db.to_owned(),
    }
}

async fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let program_cpus = placement::set_program_cpus(args.program_cpus.clone())?;
    tracing::info!(
        choice = %args.program_cpus,
        cpus = %placement::cpu_list(&program_cpus),
        of = %placement::cpu_list(&placement::allowed_cpus()),
        "robot programs run on these CPUs"
    );
    let database = Database::parse(&args.db);
    if args.cluster.is_some() && !matches!(database, Database::Postgres(_)) {
        anyhow::bail!(
            "cluster mode keeps everything in the cluster's one PostgreSQL database: give `--db postgres://…` \
             (a SQLite file is one server's own)"
        );
    }
    let key_file = key_file(&database, &args.key_file);
    let store = Store::open_database(&database, &key_file)?;
    #[cfg(target_os = "linux")]
    {
        let swept = vlab_server::controller::sweep_program_folders(&vlab_server::controller::default_programs_dir());
        if swept > 0 {
            tracing::info!(swept, "removed the folders of programs a previous server left behind");
        }
    }
    let mut classroom = Classroom::new(ClassroomConfig {
        library: Library { scenes_dir: args.scenes_dir.clone(), assets_dir: args.assets_dir.clone() },
        server_key: None,
        open_labs: args.open_labs,
        store: Some(store),
        recordings: Some(RecordingStore::open_database(&database)?),
        recording_budget: Some(args.recording_mib.saturating_mul(MIB)),
        exports: Default::default(),
        compile_cache: Some(compiled_folder_of(&database, &key_file)),
        compile_limits: None,
        attempts: Some(AttemptStore::open_database(&database)?),
    });
    let demo =
        DemoLab { instructor_token: args.instructor_token.clone(), seed: args.seed, start_running: !args.paused };
    // In a cluster the demo lab is only kept here: the server that claims it first opens
    // it (`Node::take_over`), so no server opens a copy only to close it.
    let demo =
        if args.cluster.is_none() { classroom.labs().open_demo(demo)? } else { classroom.labs().keep_demo(demo)? };
    // The demo lab's instructor token is the server's key: it creates labs.
    classroom.set_server_key(demo.record.instructor);
    if args.cluster.is_none() {
        let failed = classroom.labs().restore().await?;
        if failed > 0 {
            tracing::warn!(failed, "some uploads kept from before could not be done again (see the errors above)");
        }
    }
    let limits = Limits {
        max_connections: args.max_connections,
        max_connections_per_address: args.max_connections_per_address,
        header_timeout: Duration::from_secs(args.header_timeout),
        body_timeout: Duration::from_secs(args.body_timeout),
        joins: args.join_rate,
        uploads: args.upload_rate,
        controls: args.control_rate,
    };
    limits::raise_open_files_limit(&limits);
    if !args.web_dir.join("index.html").exists() {
        tracing::warn!(web_dir = %args.web_dir.display(), "the browser app is not built: run `cargo xtask web`");
    }
    let listener =
        tokio::net::TcpListener::bind(args.addr).await.with_context(|| format!("cannot listen on {}", args.addr))?;
    let addr = listener.local_addr()?;
    let state = match &args.cluster {
        None => Arc::new(AppState { classroom, web_dir: args.web_dir.clone(), limits, peers: None }),
        Some(url) => join_cluster(url, &args, addr, classroom, limits).await?,
    };
    keep_checkpoints(&state);
    tracing::info!(%addr, "VLab is serving");
    println!("VLab is serving on http://{addr}");
    println!("  watch the demo lab:      http://{addr}/?lab=demo");
    // The key is shown once, when it is made: not on every start, where logs, a shared
    // terminal or a projector would show it again and again.
    if let Some(token) = &demo.new_token {
        println!("  instructor (time control): http://{addr}/?lab=demo&token={token}");
        println!("  create a lab: http://{addr}/?create (server key: the instructor token above)");
        println!("  (shown this once; `vlab key --db {}` shows them again)", key_command_db(&args.db, &database));
    } else {
        println!("  instructor link and server key: `vlab key --db {}`", key_command_db(&args.db, &database));
        println!("  create a lab: http://{addr}/?create");
    }
    println!("  students join the demo lab with the code {}", demo.record.join_code);
    net::serve(listener, Arc::clone(&state), async {
        let _ = tokio::signal::ctrl_c().await;
        tracing::info!("shutting down");
    })
    .await?;
    // Each lab's clock and bodies as they stand are kept: it goes on from there.
    for lab in state.classroom.registry.all().iter().filter(|lab| !lab.handed_over()) {
        if let Err(error) = state.classroom.checkpoints().keep_now(lab).await {
            tracing::warn!(lab = %lab.id(), %error, "the lab's checkpoint could not be kept");
        }
    }
    state.classroom.shut_down();
    Ok(())
}

/// Writes the checkpoints the labs took every few seconds (docs/operations.md), off the
/// runtime's workers: a slow database never holds a request.
fn keep_checkpoints(state: &Arc<AppState>) {
    let served = Arc::downgrade(state);
    tokio::spawn(async move {
        let mut every = tokio::time::interval(vlab_server::classroom::checkpoints::CHECKPOINT_KEEPING);
        let mut kept = KeptCheckpoints::default();
        loop {
            every.tick().await;
            let Some(state) = served.upgrade() else { return };
            let keeping = tokio::task::spawn_blocking(move || {
                state.classroom.checkpoints().keep_new(&mut kept);
                kept
            });
            match keeping.await {
                Ok(back) => kept = back,
                Err(error) => {
                    tracing::error!(%error, "keeping the labs' checkpoints failed");
                    kept = KeptCheckpoints::default();
                }
            }
        }
    });
}
