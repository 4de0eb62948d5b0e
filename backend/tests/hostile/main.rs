//! Regressions of one hostile student or outsider slowing or starving the class, one
//! module each, named after the symptom it caught, in one test binary (the suite links
//! once for all of them).

#[path = "../common/mod.rs"]
mod common;

mod regression_notices_carry_control_characters;
mod regression_radio_floods_eat_the_recording;
