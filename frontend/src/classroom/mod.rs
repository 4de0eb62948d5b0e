//! The classroom around a lab: the landing and create pages, joining, the people panel, the instructor's tools and notices, what may be done to a robot, and the sessions this browser keeps.
//!
//! Pure, host-tested: [`forms`] (stored sessions; the join, create, lab-list, settings
//! and notice requests and what their answers mean; who owns a robot). Web only:
//! `client` (the classroom's requests and the sessions in `localStorage`), the pages
//! (`landing`, `create_lab`) and the lab's pieces (`class_panel`, `instructor_tools` with
//! its `lab_settings`, `save_scene` and `room_form` (its fields in `room_fields`, pure), `notice_banner`, `robot_actions`, `objects_panel`: the palette and one's objects), and `state`
//! (who is in the lab, settings, notices, permissions).

pub mod forms;
pub mod room_fields;

#[cfg(target_arch = "wasm32")]
mod class_panel;
#[cfg(target_arch = "wasm32")]
pub(crate) mod client;
#[cfg(target_arch = "wasm32")]
mod create_lab;
#[cfg(target_arch = "wasm32")]
mod instructor_tools;
#[cfg(target_arch = "wasm32")]
mod lab_settings;
#[cfg(target_arch = "wasm32")]
mod landing;
#[cfg(target_arch = "wasm32")]
mod notice_banner;
#[cfg(target_arch = "wasm32")]
mod objects_panel;
#[cfg(target_arch = "wasm32")]
mod robot_actions;
#[cfg(target_arch = "wasm32")]
mod room_form;
#[cfg(target_arch = "wasm32")]
mod save_scene;
#[cfg(target_arch = "wasm32")]
mod state;

#[cfg(target_arch = "wasm32")]
pub(crate) use self::class_panel::ClassPanel;
#[cfg(target_arch = "wasm32")]
pub(crate) use self::create_lab::CreateLabPage;
#[cfg(target_arch = "wasm32")]
pub(crate) use self::landing::LandingPage;
#[cfg(target_arch = "wasm32")]
pub(crate) use self::notice_banner::NoticeBanner;
#[cfg(target_arch = "wasm32")]
pub(crate) use self::robot_actions::RobotActions;
#[cfg(target_arch = "wasm32")]
pub(crate) use self::state::{ClassState, Notice};
