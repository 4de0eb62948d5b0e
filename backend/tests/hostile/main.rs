//! Regressions of one hostile student or outsider slowing or starving the class, one
//! module each, named after the symptom it caught, in one test binary (the suite links
//! once for all of them).

#[path = "../common/mod.rs"]
mod common;
mod regression_a_robot_moved_into_a_wall_is_thrown_across_the_room;
mod regression_a_robot_uploaded_onto_another_pushes_it_through_the_floor;
