//! The command line of `cargo xtask load`, read into [`Options`] (hand-read like the
//! other xtask commands: a few flags, each `--name VALUE` or `--name=VALUE`).

use std::fmt;

pub use super::viewer::Acknowledge;

/// Viewers when `--viewers` is not given.
pub const DEFAULT_VIEWERS: usize = 100;
/// Lab watched when `--lab` is not given: the demo lab every server opens.
pub const DEFAULT_LAB: &str = "demo";
/// Seconds measured when `--seconds` is not given.
pub const DEFAULT_SECONDS: f64 = 10.0;
/// Most viewers one run opens: each is a socket in this process and in the server.
pub const MAX_VIEWERS: usize = 20_000;
/// Most labs one run creates (`--labs`); each is a simulation thread in the server.
pub const MAX_LABS: usize = 1_000;
/// Threads the viewers run on when `--threads` is not given: one, a current-thread
/// runtime, so that the tool takes at most one core of the machine it shares with the
/// server (and can be pinned to one with `taskset`).
pub const DEFAULT_THREADS: usize = 1;
/// Most `--threads`.
pub const MAX_THREADS: usize = 64;
/// Servers of a `--cluster` run: at least an owner and one other.
pub const CLUSTER_SERVERS: std::ops::RangeInclusive<usize> = 2..=9;

/// The usage line of `cargo xtask load`, also shown in `cargo xtask help`.
pub const USAGE: &str = "\
usage: cargo xtask load [--viewers N] [--lab L] [--seconds S] [--labs M]
                        [--no-ack | --ack-every-frame] [--threads T]
                        [--server URL [--pid P] [--key K]]
       cargo xtask load --cluster N [--viewers N] [--seconds S] [--threads T]
  --viewers N   websocket viewers on the lab, each decoding every frame and saying it
                drew them (`drawn`) once it has read what came, as often as the server
                asks (as a page does: every second frame at full pace) (default 100)
  --no-ack      viewers never say which frames they drew (as a script): the server
                sends them every frame their sockets take
  --ack-every-frame  viewers say `drawn` after everything they read, never counting
                pictures (as a page did before the server said how often)
  --threads T   threads the viewers run on (default 1: a current-thread runtime, one core)
  --lab L       the lab they watch (default demo)
  --seconds S   length of the measured window, after every viewer is connected (default 10)
  --labs M      labs on the server: M-1 more are created (demo yard, running, unwatched)
                to measure what a lab costs (default 1)
  --server URL  load a running server (http://HOST:PORT) instead of starting a release
                build of `vlab` on a free port with a fresh database
  --pid P       with --server: the server's process id, to read its CPU time
  --key K       with --server and --labs: the server key that creates labs
                (`vlab key`; or the environment variable VLAB_SERVER_KEY)
  --cluster N   a cluster of N (2 to 9) release servers on a throw-away NATS and
                PostgreSQL, the demo lab on the first: for a quarter, half and all of
                --viewers, the viewers on one server alone (the baseline), on the lab's
                server, then split over the others (each server's CPU, frame delays);
                then the lab's server is killed and the failover timed";

/// What one `cargo xtask load` run does.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Websocket viewers on `lab`.
    pub viewers: usize,
    /// The lab they watch.
    pub lab: String,
    /// Length of the measured window, seconds.
    pub seconds: f64,
    /// Labs on the server during the window: `labs - 1` are created for the run.
    pub labs: usize,
    /// A running server's base URL (`http://HOST:PORT`); `None` starts one.
    pub server: Option<String>,
    /// The running server's process id, for its CPU time.
    pub pid: Option<u32>,
    /// The running server's key, to create labs.
    pub key: Option<String>,
    /// Whether and how viewers acknowledge the frames they decoded (`drawn`).
    pub acknowledge: Acknowledge,
    /// Threads the viewers run on (1: a current-thread runtime).
    pub threads: usize,
    /// `--cluster N`: servers of a cluster run; `None`: one server.
    pub cluster: Option<usize>,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            viewers: DEFAULT_VIEWERS,
            lab: DEFAULT_LAB.into(),
            seconds: DEFAULT_SECONDS,
            labs: 1,
            server: None,
            pid: None,
            key: None,
            acknowledge: Acknowledge::AsTold,
            threads: DEFAULT_THREADS,
            cluster: None,
        }
    }
}

