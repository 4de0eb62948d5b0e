//! Regressions of one hostile student or outsider slowing or starving the class, one
//! module each, named after the symptom it caught, in one test binary (the suite links
//! once for all of them).

#[path = "../common/mod.rs"]
mod common;
