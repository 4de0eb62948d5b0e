//! The inspector's state: the robots to pick from, the picked one and what the page knows of it (its report, its program's belief, its plots, its rays and trails, the image of the camera watched).

use leptos::prelude::*;
use vlab_protocol::{Belief, CameraView, RobotReport};

use super::plot_board::PlotBoard;
use crate::view3d::overlay::Overlay;

/// Handles to the inspector's state; `Copy`, so every component and callback takes its own.
#[derive(Clone, Copy)]
pub struct InspectorState {
    /// Robots in the current snapshot, in scene order.
    pub robots: RwSignal<Vec<String>>,
    /// The robot the inspector shows; the socket is subscribed to it while the panel is open.
    pub inspected: RwSignal<Option<String>>,
    /// The newest report of the inspected robot (reports of any other robot are dropped).
    pub robot_report: RwSignal<Option<RobotReport>>,
    /// The latest belief of the inspected robot's program, when this page may see it
    /// (dropped with another robot picked, and on a reset).
    pub belief: RwSignal<Option<Belief>>,
    /// The inspected robot's open plots, fed by its reports.
    pub plots: RwSignal<PlotBoard>,
    /// The inspected robot's rays and trails, fed by its reports, read by the render loop.
    pub overlay: StoredValue<Overlay>,
    /// The latest image of the camera this page watches (the robot's-eye view).
    pub camera_view: RwSignal<Option<CameraView>>,
}

impl InspectorState {
    /// No robot known, none picked.
    pub fn new() -> InspectorState {
        InspectorState {
            robots: RwSignal::new(Vec::new()),
            inspected: RwSignal::new(None),
            robot_report: RwSignal::new(None),
            belief: RwSignal::new(None),
            plots: RwSignal::new(PlotBoard::default()),
            overlay: StoredValue::new(Overlay::default()),
            camera_view: RwSignal::new(None),
        }
    }

    /// Shows `robot` in the inspector (or nothing), dropping the previous robot's
    /// report, belief, plots, rays and trails.
    pub fn inspect(&self, robot: Option<String>) {
        if self.inspected.get_untracked() != robot {
            self.robot_report.set(None);
            self.belief.set(None);
            self.plots.update(|plots| plots.follow(robot.as_deref()));
            self.overlay.update_value(Overlay::forget);
            self.inspected.set(robot);
        }
    }

    /// The robots of a new scene; a robot gone from it cannot be inspected any more.
    pub fn take_robots(&self, robots: Vec<String>) {
        if self.inspected.get_untracked().is_some_and(|robot| !robots.contains(&robot)) {
            self.inspect(None);
        }
        self.robots.set(robots);
    }

    /// Whether `robot` is the inspected one: what arrives of another robot was in flight
    /// when the user picked this one, and is dropped.
    fn is_inspected(&self, robot: &str) -> bool {
        self.inspected.with_untracked(|inspected| inspected.as_deref() == Some(robot))
    }

    /// Takes in a live report: the inspector, its plots and the 3D view's rays and trails.
    pub fn take_report(&self, report: RobotReport) {
        if !self.is_inspected(&report.name) {
            return;
        }
        self.plots.maybe_update(|plots| plots.observe(&report));
        self.overlay.update_value(|overlay| overlay.observe(&report));
        // A reset drops the belief of the run before it.
        if self.overlay.with_value(|overlay| overlay.belief().is_none()) && self.belief.with_untracked(Option::is_some)
        {
            self.belief.set(None);
        }
        self.robot_report.set(Some(report));
    }

    /// Takes in a live belief of the inspected robot's program: the inspector, the
    /// estimate error plot and the 3D view.
    pub fn take_belief(&self, belief: Belief) {
        if !self.is_inspected(&belief.robot) {
            return;
        }
        self.plots.update_untracked(|plots| plots.believe(&belief));
        self.overlay.update_value(|overlay| overlay.believe(&belief));
        self.belief.set(Some(belief));
    }

    /// Drops the rays and trails drawn: the replayed ones end, the live ones start over.
    pub fn forget_trails(&self) {
        self.overlay.update_value(Overlay::forget);
    }

    /// The image of the watched camera.
    pub fn take_camera_view(&self, view: CameraView) {
        self.camera_view.set(Some(view));
    }
}
