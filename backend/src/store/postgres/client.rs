//! One connection to PostgreSQL for synchronous callers that run on tokio's worker
//! threads: every call bounded in time, failures sorted into "the database refused"
//! and "the database is unavailable", the connection made again on the next call
//! after an outage, and the outage logged once and the recovery once.
//!
//! The store's callers hold a `std::sync::Mutex` inside tokio tasks, so nothing here
//! may start or enter a tokio runtime there (`block_on` would panic). The connection's
//! own future (the socket) runs on a small runtime of the store's own, on a background
//! thread; the [`Client`] only sends requests over channels to it, so its futures need
//! no reactor and are waited on with `futures_executor::block_on`. A timer on that same
//! runtime bounds every wait.

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use futures_util::future::{Either, select};
use tokio_postgres::types::ToSql;
use tokio_postgres::{Client, Config, NoTls, Row};

use crate::store::StoreError;

/// How long connecting may take before the database counts as unavailable.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// How long one statement may run on the server (PostgreSQL's `statement_timeout`).
pub const STATEMENT_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a call waits for its answer, whatever the server does (a host that
/// vanished without closing the socket): the statement's bound and a margin.
pub const ANSWER_TIMEOUT: Duration = Duration::from_secs(6);

/// The runtime the connections' sockets and the timers run on: one thread, shared by
/// every store of the process.
fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("vlab-postgres")
            .enable_all()
            .build()
            .expect("a one-thread runtime starts")
    })
}

/// Waits for `future` from synchronous code, at most `limit`; `None` past it.
fn wait<T>(future: impl Future<Output = T>, limit: Duration) -> Option<T> {
    let timer = runtime().spawn(async move { tokio::time::sleep(limit).await });
    match futures_executor::block_on(select(std::pin::pin!(future), timer)) {
        Either::Left((value, timer)) => {
            timer.abort();
            Some(value)
        }
        Either::Right(_) => None,
    }
}

/// The databases known to be unavailable: an outage is logged once and its end once,
/// whichever of the process's connections (store, attempts, recordings) meets them.
fn outages() -> std::sync::MutexGuard<'static, std::collections::BTreeSet<String>> {
    static OUTAGES: std::sync::Mutex<std::collections::BTreeSet<String>> =
        std::sync::Mutex::new(std::collections::BTreeSet::new());
    OUTAGES.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A database as the log and errors show it: the URL without its password.
