//! Regressions of one hostile student or outsider slowing or starving the class, one
//! module each, named after the symptom it caught, in one test binary (the suite links
//! once for all of them).

#[path = "../common/mod.rs"]
mod common;

mod regression_a_refused_rewind_leaves_the_lab_paused;
mod regression_a_rewind_after_a_long_run_pauses_the_class;
