//! Who is in a lab: its instructor (by the lab's instructor token) and the students who
//! joined with its code (each with a session token and a display name unique in the
//! lab), and how many pages each has connected. Tokens decide roles; names are only
//! for people to read.

use std::collections::BTreeMap;

use rand::Rng;
use vlab_protocol::permissions::{Action, Standing};
use vlab_protocol::{MAX_PARTICIPANTS, Participant, Role, UserId, clean_display_name};

use crate::secret::{TokenDigest, new_token};

pub use vlab_protocol::INSTRUCTOR_ID;

/// Characters of join codes: no 0/O, 1/I/L, so a code read aloud or off a projector is
/// typed right.
const CODE_ALPHABET: &[u8] = b"ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/// Length of a join code: 31⁶ ≈ 887 million codes.
const CODE_LENGTH: usize = 6;

/// Who is calling, as the server decides from their token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Caller {
    /// The lab's instructor.
    Instructor,
    /// A student who joined, by id.
    Student(UserId),
    /// Anybody without a session: watches only.
    Viewer,
}

impl Caller {
    /// Whether this caller reads the console of a robot owned by `owner` (`None`: the
    /// lab's own robot): its owner and the instructor do; a program's output is its
    /// author's business.
    pub fn may_read_console(self, owner: Option<UserId>) -> bool {
        Action::ReadConsole.allows(self.toward_robot(owner))
    }

    /// Whether this caller sees what the program of a robot owned by `owner` believes
    /// and draws: its owner and the instructor do, everybody when the instructor
    /// `shared` them.
    pub fn may_see_belief(self, owner: Option<UserId>, shared: bool) -> bool {
        shared || Action::SeeBelief.allows(self.toward_robot(owner))
    }

    /// The caller's standing toward the lab as a whole (the permission table's column).
    pub fn in_lab(self) -> Standing {
        Standing::in_lab(self.role())
    }

    /// The caller's standing toward a robot owned by `owner` (`None`: the lab's own).
    pub fn toward_robot(self, owner: Option<UserId>) -> Standing {
        Standing::toward_robot(self.role(), self.user(), owner)
    }

    /// The protocol's role.
    pub fn role(self) -> Role {
        match self {
            Caller::Instructor => Role::Instructor,
            Caller::Student(_) => Role::Student,
            Caller::Viewer => Role::Viewer,
        }
    }

    /// The caller's id in the lab, if they have one.
    pub fn user(self) -> Option<UserId> {
        match self {
            Caller::Instructor => Some(INSTRUCTOR_ID),
            Caller::Student(id) => Some(id),
            Caller::Viewer => None,
        }
    }
}

/// Why a join was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JoinError {
    /// Not this lab's code.
    #[error("that is not this lab's join code: check it with your instructor")]
    WrongCode,
    /// Empty, too long or unprintable.
    #[error("a display name needs 1 to {max} printable characters", max = vlab_protocol::MAX_NAME_CHARS)]
    BadName,
    /// The lab has as many students as its instructor allows (`max_participants`).
    #[error("this lab is full: it admits {max} students and has them all; ask your instructor")]
    Full {
        /// The lab's limit.
        max: usize,
    },
}

struct Person {
    name: String,
    token: TokenDigest,
}

/// The people of one lab.
pub struct Participants {
    instructor: TokenDigest,
    join_code: String,
    /// Students by id (ids count from 1 and are never reused).
    students: BTreeMap<UserId, Person>,
    next_id: UserId,
    /// Open connections per participant.
    online: BTreeMap<UserId, usize>,
}

impl Participants {
    /// A lab with its instructor and join code and nobody else yet.
    pub fn new(instructor: TokenDigest, join_code: String) -> Participants {
        Participants { instructor, join_code, students: BTreeMap::new(), next_id: 1, online: BTreeMap::new() }
    }

    /// Re-admits a student from a stored session (after a restart).
    pub fn restore(&mut self, id: UserId, name: String, token: TokenDigest) {
        self.students.insert(id, Person { name, token });
        self.next_id = self.next_id.max(id + 1);
    }

