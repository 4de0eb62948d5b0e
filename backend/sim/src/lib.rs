//! A lab's physics: the scene model put into rapier, robots' sensors and actuators on
//! it, and mesh files read into the triangles pages draw.
//!
//! Data flows one way: [`scene`] (what a lab contains, as data) → [`sim`] (the physics
//! world built from it) → [`robot`] (sensors read it, actuators act on it). [`mesh`]
//! reads mesh files. This crate knows nothing of programs, labs' threads, viewers or the
//! network: a lab drives it one step at a time.

pub mod mesh;
pub mod robot;
pub mod scene;
pub mod sim;
