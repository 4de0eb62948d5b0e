//! Every limit of the server's network face, defined once: how many connections it
//! keeps open (overall and per client address), how fast one address may join, upload
//! and control time, and how long a client has to send a request's headers and body.
//!
//! [`Limits`] holds the ones an operator may change (`vlab serve --max-connections ...`,
//! each with an environment variable too); its defaults are the `DEFAULT_*` constants
//! below, chosen for a real class: 25 to 60 students behind ONE school address (a NAT),
//! each with a browser tab (one websocket and a few HTTP connections). The fixed limits
//! of the wire ([`MAX_JSON_BODY_BYTES`], [`MAX_WEBSOCKET_MESSAGE_BYTES`],
//! [`MAX_UPLOAD_BYTES`]) are here too. docs/operations.md lists them all, with the
//! limits of scenes, programs and labs, and how the server behaves at each.
//!
//! A client's address is its IP address; an IPv6 address counts as its /64 network (one
//! household or machine is given a whole /64), see [`ClientKey`].

use std::fmt;
use std::net::{IpAddr, Ipv6Addr};
use std::str::FromStr;
use std::time::Duration;

use vlab_protocol::MAX_CLIENT_TEXT_BYTES;

pub use crate::classroom::upload::MAX_UPLOAD_BYTES;

/// Largest JSON request body, in bytes (a little over 1 MiB: a broadcast, settings, a
/// control command, actuator commands). Larger ones get 413.
pub const MAX_JSON_BODY_BYTES: usize = 1024 * 1024 + 4096;

/// Largest websocket message or frame a client may send, in bytes. A frame is refused
/// from its header, before its payload is buffered; the connection is then closed.
pub const MAX_WEBSOCKET_MESSAGE_BYTES: usize = MAX_CLIENT_TEXT_BYTES * 4;

/// Default of [`Limits::max_connections`]: open connections, all clients together.
/// Keep the process's open-file limit (`ulimit -n`) above it.
pub const DEFAULT_MAX_CONNECTIONS: usize = 4096;

/// Default of [`Limits::max_connections_per_address`]: a class of 60 behind one address
/// with a websocket and up to 6 HTTP connections each is 420; a few teachers' tabs more.
pub const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS: usize = 512;

/// Default of [`Limits::header_timeout`]. A browser sends its headers at once; this
/// also closes a kept-alive connection left idle this long (browsers open a new one).
pub const DEFAULT_HEADER_TIMEOUT: Duration = Duration::from_secs(20);

/// Default of [`Limits::body_timeout`]: a full upload ([`MAX_UPLOAD_BYTES`], 4 MiB) over
/// a link shared down to 300 kbit/s still arrives.
pub const DEFAULT_BODY_TIMEOUT: Duration = Duration::from_secs(120);

/// Default of [`Limits::joins`]: a full lab (200 students, the most a lab admits) and
/// 50 typos join at once from one address; past the burst, one join every 1.2 s. A
/// code is one of 31^6 (about 887 million): at that pace one address needs years to
/// hit any of a few dozen open labs' codes.
pub const DEFAULT_JOIN_RATE: Rate = Rate { count: 250, per: Duration::from_secs(300) };

/// Default of [`Limits::uploads`]: a class of 60 each uploading a robot, a scene or a
/// program twice a minute.
pub const DEFAULT_UPLOAD_RATE: Rate = Rate { count: 120, per: Duration::from_secs(60) };

/// Default of [`Limits::controls`]: time control (pause, run, step, rate) over HTTP. A
/// script that steps the lab and samples it between steps sends hundreds a second for
/// minutes: a burst of 6000, then 100 a second, which still cuts a flood to 100.
pub const DEFAULT_CONTROL_RATE: Rate = Rate { count: 6000, per: Duration::from_secs(60) };

/// Connections being refused at once (each is answered with a short error, then
/// closed); past this, a refused connection is closed without an answer.
pub const MAX_REFUSALS_AT_ONCE: usize = 64;

/// How long a refused connection is given to send its request's headers (to read the
/// answer's status), at most: the header timeout if it is shorter.
pub const REFUSAL_HEADER_TIMEOUT: Duration = Duration::from_secs(5);

/// `Retry-After` of a refused connection, in seconds.
pub const CONNECTION_RETRY_AFTER_SECS: u64 = 5;

