//! Regressions of one hostile student or outsider slowing or starving the class, one
//! module each, named after the symptom it caught, in one test binary (the suite links
//! once for all of them).

#[path = "../common/mod.rs"]
mod common;
mod controllers;
mod regression_a_controller_detached_for_a_flood_never_says_why;
mod regression_a_controller_that_never_reads_stays_connected;
mod regression_a_program_that_reads_late_slows_the_lab;
mod regression_a_reattaching_controller_holds_a_lockstep_lab;
mod regression_a_refused_rewind_leaves_the_lab_paused;
mod regression_a_remote_console_line_of_a_megabyte_passes_the_budget;
mod regression_a_rewind_after_a_long_run_pauses_the_class;
mod regression_a_slow_controller_holds_a_lockstep_lab;
mod regression_an_unread_export_locks_out_every_instructor;
mod regression_notices_carry_control_characters;
mod regression_radio_floods_eat_the_recording;
mod regression_seeking_viewers_starve_the_server;
