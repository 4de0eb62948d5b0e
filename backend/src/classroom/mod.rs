//! The classroom: the product's rules between the network and the labs.
//!
//! Who may do what (the permission table of `vlab_protocol::permissions`, applied to
//! every request here and nowhere else), uploads from files to a running robot
//! (interpret → resolve programs → check → persist → insert), lab creation, joining,
//! settings, and restoring every lab after a restart. One policy for the store: a change
//! is durable before it is acknowledged, and a change the store refuses is not made.
//!
//! `classroom` knows nothing of HTTP or websockets: `net` translates requests into calls
//! here and results into responses. It reaches the simulation only through
//! [`vlab_lab::LabHandle`].

mod access;
pub mod attempts;
pub(crate) mod board;
pub mod checkpoints;
mod clock;
pub mod course;
mod error;
pub mod export;
mod labs;
mod meshes;
mod objects;
mod people;
mod programs;
pub mod recording;
mod robots;
mod room;
mod saving;
mod timeline;
pub mod upload;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

pub use error::{ClassroomError, RefusalKind, UploadRefusal};
pub use labs::{DemoLab, OpenedDemo};
pub use upload::{STUDENT_MESH_BUDGET_BYTES, STUDENT_UPLOAD_BUDGET_BYTES, UploadBudget, UploadFiles, UploadedAssets};

pub use checkpoints::{ClassroomCheckpoints, KeptCheckpoints};
pub use clock::ClassroomClock;
pub use export::ClassroomExports;
pub use labs::ClassroomLabs;
pub use meshes::ClassroomMeshes;
pub use objects::{ClassroomObjects, PLACED_CLEARANCE_M, object_extent_m, object_mass_kg};
pub use people::ClassroomPeople;
pub use programs::ClassroomPrograms;
pub use recording::Recordings;
pub use robots::ClassroomRobots;
pub use room::ClassroomRoom;
pub use saving::{ClassroomSaving, SavedScene, SavedZip};
pub use timeline::ClassroomTimeline;
pub use timeline::{SEEK_TRAIL_WINDOW_SECS, Seek};
pub use upload::ClassroomUploads;

use crate::store::{AttemptStore, RecordingStore, Store, StoreError};
use vlab_lab::recording::RecordingSink;
use vlab_lab::secret::TokenDigest;
use vlab_lab::{LabHandle, Labs};
use vlab_programs::compile::{CompileLimits, Compiler};

/// Where a classroom finds what scenes refer to.
#[derive(Clone, Debug)]
pub struct Library {
    /// The scene library: labs are created from it and uploads include from it.
    pub scenes_dir: PathBuf,
    /// Meshes, textures and the material library.
    pub assets_dir: PathBuf,
}

impl Default for Library {
    /// The workspace's own `scenes/` and `assets/` folders.
    fn default() -> Library {
        let workspace = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
        Library { scenes_dir: workspace.join("scenes"), assets_dir: workspace.join("assets") }
    }
}

/// How a classroom is set up.
#[derive(Default)]
pub struct ClassroomConfig {
    /// Scenes and assets.
    pub library: Library,
    /// The digest of the key that creates labs (the demo lab's instructor token);
    /// `None`: nobody can, unless `open_labs`.
    pub server_key: Option<TokenDigest>,
    /// Whether anybody may create a lab (and become its instructor).
    pub open_labs: bool,
    /// Where labs, sessions and uploads are kept (`None`: in memory only).
    pub store: Option<Store>,
    /// Where labs' recordings are kept (`None`: in memory only).
    pub recordings: Option<RecordingStore>,
    /// The most bytes each lab's recording may take (`None`: the default,
    /// [`recording::DEFAULT_RECORDING_BUDGET_BYTES`]; `Some(0)`: labs record nothing).
    pub recording_budget: Option<u64>,
    /// How many exports of recordings are written at once, and how fast their clients
    /// must read.
    pub exports: export::ExportLimits,
    /// Where compiled C and C++ programs are kept by their sources' digest (`None`: in
    /// memory only); `vlab serve` keeps them in `<db>.compiled/`.
    pub compile_cache: Option<PathBuf>,
    /// The bounds of compiling (`None`: the defaults).
    pub compile_limits: Option<CompileLimits>,
    /// Where finished attempts and their replays are kept (`None`: in memory only);
    /// `vlab serve` keeps them in `<db>.attempts.db`.
    pub attempts: Option<AttemptStore>,
}