    /// The lab's join code.
    pub fn join_code(&self) -> &str {
        &self.join_code
    }

    /// Replaces the join code: the old one admits nobody from now on.
    pub fn set_join_code(&mut self, code: &str) {
        self.join_code = normalise_code(code);
    }

    /// Who a bearer of `token` is; `None` when the token means nothing here. No token
    /// at all makes a viewer.
    pub fn caller(&self, token: Option<&str>) -> Option<Caller> {
        let token = match token {
            None | Some("") => return Some(Caller::Viewer),
            Some(token) => token,
        };
        if self.instructor.matches(token) {
            return Some(Caller::Instructor);
        }
        self.students.iter().find(|(_, person)| person.token.matches(token)).map(|(id, _)| Caller::Student(*id))
    }

    /// Admits a student with the lab's `code` under `name` (made unique: "Ana (2)"),
    /// while fewer than `max` students (at most [`MAX_PARTICIPANTS`]) are in. Returns
    /// their id and session token.
    pub fn join(&mut self, code: &str, name: &str, max: usize) -> Result<(UserId, String), JoinError> {
        if normalise_code(code) != self.join_code {
            return Err(JoinError::WrongCode);
        }
        self.admit(name, max)
    }

    /// Admits a student under `name` (made unique) without the join code: a student of
    /// the lab's class, known to the class already (`max` as for [`Participants::join`]).
    pub fn admit(&mut self, name: &str, max: usize) -> Result<(UserId, String), JoinError> {
        let name = clean_display_name(name).ok_or(JoinError::BadName)?;
        let max = max.min(MAX_PARTICIPANTS);
        if self.students.len() >= max {
            return Err(JoinError::Full { max });
        }
        let taken = |candidate: &str| {
            candidate.eq_ignore_ascii_case("Instructor")
                || self.students.values().any(|p| p.name.to_lowercase() == candidate.to_lowercase())
        };
        let mut unique = name.clone();
        let mut n = 2;
        while taken(&unique) {
            unique = format!("{name} ({n})");
            n += 1;
        }
        let id = self.next_id;
        self.next_id += 1;
        let token = new_token();
        self.students.insert(id, Person { name: unique, token: TokenDigest::of(&token) });
        Ok((id, token))
    }

    /// Takes a student out of the roster (an admission that could not be kept, or a
    /// student the instructor removed): their token means nothing from now on. Whether
    /// they were in it.
    pub fn forget(&mut self, id: UserId) -> bool {
        self.online.remove(&id);
        self.students.remove(&id).is_some()
    }

    /// Gives student `id` a new display name (her class renamed her); whether she is here.
    pub fn rename(&mut self, id: UserId, name: &str) -> bool {
        self.students.get_mut(&id).map(|person| person.name = name.to_owned()).is_some()
    }

    /// A participant's display name.
    pub fn name_of(&self, id: UserId) -> Option<String> {
        if id == INSTRUCTOR_ID {
            return Some("Instructor".into());
        }
        self.students.get(&id).map(|p| p.name.clone())
    }

    /// Counts a page of theirs as connected.
    pub fn connected(&mut self, id: UserId) {
        *self.online.entry(id).or_default() += 1;
    }

    /// Counts a page of theirs as gone.
    pub fn disconnected(&mut self, id: UserId) {
        if let Some(count) = self.online.get_mut(&id) {
            *count -= 1;
            if *count == 0 {
                self.online.remove(&id);
            }
        }
    }

    /// How many people joined, the instructor included.
    pub fn count(&self) -> usize {
        self.students.len() + 1
    }

    /// Everybody, the instructor first, with the robots `owned_by` says they own.
    pub fn list(&self, owned_by: impl Fn(UserId) -> Vec<String>) -> Vec<Participant> {
        let view = |id: UserId, name: String, role: Role| Participant {
            id,
            name,
            role,
            online: self.online.contains_key(&id),
            robots: owned_by(id),
        };
        std::iter::once(view(INSTRUCTOR_ID, "Instructor".into(), Role::Instructor))
            .chain(self.students.iter().map(|(id, person)| view(*id, person.name.clone(), Role::Student)))
            .collect()
    }

