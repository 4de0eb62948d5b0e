//! `cargo xtask cluster --servers N`: a cluster on this machine, to try cluster mode by
//! hand (docs/operations.md, Running a cluster): a throw-away NATS and PostgreSQL, and
//! N `vlab serve --cluster <nats> --db <postgres> --addr 127.0.0.1:808<i>` on them,
//! until every one of them stopped (kill one to watch its labs move) or Ctrl-C; then
//! everything is stopped and removed.

use std::path::PathBuf;
use std::process::{Child, Command};
use std::time::Duration;

use anyhow::{Context, Result, bail};

use crate::services::Services;

/// Most servers: their ports are 8081 to 8089.
const MAX_SERVERS: u32 = 9;

/// The database the servers share.
const DATABASE: &str = "vlab";

/// Runs the command.
pub fn run(args: &[String]) -> Result<()> {
    let servers = parse_servers(args)?;
    crate::test_all::ensure_debian_packages(crate::services::PACKAGES)?;
    let services = Services::start()?;
    services.create_database(DATABASE)?;
    let (nats, db) = (services.nats_url(), services.database_url(DATABASE));
    println!("NATS (JetStream): {nats}\nPostgreSQL:       {db}");
    let [nats_folder, postgres_folder] = services.folders();
    println!("their files:      {} and {}", nats_folder.display(), postgres_folder.display());
    // One key for every server (each keeps it in a file of its own beside NATS's).
    let key = new_key()?;
    println!("the servers:");
    let lines: Vec<Vec<String>> = (1..=servers).map(|i| serve_args(&nats, &db, i, &key, nats_folder)).collect();
    for line in &lines {
        println!("  vlab {}", line.join(" "));
    }
    println!("the demo lab on any of them: http://127.0.0.1:8081/?lab=demo&token={key}");

    let vlab = vlab_binary()?;
    let help = Command::new(&vlab)
        .args(["serve", "--help"])
        .output()
        .with_context(|| format!("could not run {}", vlab.display()))?;
    if !String::from_utf8_lossy(&help.stdout).contains("--cluster") {
        bail!(
            "{} has no `serve --cluster` option: this build of the server has no cluster mode yet; \
             NATS and PostgreSQL are stopped again",
            vlab.display()
        );
    }
    let mut children = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        let mut command = Command::new(&vlab);
        command.args(line);
        eprintln!("xtask: {command:?}");
        children.push(command.spawn().with_context(|| format!("could not start {}", vlab.display()))?);
        // The first server alone makes the directory's buckets and the demo lab.
        if index == 0 {
            wait_until_serving(8081, &mut children[0])?;
        }
    }
    // A server that stops (killed by hand, to watch its labs move) leaves the others
    // running: the cluster goes on until every server stopped, or Ctrl-C.
    wait_for_every_exit(&mut children, &lines)?;
    bail!("every server stopped; NATS and PostgreSQL were stopped")
}

/// `--servers N` (default 2), 1 to [`MAX_SERVERS`].
fn parse_servers(args: &[String]) -> Result<u32> {
    match args {
        [] => Ok(2),
        [flag, count] if flag == "--servers" => {
            let count: u32 = count.parse().with_context(|| format!("--servers takes a number, not `{count}`"))?;
            if !(1..=MAX_SERVERS).contains(&count) {
                bail!("--servers takes 1 to {MAX_SERVERS} (ports 8081 to 808{MAX_SERVERS}), not {count}");
            }
            Ok(count)
        }
        _ => bail!("usage: cargo xtask cluster [--servers N]"),
    }
}

/// The arguments of server `index` (from 1).
fn serve_args(nats: &str, db: &str, index: u32, key: &str, folder: &std::path::Path) -> Vec<String> {
    let key_file = folder.join(format!("server{index}.key")).display().to_string();
    [
        "serve",
        "--cluster",
        nats,
        "--db",
        db,
        "--addr",
        &format!("127.0.0.1:808{index}"),
        "--server-id",
        &format!("server{index}"),
        "--instructor-token",
        key,
        "--key-file",
        &key_file,
    ]
    .map(String::from)
    .to_vec()
}

/// A fresh server key: 16 random bytes, in hex.
fn new_key() -> Result<String> {
    use std::io::Read as _;
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom").and_then(|mut random| random.read_exact(&mut bytes)).context("/dev/urandom")?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Waits until the server on `port` accepts connections (or has stopped: an error).
fn wait_until_serving(port: u16, child: &mut Child) -> Result<()> {
    let started = std::time::Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if let Some(status) = child.try_wait()? {
            bail!("the first server stopped with {status} before it served");
        }
        if started.elapsed() > Duration::from_secs(120) {
            bail!("the first server did not serve on port {port} within 120 s");
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    Ok(())
}

/// `VLAB_BIN` when set, else the server built here (dev profile, as the tests build it).
fn vlab_binary() -> Result<PathBuf> {
    if let Some(binary) = std::env::var_os("VLAB_BIN") {
        return Ok(PathBuf::from(binary));
    }
    crate::cargo(&["build", "-p", "vlab-server", "--bin", "vlab"])?;
    Ok(crate::target_dir().join("debug").join(format!("vlab{}", std::env::consts::EXE_SUFFIX)))
}

/// Waits until every one of `children` exited, saying so as each does.
fn wait_for_every_exit(children: &mut [Child], lines: &[Vec<String>]) -> Result<()> {
    let mut running: Vec<usize> = (0..children.len()).collect();
    while !running.is_empty() {
        let mut still = Vec::new();
        for index in running {
            match children[index].try_wait()? {
                Some(status) => eprintln!(
                    "xtask: server {} ({}) stopped with {status}; the others go on (Ctrl-C stops them all)",
                    index + 1,
                    lines[index][5..9].join(" ")
                ),
                None => still.push(index),
            }
        }
        running = still;
        std::thread::sleep(Duration::from_millis(200));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &[&str]) -> Vec<String> {
        line.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn one_to_nine_servers_are_accepted_zero_and_ten_are_not() {
        assert_eq!(parse_servers(&[]).unwrap(), 2);
        assert_eq!(parse_servers(&args(&["--servers", "1"])).unwrap(), 1);
        assert_eq!(parse_servers(&args(&["--servers", "9"])).unwrap(), 9);
        assert!(parse_servers(&args(&["--servers", "0"])).is_err());
        assert!(parse_servers(&args(&["--servers", "10"])).is_err());
        assert!(parse_servers(&args(&["--servers", "two"])).is_err());
        assert!(parse_servers(&args(&["--nodes", "2"])).is_err());
    }

    #[test]
    fn server_i_listens_on_port_808i() {
        assert_eq!(
            serve_args("nats://n:1", "postgres://p/vlab", 3, "k3y", std::path::Path::new("/tmp/nats")),
            [
                "serve",
                "--cluster",
                "nats://n:1",
                "--db",
                "postgres://p/vlab",
                "--addr",
                "127.0.0.1:8083",
                "--server-id",
                "server3",
                "--instructor-token",
                "k3y",
                "--key-file",
                "/tmp/nats/server3.key"
            ]
        );
        assert_eq!(new_key().unwrap().len(), 32);
    }
}