/// Every lab of a server and the rules that apply to them.
pub struct Classroom {
    /// The registry of running labs.
    pub registry: Labs,
    library: Library,
    assets: UploadedAssets,
    library_triangles: meshes::LibraryTriangles,
    budget: UploadBudget,
    server_key: Option<TokenDigest>,
    open_labs: bool,
    store: Option<Arc<Mutex<Store>>>,
    course: course::Course,
    recordings: Option<Recordings>,
    compiler: Arc<Compiler>,
    attempts: attempts::Attempts,
    evaluations: course::Evaluations,
    /// Whether the demo lab's time runs from its opening (`vlab serve --paused`: not),
    /// wherever and whenever it opens: a cluster's server opens it when it claims it.
    demo_starts_running: std::sync::atomic::AtomicBool,
}

impl Classroom {
    /// A classroom with no lab open yet.
    pub fn new(config: ClassroomConfig) -> Classroom {
        let budget = config.recording_budget.unwrap_or(recording::DEFAULT_RECORDING_BUDGET_BYTES);
        let recordings = (budget > 0).then(|| {
            let store = config.recordings.map_or_else(RecordingStore::in_memory, Ok);
            // An in-memory SQLite that does not open means the machine is out of memory.
            Recordings::start(store.expect("an in-memory recordings store opens"), budget, config.exports)
        });
        let store = config.store.map(|store| Arc::new(Mutex::new(store)));
        // Without a database a course lives in memory, as labs do.
        let course_store = store
            .clone()
            .unwrap_or_else(|| Arc::new(Mutex::new(Store::in_memory().expect("an in-memory SQLite opens"))));
        let course = course::Course::load(course_store)
            .unwrap_or_else(|error| panic!("the classes in the database cannot be read: {error}"));
        let compiler = Arc::new(Compiler::new(config.compile_cache, config.compile_limits.unwrap_or_default()));
        let attempts = attempts::Attempts::new(config.attempts);
        let evaluations =
            course::Evaluations::new(course.store(), attempts.queue(), Arc::clone(&compiler), config.library.clone());
        Classroom {
            registry: Labs::default(),
            library: config.library,
            assets: UploadedAssets::default(),
            library_triangles: meshes::LibraryTriangles::default(),
            budget: UploadBudget::default(),
            server_key: config.server_key,
            open_labs: config.open_labs,
            store,
            course,
            recordings,
            compiler,
            attempts,
            evaluations,
            demo_starts_running: std::sync::atomic::AtomicBool::new(true),
        }
    }