/// The limits an operator may change, from `vlab serve`'s options; every connection and
/// request is held to them. `Limits::default()` is the `DEFAULT_*` constants.
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    /// Most connections open at once, websockets included (at least 1). Past it a new
    /// connection is answered 503 (`server_busy`, `Retry-After`) and closed.
    pub max_connections: usize,
    /// Most connections open at once from one client address (at least 1). Past it a
    /// new connection from that address is answered 429 (`too_many_requests`,
    /// `Retry-After`) and closed.
    pub max_connections_per_address: usize,
    /// How long a connection has to send a request's headers, from when it opens or
    /// from its previous answer; then it is closed. Not applied to an upgraded
    /// websocket.
    pub header_timeout: Duration,
    /// How long a request's body may take to arrive, from when its headers did; past it
    /// the request fails (400, saying so) and the connection is closed. Not applied to
    /// an upgraded websocket.
    pub body_timeout: Duration,
    /// Joins per client address (`POST /api/join`, `POST /api/labs/{lab}/join`),
    /// right or wrong; past it 429 with `Retry-After`.
    pub joins: Rate,
    /// Uploads per client address (`POST .../robots`, `POST .../scene`,
    /// `PUT .../program`); past it 429 with `Retry-After`.
    pub uploads: Rate,
    /// Time control per client address (`POST .../control`); past it 429 with
    /// `Retry-After`.
    pub controls: Rate,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_connections_per_address: DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
            header_timeout: DEFAULT_HEADER_TIMEOUT,
            body_timeout: DEFAULT_BODY_TIMEOUT,
            joins: DEFAULT_JOIN_RATE,
            uploads: DEFAULT_UPLOAD_RATE,
            controls: DEFAULT_CONTROL_RATE,
        }
    }
}

/// File descriptors the process keeps besides its connections (the database, the
/// scene library, robot programs' pipes, the log).
const SPARE_FILES: u64 = 256;

/// Raises the process's open-file limit (`ulimit -n`) up to its hard limit when it is
/// below `max_connections` and some spare; warns when even the hard limit is. Without
/// this, a server at its soft limit (often 1024) would fail to accept before reaching
/// its connection cap.
pub fn raise_open_files_limit(limits: &Limits) {
    #[cfg(target_os = "linux")]
    {
        use rustix::process::{Resource, getrlimit, setrlimit};
        let wanted = limits.max_connections as u64 + SPARE_FILES;
        let limit = getrlimit(Resource::Nofile);
        let current = limit.current.unwrap_or(u64::MAX);
        if current >= wanted {
            return;
        }
        let raised = limit.maximum.unwrap_or(u64::MAX).min(wanted);
        let mut now = current;
        if raised > current {
            let new = rustix::process::Rlimit { current: Some(raised), maximum: limit.maximum };
            match setrlimit(Resource::Nofile, new) {
                Ok(()) => now = raised,
                Err(error) => tracing::debug!(%error, "could not raise the open-file limit"),
            }
        }
        if now < wanted {
            tracing::warn!(
                open_files = now,
                max_connections = limits.max_connections,
                "the open-file limit is below --max-connections: raise `ulimit -n` (see docs/operations.md)"
            );
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (limits, SPARE_FILES);
}

/// A request rate: at most `count` requests in any `per`, all at once if they like
/// (a burst of `count`), then one every `per / count` on average. Written `100/min`,
/// `250/5min`, `5/10s`, `20/s`, `1000/h`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rate {
    /// Requests in a period, and the largest burst (at least 1).
    pub count: u32,
    /// The period (more than zero).
    pub per: Duration,
}

impl Rate {
    /// The time after which one more request is allowed.
    pub fn interval(&self) -> Duration {
        self.per / self.count.max(1)
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.per.as_secs();
        if self.per.subsec_nanos() != 0 {
            write!(f, "{}/{}ms", self.count, self.per.as_millis())
        } else if secs == 3600 {
            write!(f, "{}/h", self.count)
        } else if secs.is_multiple_of(3600) {
            write!(f, "{}/{}h", self.count, secs / 3600)
        } else if secs == 60 {
            write!(f, "{}/min", self.count)
        } else if secs.is_multiple_of(60) {
            write!(f, "{}/{}min", self.count, secs / 60)
        } else if secs == 1 {
            write!(f, "{}/s", self.count)
        } else {
            write!(f, "{}/{secs}s", self.count)
        }
    }
}

impl FromStr for Rate {
    type Err = String;

    fn from_str(text: &str) -> Result<Rate, String> {
        let wrong = || format!("'{text}' is not a rate: write e.g. 100/min, 250/5min, 5/10s, 20/s or 1000/h");
        let (count, period) = text.trim().split_once('/').ok_or_else(wrong)?;
        let count: u32 = count.trim().parse().map_err(|_| wrong())?;
        let period = period.trim();
        let digits = period.find(|c: char| !c.is_ascii_digit()).unwrap_or(period.len());
        let (amount, unit) = period.split_at(digits);
        let amount: u64 = if amount.is_empty() { 1 } else { amount.parse().map_err(|_| wrong())? };
        let unit = match unit {
            "ms" => Duration::from_millis(1),
            "s" | "sec" => Duration::from_secs(1),
            "m" | "min" => Duration::from_secs(60),
            "h" | "hour" => Duration::from_secs(3600),
            _ => return Err(wrong()),
        };
        let per = unit * u32::try_from(amount).map_err(|_| wrong())?;
        if count == 0 || per.is_zero() {
            return Err(format!("'{text}': a rate needs at least one request in a period longer than zero"));
        }
        Ok(Rate { count, per })
    }
}

/// Who a limit counts: a client's IP address, an IPv6 one as its /64 network (an
/// IPv4-mapped IPv6 address as the IPv4 address it is).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClientKey(IpAddr);

impl ClientKey {
    /// The key of a client at `ip`.
    pub fn of(ip: IpAddr) -> ClientKey {
        match ip {
            IpAddr::V4(_) => ClientKey(ip),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => ClientKey(IpAddr::V4(v4)),
                None => {
                    let network = u128::from(v6) & !((1u128 << 64) - 1);
                    ClientKey(IpAddr::V6(Ipv6Addr::from(network)))
                }
            },
        }
    }
}

