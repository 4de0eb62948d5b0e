//! The VLab server: HTTP API, websockets, labs and their simulations.
//!
//! Data flows one way: [`scene`] (what a lab contains, as data) → [`sim`] (the physics
//! world built from it) → [`robot`] (sensors read it, actuators act on it) →
//! [`controller`] (robot programs) → [`lab`] (one shared session: its clock, its thread,
//! its fan-out to viewers) → [`classroom`] (the product's rules: permissions, uploads,
//! labs' lives, persistence policy) → [`net`] (HTTP routes and websockets, translation
//! only). [`store`] keeps what must survive a restart; [`secret`] mints tokens and keeps
//! only their digests; [`examples`] reads the example robots teachers hand out; [`mesh`] reads mesh files into
//! the triangles pages draw.
//! The browser app and test clients only ever see the types of `vlab-protocol`.

pub mod classroom;
pub mod controller;
pub mod examples;
pub mod lab;
pub mod mesh;
pub mod net;
pub mod robot;
pub mod scene;
pub mod secret;
pub mod sim;
pub mod store;