    /// Its labs' lives: creating, restoring, closing, listing.
    pub fn labs(&self) -> ClassroomLabs<'_> {
        ClassroomLabs { classroom: self }
    }

    /// Who takes part: joining, removals, join codes, settings, notices.
    pub fn people(&self) -> ClassroomPeople<'_> {
        ClassroomPeople { classroom: self }
    }

    /// Its classes: rosters, sign-ins, lessons, assignments, grades.
    pub fn course(&self) -> course::ClassroomCourse<'_> {
        course::ClassroomCourse { classroom: self }
    }

    /// The course as this server holds it in memory (cluster mode keeps it in step
    /// with the other servers').
    pub fn course_held(&self) -> &course::Course {
        &self.course
    }

    /// Its labs' clocks.
    pub fn clock(&self) -> ClassroomClock {
        ClassroomClock
    }

    /// Its labs' robots: reports, hand commands, keys, resets, removals, moves.
    pub fn robots(&self) -> ClassroomRobots<'_> {
        ClassroomRobots { classroom: self }
    }

    /// Its labs' rooms: read them, change them while the labs run.
    pub fn room(&self) -> ClassroomRoom<'_> {
        ClassroomRoom { classroom: self }
    }

    /// Its labs' checkpoints in the database: kept, and gone on from.
    pub fn checkpoints(&self) -> ClassroomCheckpoints<'_> {
        ClassroomCheckpoints { classroom: self }
    }

    /// Its labs saved as scenes.
    pub fn saving(&self) -> ClassroomSaving<'_> {
        ClassroomSaving { classroom: self }
    }

    /// Its robots' programs: sources, restarts and stops, remote controllers.
    pub fn programs(&self) -> ClassroomPrograms {
        ClassroomPrograms
    }

    /// Attempts at its labs' challenges.
    pub fn attempts(&self) -> attempts::ClassroomAttempts<'_> {
        attempts::ClassroomAttempts { classroom: self }
    }

    /// The compiler of its C and C++ programs.
    pub fn compiler(&self) -> &Compiler {
        &self.compiler
    }

    /// Objects from everyone: adding and removing objects.
    pub fn objects(&self) -> ClassroomObjects<'_> {
        ClassroomObjects { classroom: self }
    }

    /// Uploads: scenes, robots, programs, and the assets that came with them.
    pub fn uploads(&self) -> ClassroomUploads<'_> {
        ClassroomUploads { classroom: self }
    }

    /// The triangles of the meshes pages draw.
    pub fn meshes(&self) -> ClassroomMeshes<'_> {
        ClassroomMeshes { classroom: self }
    }

    /// Its labs' timelines: recording summaries, seeks, rewinds.
    pub fn timeline(&self) -> ClassroomTimeline<'_> {
        ClassroomTimeline { classroom: self }
    }

    /// Exports of its recordings.
    pub fn exports(&self) -> ClassroomExports<'_> {
        ClassroomExports { classroom: self }
    }

    /// Where a lab hands its recording (`None`: labs record nothing).
    pub fn recording_sink(&self) -> Option<RecordingSink> {
        self.recordings.as_ref().map(Recordings::sink)
    }

    /// The classroom's recordings (`None`: labs record nothing).
    pub fn recordings(&self) -> Option<&Recordings> {
        self.recordings.as_ref()
    }

    /// Where scenes and assets come from.
    pub fn library(&self) -> &Library {
        &self.library
    }

    /// The lab with this id.
    pub fn lab(&self, id: &str) -> Result<Arc<LabHandle>, ClassroomError> {
        self.registry.get(id).ok_or_else(|| ClassroomError::NoLab(format!("no lab '{id}' on this server")))
    }

    /// Runs `change` on the store, if there is one. The store's answer decides: an error
    /// here means the caller must not (or must no longer) apply the change.
    fn keep<T>(&self, change: impl FnOnce(&mut Store) -> Result<T, StoreError>) -> Result<Option<T>, ClassroomError> {
        match &self.store {
            None => Ok(None),
            Some(store) => Ok(Some(change(&mut store.lock().expect("store lock"))?)),
        }
    }

    /// Whether the database answers (`Ok` without one: memory always does).
    pub fn database_health(&self) -> Result<(), StoreError> {
        self.keep(|store| store.health()).map(|_| ()).map_err(|error| match error {
            ClassroomError::Store(error) => error,
            other => StoreError::Corrupt { path: String::new(), what: other.to_string() },
        })
    }

    /// Undoes a kept change whose effect could not be made; a failure is only logged (the
    /// restart then finds a record it cannot apply, which it logs and skips).
    fn unkeep(&self, lab: &str, what: &str, undo: impl FnOnce(&mut Store) -> Result<(), StoreError>) {
        if let Err(e) = self.keep(undo) {
            tracing::error!(%lab, error = %e, "could not take back a kept {what}");
        }
    }

    /// Forgets what no longer matters in lab `lab`'s kept log (a robot's replaced
    /// programs, robots removed with their uploads): the store holds what the lab holds,
    /// not all that was ever uploaded. Only logged if it fails: the log is still right,
    /// only longer.
    fn compact(&self, lab: &str) {
        match self.keep(|store| store.compact(lab)) {
            Ok(Some(forgotten)) if forgotten > 0 => tracing::debug!(%lab, forgotten, "kept log compacted"),
            Ok(_) => {}
            Err(e) => tracing::warn!(%lab, error = %e, "could not compact the kept log"),
        }
    }

    /// Robot `robot` (of `owner`) left lab `lab`: the assets only it used and the bytes
    /// it cost its owner are freed.
    fn robot_gone(&self, lab: &str, robot: &str, owner: Option<vlab_protocol::UserId>) {
        self.assets.robot_removed(lab, robot);
        if let Some(owner) = owner {
            self.budget.robot_removed(lab, owner, robot);
        }
    }

    /// Sets the key that creates labs (by its digest).
    pub fn set_server_key(&mut self, key: TokenDigest) {
        self.server_key = Some(key);
    }

    /// Stops every lab (server shutdown).
    pub fn shut_down(&self) {
        self.registry.shut_down_all();
    }
}
