//! A course on the page: signing in to a class, creating one, and the class's page: the
//! teacher's sections (students, lessons, assignments, gradebook, overview), the
//! student's (her lessons, assignments and grades), and a graded trial's replay.
//!
//! Pure, host-tested: [`forms`] (the class session kept, what the forms send and what
//! the answers mean, the words for grades, statuses and programs). Web only: `client`
//! (the requests, the sessions in `localStorage`), `state` (the class page's session
//! and the browser's dates), the start pages' forms (`sign_in`, `create_class`), the
//! class page (`class_page`) with its sections (`roster`, `lessons`, `assignments`,
//! `gradebook` with `evaluation`, `overview`, `homework`, `my_grades`), and
//! `graded_replay`, a trial's replay in the 3D view with no lab behind it.

pub mod forms;

#[cfg(target_arch = "wasm32")]
mod assignments;
#[cfg(target_arch = "wasm32")]
mod class_page;
#[cfg(target_arch = "wasm32")]
pub(crate) mod client;
#[cfg(target_arch = "wasm32")]
mod create_class;
#[cfg(target_arch = "wasm32")]
mod evaluation;
#[cfg(target_arch = "wasm32")]
mod gradebook;
#[cfg(target_arch = "wasm32")]
mod graded_replay;
#[cfg(target_arch = "wasm32")]
mod homework;
#[cfg(target_arch = "wasm32")]
mod lessons;
#[cfg(target_arch = "wasm32")]
mod my_grades;
#[cfg(target_arch = "wasm32")]
mod overview;
#[cfg(target_arch = "wasm32")]
mod roster;
#[cfg(target_arch = "wasm32")]
mod sign_in;
#[cfg(target_arch = "wasm32")]
mod state;

#[cfg(target_arch = "wasm32")]
pub(crate) use self::class_page::ClassPage;
#[cfg(target_arch = "wasm32")]
pub(crate) use self::create_class::CreateClassCard;
#[cfg(target_arch = "wasm32")]
pub(crate) use self::sign_in::SignInForm;