pub fn shown(config: &Config) -> String {
    let user = config.get_user().unwrap_or("");
    let host = match config.get_hosts().first() {
        Some(tokio_postgres::config::Host::Tcp(host)) => host.clone(),
        #[cfg(unix)]
        Some(tokio_postgres::config::Host::Unix(path)) => path.display().to_string(),
        None => "localhost".into(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let dbname = config.get_dbname().unwrap_or(user);
    format!("postgres://{user}@{host}:{port}/{dbname}")
}

/// A connection to one PostgreSQL database, made again after an outage.
pub struct Pg {
    config: Config,
    shown: String,
    client: RefCell<Option<Arc<Client>>>,
    /// Inside a transaction a lost connection is not made again: the statements after
    /// it would run outside the transaction.
    in_transaction: Cell<bool>,
}

impl Pg {
    /// Reads `url` (`postgres://user:password@host:port/dbname`) and connects.
    pub fn connect(url: &str) -> Result<Pg, StoreError> {
        let mut config: Config = url.parse().map_err(|e: tokio_postgres::Error| StoreError::Unavailable {
            database: "postgres://…".into(),
            reason: format!("the URL does not read: {e}"),
        })?;
        config
            .connect_timeout(CONNECT_TIMEOUT)
            // The server's notices ("already exists, skipping") are not worth a log line.
            .options(format!("-c statement_timeout={} -c client_min_messages=warning", STATEMENT_TIMEOUT.as_millis()))
            .application_name("vlab");
        let pg = Pg { shown: shown(&config), config, client: RefCell::new(None), in_transaction: Cell::new(false) };
        pg.client()?;
        Ok(pg)
    }

    /// The database as errors show it.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// The client, connecting first if there is none (or it lost its connection).
    fn client(&self) -> Result<Arc<Client>, StoreError> {
        if let Some(client) = self.client.borrow().as_ref().filter(|c| !c.is_closed()) {
            return Ok(Arc::clone(client));
        }
        if self.in_transaction.get() {
            return Err(self.unavailable("the connection was lost during a transaction".into()));
        }
        let config = self.config.clone();
        let connecting = runtime().spawn(async move {
            let (client, connection) = config.connect(NoTls).await?;
            tokio::spawn(async move {
                if let Err(e) = connection.await {
                    tracing::debug!(error = %e, "the connection to the database ended");
                }
            });
            Ok::<_, tokio_postgres::Error>(client)
        });
        let client = match wait(connecting, CONNECT_TIMEOUT + Duration::from_secs(1)) {
            Some(Ok(Ok(client))) => Arc::new(client),
            Some(Ok(Err(e))) => return Err(self.unavailable(describe(&e))),
            Some(Err(e)) => return Err(self.unavailable(format!("connecting failed: {e}"))),
            None => return Err(self.unavailable(format!("no connection within {CONNECT_TIMEOUT:?}"))),
        };
        *self.client.borrow_mut() = Some(Arc::clone(&client));
        Ok(client)
    }

    /// The database is unavailable for `reason`: the connection is dropped (the next
    /// call makes a new one) and the outage logged if it is news.
    fn unavailable(&self, reason: String) -> StoreError {
        self.client.borrow_mut().take();
        if outages().insert(self.shown.clone()) {
            tracing::error!(database = %self.shown, %reason, "the database is unavailable: changes are refused until it is back");
        }
        StoreError::Unavailable { database: self.shown.clone(), reason }
    }

    /// Runs one request on the client, bounded in time, its failure sorted.
    fn run<T, F: Future<Output = Result<T, tokio_postgres::Error>>>(
        &self,
        request: impl FnOnce(Arc<Client>) -> F,
    ) -> Result<T, StoreError> {
        let client = self.client()?;
        match wait(request(client), ANSWER_TIMEOUT) {
            Some(Ok(value)) => {
                if outages().remove(&self.shown) {
                    tracing::info!(database = %self.shown, "the database is back");
                }
                Ok(value)
            }
            Some(Err(e)) if is_outage(&e) => Err(self.unavailable(describe(&e))),
            Some(Err(source)) => Err(StoreError::Postgres { database: self.shown.clone(), source }),
            None => Err(self.unavailable(format!("no answer within {ANSWER_TIMEOUT:?}"))),
        }
    }

    /// Runs `sql` (several statements, no parameters).
    pub fn batch(&self, sql: &str) -> Result<(), StoreError> {
        self.run(|client| async move { client.batch_execute(sql).await })
    }

    /// Runs one statement; how many rows it changed.
    pub fn execute(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<u64, StoreError> {
        self.run(|client| async move { client.execute(sql, params).await })
    }

    /// The rows of a query.
    pub fn query(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Vec<Row>, StoreError> {
        self.run(|client| async move { client.query(sql, params).await })
    }

    /// The row of a query that gives at most one.
    pub fn query_opt(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Option<Row>, StoreError> {
        self.run(|client| async move { client.query_opt(sql, params).await })
    }

    /// The row of a query that gives exactly one.
    pub fn query_one(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> Result<Row, StoreError> {
        self.run(|client| async move { client.query_one(sql, params).await })
    }

    /// Runs `body` in one transaction: committed if it succeeds, rolled back if not.
    pub fn transaction<T>(&self, body: impl FnOnce(&Pg) -> Result<T, StoreError>) -> Result<T, StoreError> {
        self.batch("BEGIN")?;
        self.in_transaction.set(true);
        let result = body(self).and_then(|value| self.batch("COMMIT").map(|()| value));
        if result.is_err() {
            // On a lost connection there is nothing to roll back: the server did.
            let _ = self.batch("ROLLBACK");
        }
        self.in_transaction.set(false);
        result
    }

    /// A column read as the type asked for, or a [`StoreError::Corrupt`] saying which.
    pub fn get<'a, T: tokio_postgres::types::FromSql<'a>>(&self, row: &'a Row, column: usize) -> Result<T, StoreError> {
        row.try_get(column)
            .map_err(|e| StoreError::Corrupt { path: self.shown.clone(), what: format!("column {column}: {e}") })
    }
}

/// Whether `error` says the database cannot be reached (rather than that it refused
/// the statement): no connection, a connection lost, the server shutting down or out
/// of resources, a statement cancelled by `statement_timeout`.
fn is_outage(error: &tokio_postgres::Error) -> bool {
    match error.as_db_error() {
        Some(db) => {
            let code = db.code().code();
            code.starts_with("08") || code.starts_with("53") || code.starts_with("57")
        }
        // A value that does not convert is the caller's fault, not an outage.
        None => {
            error.is_closed() || std::error::Error::source(error).is_some_and(|source| source.is::<std::io::Error>())
        }
    }
}

/// An error as a sentence: the server's message where it sent one.
pub fn describe(error: &tokio_postgres::Error) -> String {
    match error.as_db_error() {
        Some(db) => format!("{} ({})", db.message(), db.code().code()),
        None => match std::error::Error::source(error) {
            Some(source) => format!("{error}: {source}"),
            None => error.to_string(),
        },
    }
}
