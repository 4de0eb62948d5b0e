//! Classes as kept: each class with its teacher's token digest and code, its roster
//! (PINs and one-time links as digests), its students' sessions (digests), the labs it
//! owns and who each of its students is in each of them.

use rusqlite::{OptionalExtension, params};

use super::{SqliteStore, StoreError};
use vlab_lab::secret::TokenDigest;
use vlab_protocol::StudentId;

/// A class as kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassRecord {
    /// Its id.
    pub id: String,
    /// Its display name.
    pub name: String,
    /// The code its students sign in with.
    pub code: String,
    /// The digest of its teacher's token.
    pub teacher: TokenDigest,
}

/// A student on a roster, as kept.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StudentRecord {
    /// Her id in the class.
    pub id: StudentId,
    /// Her name.
    pub name: String,
    /// Her PIN's hash (a PHC string), if she has one.
    pub pin_hash: Option<String>,
    /// The digest of her unused one-time link, if she has one.
    pub link: Option<TokenDigest>,
    /// Whether the teacher removed her (kept so her grades stay readable).
    pub removed: bool,
}

fn digest_of(hex: Option<String>) -> Option<TokenDigest> {
    hex.as_deref().and_then(TokenDigest::from_hex)
}

fn student_of_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<StudentRecord> {
    Ok(StudentRecord {
        id: row.get(0)?,
        name: row.get(1)?,
        pin_hash: row.get(2)?,
        link: digest_of(row.get(3)?),
        removed: row.get::<_, i64>(4)? != 0,
    })
}

fn write_student(connection: &rusqlite::Connection, class: &str, student: &StudentRecord) -> rusqlite::Result<()> {
    connection
        .execute(
            "INSERT OR REPLACE INTO students (class, id, name, pin_digest, link_digest, removed)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                class,
                student.id,
                student.name,
                student.pin_hash,
                student.link.map(|d| d.to_hex()),
                i64::from(student.removed)
            ],
        )
        .map(|_| ())
}

const STUDENT_COLUMNS: &str = "id, name, pin_digest, link_digest, removed";

impl SqliteStore {
    /// Keeps a new class.
    pub fn save_class(&self, class: &ClassRecord, created_at: i64) -> Result<(), StoreError> {
        self.connection
            .execute(
                "INSERT INTO classes (id, name, code, teacher_digest, created_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![class.id, class.name, class.code, class.teacher.to_hex(), created_at],
            )
            .map(|_| ())
            .map_err(self.sqlite())
    }