impl fmt::Display for ClientKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            IpAddr::V6(v6) => write!(f, "{v6}/64"),
            v4 => write!(f, "{v4}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_read_as_written() {
        let read = |text: &str| text.parse::<Rate>();
        assert_eq!(read("100/min"), Ok(Rate { count: 100, per: Duration::from_secs(60) }));
        assert_eq!(read("5/10s"), Ok(Rate { count: 5, per: Duration::from_secs(10) }));
        assert_eq!(read(" 20 / s "), Ok(Rate { count: 20, per: Duration::from_secs(1) }));
        assert_eq!(read("1000/h"), Ok(Rate { count: 1000, per: Duration::from_secs(3600) }));
        assert_eq!(read("250/5min"), Ok(Rate { count: 250, per: Duration::from_secs(300) }));
        assert_eq!(read("9/2h"), Ok(Rate { count: 9, per: Duration::from_secs(7200) }));
        assert_eq!(read("3/500ms"), Ok(Rate { count: 3, per: Duration::from_millis(500) }));
        for wrong in ["", "100", "0/min", "5/0s", "x/min", "5/week", "-1/s"] {
            assert!(read(wrong).is_err(), "{wrong} was read");
        }
        let others = ["5/10s", "9/2h", "3/500ms", "7/90s"].map(|text| read(text).unwrap());
        for rate in [DEFAULT_JOIN_RATE, DEFAULT_UPLOAD_RATE, DEFAULT_CONTROL_RATE].into_iter().chain(others) {
            assert_eq!(read(&rate.to_string()), Ok(rate), "{rate} does not read back");
        }
        assert_eq!(DEFAULT_JOIN_RATE.to_string(), "250/5min");
        assert_eq!(DEFAULT_JOIN_RATE.interval(), Duration::from_millis(1200));
    }

    #[test]
    fn an_ipv6_client_counts_as_its_network() {
        let key = |text: &str| ClientKey::of(text.parse().unwrap());
        assert_eq!(key("2001:db8:1:2:aaaa::1"), key("2001:db8:1:2:bbbb::2"));
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"));
        assert_eq!(key("::ffff:192.0.2.7"), key("192.0.2.7"));
        assert_ne!(key("192.0.2.7"), key("192.0.2.8"));
        assert_eq!(key("2001:db8:1:2::9").to_string(), "2001:db8:1:2::/64");
    }
}
