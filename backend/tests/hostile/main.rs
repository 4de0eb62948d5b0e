//! Regressions of one hostile student or outsider slowing or starving the class, one
//! module each, named after the symptom it caught, in one test binary (the suite links
//! once for all of them).

#[path = "../common/mod.rs"]
mod common;

mod regression_an_unread_export_locks_out_every_instructor;
mod regression_seeking_viewers_starve_the_server;
