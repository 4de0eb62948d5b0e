//! A throw-away PostgreSQL database for the store's tests: one per test, created on
//! the test kit's server (`VLAB_TEST_POSTGRES_URL`, which `cargo xtask test` sets, or
//! one started for the test process) and dropped after.

use super::postgres::client::Pg;

/// A database of its own, dropped with this value.
pub struct TestDatabase {
    admin: Pg,
    name: String,
    /// Its URL.
    pub url: String,
}

impl TestDatabase {
    /// A new empty database on the test server.
    pub fn create() -> TestDatabase {
        // The one `cargo xtask test` started, or one started for this test process.
        let server = vlab_cluster::testkit::postgres_url();
        let admin = Pg::connect(&server).unwrap_or_else(|e| panic!("{server}: {e}"));
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

/// A store backend under test, with its data kept so it can be opened again (a
/// restart): a SQLite file in a folder of its own, or a PostgreSQL test database.
pub enum TestBackend {
    /// The folder holding `vlab.db` (removed with this value).
    Sqlite(std::path::PathBuf),
    /// The database (dropped with this value).
    Postgres(Box<TestDatabase>),
}

impl TestBackend {
    /// Both backends, SQLite first, each empty.
    pub fn each() -> [TestBackend; 2] {
        let dir = std::env::temp_dir().join(format!("vlab-store-test-{:016x}", rand::random::<u64>()));
        std::fs::create_dir_all(&dir).unwrap();
        [TestBackend::Sqlite(dir), TestBackend::Postgres(Box::new(TestDatabase::create()))]
    }

    /// Which one, for assertion messages.
    pub fn name(&self) -> &'static str {
        match self {
            TestBackend::Sqlite(_) => "sqlite",
            TestBackend::Postgres(_) => "postgres",
        }
    }

    /// The database as `--db` names it.
    pub fn database(&self) -> super::Database {
        match self {
            TestBackend::Sqlite(dir) => super::Database::Sqlite(dir.join("vlab.db")),
            TestBackend::Postgres(db) => super::Database::Postgres(db.url.clone()),
        }
    }

    /// The main store, opened (again).
    pub fn store(&self) -> super::Store {
        let key_file = match self {
            TestBackend::Sqlite(dir) => dir.join("vlab.db.key"),
            TestBackend::Postgres(db) => std::env::temp_dir().join(format!("{}.key", db.name)),
        };
        super::Store::open_database(&self.database(), &key_file).unwrap()
    }

    /// The attempts, opened (again).
    pub fn attempts(&self) -> super::AttemptStore {
        super::AttemptStore::open_database(&self.database()).unwrap()
    }

    /// The recordings, opened (again).
    pub fn recordings(&self) -> super::RecordingStore {
        super::RecordingStore::open_database(&self.database()).unwrap()
    }
}

impl Drop for TestBackend {
    fn drop(&mut self) {
        if let TestBackend::Sqlite(dir) = self {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// How many rows table `table` of `store` holds (whatever the backend).
pub fn rows_in(store: &super::Store, table: &str) -> i64 {
    let sql = format!("SELECT COUNT(*) FROM {table}");
    match store {
        super::Store::Sqlite(store) => store.connection.query_row(&sql, [], |r| r.get(0)).unwrap(),
        super::Store::Postgres(store) => store.pg.query_one(&sql, &[]).unwrap().get(0),
    }
}
