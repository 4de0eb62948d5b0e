//! Whether the 3D view shows the live lab or an attempt's replay, and what that means
//! for the live messages that arrive meanwhile.
//!
//! Live → **watching** an attempt (live frames and snapshots leave the view alone; the
//! live clock goes on) → back to the lab: `Live` is sent and the page is **returning**
//! until the server's snapshot of the live lab arrives (live frames before it belong to
//! another scene than the attempt's on screen) → **live**.

/// Where the view stands.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Watch {
    /// The live lab.
    #[default]
    Live,
    /// An attempt's replay.
    Attempt {
        /// The attempt's number.
        id: u64,
    },
    /// Back to the lab asked; waiting for its scene.
    Returning,
}

impl Watch {
    /// Whether live frames move the view.
    pub fn view_follows_live(self) -> bool {
        self == Watch::Live
    }

    /// The attempt shown, if any.
    pub fn attempt(self) -> Option<u64> {
        match self {
            Watch::Attempt { id } => Some(id),
            _ => None,
        }
    }

    /// A snapshot of the live lab arrived: `true` when the view takes it (returning
    /// ends here); while an attempt is shown it waits, and going back brings it again.
    pub fn live_snapshot(&mut self) -> bool {
        match self {
            Watch::Attempt { .. } => false,
            Watch::Returning | Watch::Live => {
                *self = Watch::Live;
                true
            }
        }
    }

    /// Back to the lab: `true` when `Live` is to be sent (an attempt was shown).
    pub fn back(&mut self) -> bool {
        if self.attempt().is_none() {
            return false;
        }
        *self = Watch::Returning;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_attempt_holds_the_view_until_the_live_scene_comes_back() {
        let mut watch = Watch::default();
        assert!(watch.view_follows_live() && !watch.back(), "nothing to go back from");
        watch = Watch::Attempt { id: 4 };
        assert_eq!(watch.attempt(), Some(4));
        assert!(!watch.view_follows_live());
        assert!(!watch.live_snapshot(), "the live scene waits while the attempt is shown");
        assert!(watch.back());
        assert_eq!(watch, Watch::Returning);
        assert!(!watch.view_follows_live(), "live frames wait for the live scene");
        assert!(watch.live_snapshot());
        assert_eq!(watch, Watch::Live);
    }
}