/// Why a command line was refused.
#[derive(Debug, PartialEq)]
pub enum OptionsError {
    /// A flag this command does not know.
    Unknown(String),
    /// A flag given without its value.
    MissingValue(&'static str),
    /// A value that does not fit its flag.
    Invalid {
        /// The flag.
        flag: &'static str,
        /// The value given.
        value: String,
        /// What it should be.
        expected: &'static str,
    },
    /// Flags that only make sense together, or not together.
    Conflict(&'static str),
}

impl fmt::Display for OptionsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OptionsError::Unknown(flag) => write!(f, "unknown option `{flag}`"),
            OptionsError::MissingValue(flag) => write!(f, "`{flag}` needs a value"),
            OptionsError::Invalid { flag, value, expected } => write!(f, "`{flag} {value}`: expected {expected}"),
            OptionsError::Conflict(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for OptionsError {}

impl Options {
    /// Reads `args` (what follows `load`); `server_key_env` is `VLAB_SERVER_KEY`, the
    /// key's fallback when `--key` is not given.
    pub fn parse(args: &[String], server_key_env: Option<String>) -> Result<Options, OptionsError> {
        let mut options = Options::default();
        let mut rest = args.iter();
        while let Some(arg) = rest.next() {
            let acknowledge = match arg.as_str() {
                "--no-ack" => Some(Acknowledge::Never),
                "--ack-every-frame" => Some(Acknowledge::EveryRead),
                _ => None,
            };
            if let Some(acknowledge) = acknowledge {
                if options.acknowledge != Acknowledge::AsTold && options.acknowledge != acknowledge {
                    return Err(OptionsError::Conflict("`--no-ack` and `--ack-every-frame` exclude each other"));
                }
                options.acknowledge = acknowledge;
                continue;
            }
            let (flag, inline) = match arg.split_once('=') {
                Some((flag, value)) if flag.starts_with("--") => (flag, Some(value.to_owned())),
                _ => (arg.as_str(), None),
            };
            let flag: &'static str = match flag {
                "--viewers" => "--viewers",
                "--lab" => "--lab",
                "--seconds" => "--seconds",
                "--labs" => "--labs",
                "--server" => "--server",
                "--pid" => "--pid",
                "--key" => "--key",
                "--threads" => "--threads",
                "--cluster" => "--cluster",
                other => return Err(OptionsError::Unknown(other.to_owned())),
            };
            let value = match inline {
                Some(value) => value,
                None => rest.next().cloned().ok_or(OptionsError::MissingValue(flag))?,
            };
            let invalid = |expected| OptionsError::Invalid { flag, value: value.clone(), expected };
            match flag {
                "--viewers" => {
                    options.viewers = value
                        .parse()
                        .ok()
                        .filter(|n| (1..=MAX_VIEWERS).contains(n))
                        .ok_or_else(|| invalid("a number of viewers from 1 to 20000"))?;
                }
                "--lab" if value.trim().is_empty() => return Err(invalid("a lab id")),
                "--lab" => options.lab = value.trim().to_owned(),
                "--seconds" => {
                    options.seconds = value
                        .parse()
                        .ok()
                        .filter(|s: &f64| s.is_finite() && *s > 0.0 && *s <= 3600.0)
                        .ok_or_else(|| invalid("seconds, more than 0 and at most 3600"))?;
                }
                "--labs" => {
                    options.labs = value
                        .parse()
                        .ok()
                        .filter(|n| (1..=MAX_LABS).contains(n))
                        .ok_or_else(|| invalid("a number of labs from 1 to 1000"))?;
                }
                "--server" => options.server = Some(server_base(&value).ok_or_else(|| invalid("http://HOST:PORT"))?),
                "--pid" => options.pid = Some(value.parse().map_err(|_| invalid("a process id"))?),
                "--threads" => {
                    options.threads = value
                        .parse()
                        .ok()
                        .filter(|n| (1..=MAX_THREADS).contains(n))
                        .ok_or_else(|| invalid("a number of threads from 1 to 64"))?;
                }
                "--cluster" => {
                    options.cluster = Some(
                        value
                            .parse()
                            .ok()
                            .filter(|n| CLUSTER_SERVERS.contains(n))
                            .ok_or_else(|| invalid("a number of servers from 2 to 9"))?,
                    );
                }
                _ => options.key = Some(value),
            }
        }
        if options.server.is_none() && (options.pid.is_some() || options.key.is_some()) {
            return Err(OptionsError::Conflict(
                "`--pid` and `--key` are for a running server (`--server URL`): without it the tool starts its own",
            ));
        }
        if options.cluster.is_some() && (options.server.is_some() || options.labs > 1 || options.lab != DEFAULT_LAB) {
            return Err(OptionsError::Conflict(
                "`--cluster` starts its own servers and watches their demo lab: no `--server`, `--labs` or `--lab`",
            ));
        }
        if options.server.is_some() && options.key.is_none() {
            options.key = server_key_env.filter(|key| !key.trim().is_empty());
        }
        if options.server.is_some() && options.labs > 1 && options.key.is_none() {
            return Err(OptionsError::Conflict(
                "`--labs` on a running server creates labs, which needs its key: `--key K` or VLAB_SERVER_KEY",
            ));
        }
        Ok(options)
    }
}

/// `URL` as `http://HOST:PORT` without a trailing slash; a bare `HOST:PORT` is taken as
/// http. Only plain http: the tool speaks no TLS (a server behind a TLS proxy is loaded
/// on its own port).
pub fn server_base(url: &str) -> Option<String> {
    let url = url.trim().trim_end_matches('/');
    let host = match url.split_once("://") {
        Some(("http", host)) => host,
        Some(_) => return None,
        None => url,
    };
    if host.is_empty() || host.contains('/') {
        return None;
    }
    Some(format!("http://{host}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Options, OptionsError> {
        Options::parse(&args.iter().map(|a| a.to_string()).collect::<Vec<_>>(), None)
    }

    #[test]
    fn no_options_are_the_documented_defaults() {
        let options = parse(&[]).unwrap();
        assert_eq!(options, Options { viewers: 100, lab: "demo".into(), seconds: 10.0, labs: 1, ..Options::default() });
        assert_eq!(options.server, None);
        assert_eq!(options.acknowledge, Acknowledge::AsTold, "viewers acknowledge drawn frames, as pages do");
        assert_eq!(options.threads, 1);
    }

    #[test]
    fn viewers_may_be_told_not_to_acknowledge_and_to_run_on_more_threads() {
        let options = parse(&["--no-ack", "--viewers", "300", "--threads=2"]).unwrap();
        assert_eq!((options.acknowledge, options.viewers, options.threads), (Acknowledge::Never, 300, 2));
        assert_eq!(parse(&["--ack-every-frame"]).unwrap().acknowledge, Acknowledge::EveryRead);
        assert!(matches!(parse(&["--no-ack", "--ack-every-frame"]), Err(OptionsError::Conflict(_))));
    }

    #[test]
    fn options_read_with_a_space_or_an_equals_sign() {
        let options = parse(&["--viewers", "1000", "--lab=yard", "--seconds", "2.5", "--labs=50"]).unwrap();
        assert_eq!((options.viewers, options.lab.as_str(), options.seconds, options.labs), (1000, "yard", 2.5, 50));
        let running = parse(&["--server", "127.0.0.1:8080/", "--pid=42", "--key", "k"]).unwrap();
        assert_eq!(running.server.as_deref(), Some("http://127.0.0.1:8080"));
        assert_eq!((running.pid, running.key.as_deref()), (Some(42), Some("k")));
    }

    #[test]
    fn wrong_values_and_flags_are_refused_by_name() {
        for (args, flag) in [
            (&["--viewers", "0"][..], "--viewers"),
            (&["--viewers", "many"], "--viewers"),
            (&["--viewers", "20001"], "--viewers"),
            (&["--seconds", "0"], "--seconds"),
            (&["--seconds", "NaN"], "--seconds"),
            (&["--labs", "0"], "--labs"),
            (&["--server", "https://example.org"], "--server"),
            (&["--server", "http://host/path"], "--server"),
            (&["--server", "h:1", "--pid", "-3"], "--pid"),
            (&["--threads", "0"], "--threads"),
            (&["--threads", "65"], "--threads"),
        ] {
            match parse(args) {
                Err(OptionsError::Invalid { flag: refused, .. }) => assert_eq!(refused, flag, "{args:?}"),
                other => panic!("{args:?} gave {other:?}"),
            }
        }
        assert_eq!(parse(&["--viewer", "3"]), Err(OptionsError::Unknown("--viewer".into())));
        assert_eq!(parse(&["--seconds"]), Err(OptionsError::MissingValue("--seconds")));
    }

    #[test]
    fn a_cluster_run_has_two_to_nine_servers_of_its_own() {
        assert_eq!(parse(&["--cluster", "3", "--viewers", "400"]).unwrap().cluster, Some(3));
        assert_eq!(parse(&[]).unwrap().cluster, None);
        for refused in ["1", "10", "three"] {
            assert!(matches!(parse(&["--cluster", refused]), Err(OptionsError::Invalid { flag: "--cluster", .. })));
        }
        for with in [&["--server", "h:1"][..], &["--labs", "2"], &["--lab", "yard"]] {
            let args: Vec<&str> = ["--cluster", "2"].iter().chain(with).copied().collect();
            assert!(matches!(parse(&args), Err(OptionsError::Conflict(_))), "{args:?}");
        }
    }

    #[test]
    fn a_running_server_needs_its_key_to_create_labs() {
        assert!(matches!(parse(&["--pid", "7"]), Err(OptionsError::Conflict(_))));
        assert!(matches!(parse(&["--server", "h:1", "--labs", "3"]), Err(OptionsError::Conflict(_))));
        let args: Vec<String> = ["--server", "h:1", "--labs", "3"].map(String::from).to_vec();
        let options = Options::parse(&args, Some("from-env".into())).unwrap();
        assert_eq!(options.key.as_deref(), Some("from-env"));
        // The tool's own server: it knows its key, the environment's is not used.
        let own = Options::parse(&["--labs".into(), "3".into()], Some("from-env".into())).unwrap();
        assert_eq!(own.key, None);
    }
}