    /// Every class, oldest first.
    pub fn classes(&self) -> Result<Vec<ClassRecord>, StoreError> {
        let mut statement = self
            .connection
            .prepare("SELECT id, name, code, teacher_digest FROM classes ORDER BY created_at, id")
            .map_err(self.sqlite())?;
        let rows = statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get::<_, String>(3)?)))
            .map_err(self.sqlite())?;
        let mut classes = Vec::new();
        for row in rows {
            let (id, name, code, teacher): (String, String, String, String) = row.map_err(self.sqlite())?;
            let teacher = TokenDigest::from_hex(&teacher).ok_or_else(|| StoreError::Corrupt {
                path: self.path.clone(),
                what: format!("class '{id}': its teacher's digest is not 64 hex digits"),
            })?;
            classes.push(ClassRecord { id, name, code, teacher });
        }
        Ok(classes)
    }

    /// Class `class`'s roster, removed students included, by id.
    pub fn students(&self, class: &str) -> Result<Vec<StudentRecord>, StoreError> {
        let mut statement = self
            .connection
            .prepare(&format!("SELECT {STUDENT_COLUMNS} FROM students WHERE class = ?1 ORDER BY id"))
            .map_err(self.sqlite())?;
        let rows = statement.query_map(params![class], student_of_row).map_err(self.sqlite())?;
        rows.collect::<Result<Vec<_>, _>>().map_err(self.sqlite())
    }

    /// Adds or changes a student of class `class`.
    pub fn save_student(&self, class: &str, student: &StudentRecord) -> Result<(), StoreError> {
        write_student(&self.connection, class, student).map_err(self.sqlite())
    }

    /// Changes a student and ends her sessions, in one transaction (a PIN reset, a
    /// removal: whoever signed in as her before is out).
    pub fn save_student_ending_sessions(&mut self, class: &str, student: &StudentRecord) -> Result<(), StoreError> {
        let path = self.path.clone();
        let sqlite = move |source| StoreError::Sqlite { path: path.clone(), source };
        let transaction = self.connection.transaction().map_err(&sqlite)?;
        write_student(&transaction, class, student).map_err(&sqlite)?;
        transaction
            .execute("DELETE FROM class_sessions WHERE class = ?1 AND student = ?2", params![class, student.id])
            .map_err(&sqlite)?;
        transaction.commit().map_err(&sqlite)
    }

    /// Keeps a class session.
    pub fn save_class_session(
        &self,
        class: &str,
        student: StudentId,
        digest: TokenDigest,
        at: i64,
    ) -> Result<(), StoreError> {
        self.connection
            .execute(
                "INSERT INTO class_sessions (digest, class, student, created_at) VALUES (?1, ?2, ?3, ?4)",
                params![digest.to_hex(), class, student, at],
            )
            .map(|_| ())
            .map_err(self.sqlite())
    }

    /// Every class session: (class, student, digest).
    pub fn class_sessions(&self) -> Result<Vec<(String, StudentId, TokenDigest)>, StoreError> {
        let mut statement =
            self.connection.prepare("SELECT class, student, digest FROM class_sessions").map_err(self.sqlite())?;
        let rows = statement
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get::<_, String>(2)?)))
            .map_err(self.sqlite())?;
        let mut sessions = Vec::new();
        for row in rows {
            let (class, student, digest) = row.map_err(self.sqlite())?;
            if let Some(digest) = TokenDigest::from_hex(&digest) {
                sessions.push((class, student, digest));
            }
        }
        Ok(sessions)
    }

    /// Lab `lab` belongs to class `class`.
    pub fn save_class_lab(&self, class: &str, lab: &str) -> Result<(), StoreError> {
        self.connection
            .execute("INSERT OR REPLACE INTO class_labs (lab, class) VALUES (?1, ?2)", params![lab, class])
            .map(|_| ())
            .map_err(self.sqlite())
    }

    /// Every lab that belongs to a class: (lab, class).
    pub fn class_labs(&self) -> Result<Vec<(String, String)>, StoreError> {
        let mut statement = self.connection.prepare("SELECT lab, class FROM class_labs").map_err(self.sqlite())?;
        let rows = statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?))).map_err(self.sqlite())?;
        rows.collect::<Result<Vec<_>, _>>().map_err(self.sqlite())
    }

    /// Who student `student` is in lab `lab`, if she entered it before.
    pub fn lab_member(&self, lab: &str, student: StudentId) -> Result<Option<u32>, StoreError> {
        self.connection
            .query_row(
                "SELECT user_id FROM class_lab_members WHERE lab = ?1 AND student = ?2",
                params![lab, student],
                |row| row.get(0),
            )
            .optional()
            .map_err(self.sqlite())
    }

    /// Student `student` entered lab `lab` as participant `user`, with her session
    /// there (`session`), in one transaction.
    pub fn save_lab_member(&mut self, student: StudentId, session: &super::SessionRecord) -> Result<(), StoreError> {
        let path = self.path.clone();
        let sqlite = move |source| StoreError::Sqlite { path: path.clone(), source };
        let transaction = self.connection.transaction().map_err(&sqlite)?;
        transaction
            .execute(
                "INSERT OR REPLACE INTO class_lab_members (lab, student, user_id) VALUES (?1, ?2, ?3)",
                params![session.lab, student, session.user],
            )
            .map_err(&sqlite)?;
        // Her session, for the lab's restart: only where the lab itself is kept (a
        // server without a database keeps its course, not its labs, in memory).
        transaction
            .execute(
                "INSERT OR REPLACE INTO sessions (lab, user_id, name, token_digest)
                 SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM labs WHERE id = ?1)",
                params![session.lab, session.user, session.name, session.token.to_hex()],
            )
            .map_err(&sqlite)?;
        transaction.commit().map_err(&sqlite)
    }

    /// Renames participant `user` of lab `lab`.
    pub fn rename_session(&self, lab: &str, user: u32, name: &str) -> Result<(), StoreError> {
        self.connection
            .execute("UPDATE sessions SET name = ?3 WHERE lab = ?1 AND user_id = ?2", params![lab, user, name])
            .map(|_| ())
            .map_err(self.sqlite())
    }

    /// Every member of lab `lab` who came from its class: (student, participant id).
    pub fn lab_members(&self, lab: &str) -> Result<Vec<(StudentId, u32)>, StoreError> {
        let mut statement = self
            .connection
            .prepare("SELECT student, user_id FROM class_lab_members WHERE lab = ?1")
            .map_err(self.sqlite())?;
        let rows = statement.query_map(params![lab], |row| Ok((row.get(0)?, row.get(1)?))).map_err(self.sqlite())?;
        rows.collect::<Result<Vec<_>, _>>().map_err(self.sqlite())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;
    use crate::store::test_pg::TestBackend;

    fn class() -> ClassRecord {
        ClassRecord {
            id: "robotics-2b-k7mp".into(),
            name: "Robotics 2B".into(),
            code: "ABCD2345".into(),
            teacher: TokenDigest::of("teacher"),
        }
    }

    #[test]
    fn a_class_its_roster_and_sessions_read_back() {
        for backend in TestBackend::each() {
            a_class_its_roster_and_sessions_read_back_on(backend.store());
        }
    }

    fn a_class_its_roster_and_sessions_read_back_on(mut store: Store) {
        store.save_class(&class(), 1_800_000_000).unwrap();
        assert_eq!(store.classes().unwrap(), vec![class()]);
        let ana = StudentRecord {
            id: 1,
            name: "Ana".into(),
            pin_hash: Some("$argon2id$...".into()),
            link: Some(TokenDigest::of("link")),
            removed: false,
        };
        store.save_student(&class().id, &ana).unwrap();
        store.save_class_session(&class().id, 1, TokenDigest::of("session"), 1).unwrap();
        assert_eq!(store.students(&class().id).unwrap(), vec![ana.clone()]);
        assert_eq!(store.class_sessions().unwrap(), vec![(class().id, 1, TokenDigest::of("session"))]);
        let reset = StudentRecord { pin_hash: None, link: None, ..ana };
        store.save_student_ending_sessions(&class().id, &reset).unwrap();
        assert_eq!(store.students(&class().id).unwrap(), vec![reset]);
        assert!(store.class_sessions().unwrap().is_empty(), "a reset ends her sessions");
    }

    #[test]
    fn a_student_is_one_participant_in_each_lab_she_entered() {
        for backend in TestBackend::each() {
            a_student_is_one_participant_in_each_lab_she_entered_on(backend.store());
        }
    }

    fn a_student_is_one_participant_in_each_lab_she_entered_on(mut store: Store) {
        let lab = super::super::LabRecord {
            id: "lesson-1".into(),
            name: "L".into(),
            instructor: TokenDigest::of("t"),
            seed: 1,
            join_code: String::new(),
            scene: super::super::LabScene::Demo,
            settings_json: String::new(),
        };
        store.save_lab(&lab).unwrap();
        store.save_class_lab("c", "lesson-1").unwrap();
        assert_eq!(store.class_labs().unwrap(), vec![("lesson-1".to_owned(), "c".to_owned())]);
        assert_eq!(store.lab_member("lesson-1", 1).unwrap(), None);
        let session = super::super::SessionRecord {
            lab: "lesson-1".into(),
            user: 4,
            name: "Ana".into(),
            token: TokenDigest::of("t"),
        };
        store.save_lab_member(1, &session).unwrap();
        assert_eq!(store.lab_member("lesson-1", 1).unwrap(), Some(4));
        assert_eq!(store.lab_members("lesson-1").unwrap(), vec![(1, 4)]);
        assert_eq!(store.sessions("lesson-1").unwrap(), vec![session]);
    }
}