    /// One participant as [`Participants::list`] shows them.
    pub fn participant(&self, id: UserId, owned_by: impl Fn(UserId) -> Vec<String>) -> Option<Participant> {
        self.list(owned_by).into_iter().find(|p| p.id == id)
    }
}

/// A join code as typed: upper-case, without spaces or dashes.
pub fn normalise_code(code: &str) -> String {
    code.chars().filter(|c| !c.is_whitespace() && *c != '-').flat_map(char::to_uppercase).collect()
}

/// A fresh join code.
pub fn new_join_code() -> String {
    let mut rng = rand::rng();
    (0..CODE_LENGTH).map(|_| CODE_ALPHABET[rng.random_range(0..CODE_ALPHABET.len())] as char).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn students_join_with_the_code_and_get_unique_names_and_their_own_tokens() {
        let mut people = Participants::new(TokenDigest::of("teach"), "K7MP3Q".into());
        let (ana, ana_token) = people.join("k7m p3q", "Ana", MAX_PARTICIPANTS).unwrap();
        let (ana2, ana2_token) = people.join("K7MP3Q", "  ana ", MAX_PARTICIPANTS).unwrap();
        assert_ne!(ana_token, ana2_token);
        assert_eq!(people.name_of(ana).as_deref(), Some("Ana"));
        assert_eq!(people.name_of(ana2).as_deref(), Some("ana (2)"));
        assert_eq!(people.caller(Some(&ana_token)), Some(Caller::Student(ana)));
        assert_eq!(people.caller(Some("teach")), Some(Caller::Instructor));
        assert_eq!(people.caller(None), Some(Caller::Viewer));
        assert_eq!(people.caller(Some("nope")), None);
        assert_eq!(people.join("WRONG1", "Bob", 9), Err(JoinError::WrongCode));
        assert_eq!(people.join("K7MP3Q", " \t ", 9), Err(JoinError::BadName));
        let (_, _) = people.join("K7MP3Q", "instructor", 9).unwrap();
        assert_eq!(people.list(|_| vec![])[3].name, "instructor (2)", "nobody passes for the instructor");
    }

    #[test]
    fn presence_counts_pages() {
        let mut people = Participants::new(TokenDigest::of("t"), "AAAAAA".into());
        let (ana, _) = people.join("AAAAAA", "Ana", 1).unwrap();
        people.connected(ana);
        people.connected(ana);
        people.disconnected(ana);
        assert!(people.list(|_| vec![])[1].online);
        people.disconnected(ana);
        assert!(!people.list(|_| vec![])[1].online);
    }

    #[test]
    fn the_cap_admits_exactly_max_students_and_a_removal_or_a_new_code_takes_effect() {
        let mut people = Participants::new(TokenDigest::of("t"), "AAAAAA".into());
        let (ana, ana_token) = people.join("AAAAAA", "Ana", 2).unwrap();
        people.join("AAAAAA", "Bob", 2).unwrap();
        assert_eq!(people.join("AAAAAA", "Cy", 2), Err(JoinError::Full { max: 2 }));
        assert_eq!(people.join("AAAAAA", "Cy", 0), Err(JoinError::Full { max: 0 }), "0 lets nobody in");
        assert!(people.forget(ana));
        assert!(!people.forget(ana), "gone once");
        assert_eq!(people.caller(Some(&ana_token)), None, "a removed student's token means nothing");
        people.set_join_code("bbb-bbb");
        assert_eq!(people.join("AAAAAA", "Cy", 2), Err(JoinError::WrongCode));
        let (cy, _) = people.join("BBBBBB", "Cy", 2).unwrap();
        assert!(cy > ana, "ids are not reused");
    }

    #[test]
    fn join_codes_use_an_unambiguous_alphabet() {
        for _ in 0..100 {
            let code = new_join_code();
            assert_eq!(code.len(), 6);
            assert!(code.bytes().all(|c| CODE_ALPHABET.contains(&c)), "{code}");
            assert!(!code.contains(['0', 'O', '1', 'I', 'L']));
        }
    }
}
