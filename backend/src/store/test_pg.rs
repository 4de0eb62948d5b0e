//! A throw-away PostgreSQL database for the store's tests: one per test, created on
//! the server `VLAB_TEST_POSTGRES_URL` names (a superuser's URL) and dropped after. The
//! variable is required: without it the PostgreSQL half of each test fails, saying so.

use super::postgres::client::Pg;

/// The variable naming the test server.
pub const URL_VARIABLE: &str = "VLAB_TEST_POSTGRES_URL";

/// A database of its own, dropped with this value.
pub struct TestDatabase {
    admin: Pg,
    name: String,
    /// Its URL.
    pub url: String,
}

impl TestDatabase {
    /// A new empty database on the test server.
    pub fn new() -> TestDatabase {
        let server = std::env::var(URL_VARIABLE).unwrap_or_else(|_| {
            panic!(
                "{URL_VARIABLE} is not set: the store's tests also run on PostgreSQL and need a throw-away server, \
                 e.g. {URL_VARIABLE}=postgres://postgres@127.0.0.1:55432/postgres (see docs/operations.md)"
            )
        });
        let admin = Pg::connect(&server).unwrap_or_else(|e| panic!("{URL_VARIABLE}: {e}"));
        let name = format!("vlab_t_{:016x}", rand::random::<u64>());
        admin.batch(&format!("CREATE DATABASE {name}")).expect("the test database is created");
        let url = with_dbname(&server, &name);
        TestDatabase { admin, name, url }
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let _ = self.admin.batch(&format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name));
    }
}

/// `url` with its database name replaced by `name`.
pub fn with_dbname(url: &str, name: &str) -> String {
    let (head, query) = url.split_once('?').map_or((url, None), |(h, q)| (h, Some(q)));
    let scheme_end = head.find("://").map_or(0, |i| i + 3);
    let base = match head[scheme_end..].find('/') {
        Some(slash) => &head[..scheme_end + slash],
        None => head,
    };
    match query {
        Some(query) => format!("{base}/{name}?{query}"),
        None => format!("{base}/{name}"),
    }
}
