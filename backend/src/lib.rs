//! The VLab server: the classroom's rules (permissions, uploads, labs' lives), the store,
//! HTTP and websockets, and the `vlab` binary.
//!
//! The layers below are crates of their own, and data flows one way through them:
//! `vlab-scene` (what a lab contains, as data) → `vlab-sim` (the physics world, robots'
//! sensors and actuators) → `vlab-programs` (robot programs) → `vlab-lab` (one shared
//! session: its clock, its thread, its fan-out to viewers) → this crate: [`classroom`]
//! (the product's rules: permissions, uploads, labs' lives, persistence policy) →
//! [`net`] (HTTP routes and websockets, translation only). [`store`] keeps what must
//! survive a restart; [`examples`] reads the example robots teachers hand out.
//! The browser app and test clients only ever see the types of `vlab-protocol`.

pub mod classroom;
pub mod cluster;
pub mod examples;
pub mod net;
pub mod store;

/// The layers below, by the names the server's modules and its tests use for them.
pub use vlab_lab as lab;
pub use vlab_lab::secret;
pub use vlab_programs as controller;
pub use vlab_sim::{mesh, robot, scene, sim};
