//! Labs' lives: creating one (with the server key, or by anybody on a server with open
//! labs), the demo lab, opening every stored lab again after a restart with what was
//! uploaded into it, and closing one.

use std::sync::Arc;

use vlab_protocol::permissions::Action;
use vlab_protocol::{CreateLabRequest, CreatedLab, LabSettings, LabSummary, clean_display_name};

use super::access::authorize;
use super::{Classroom, ClassroomError, Library};
use crate::store::{Insertion, LabRecord, LabScene};
use vlab_lab::participants::new_join_code;
use vlab_lab::secret::{TokenDigest, new_token};
use vlab_lab::{Caller, LabConfig, LabHandle};
use vlab_sim::scene::{DirLoader, Options, SceneModel, demo_scene, interpret};

/// The classroom's labs: created, opened again, closed and listed.
#[derive(Clone, Copy)]
pub struct ClassroomLabs<'a> {
    pub(super) classroom: &'a Classroom,
}

/// Largest scene text a lab may be created from.
pub const MAX_CREATE_SOURCE_BYTES: usize = 1024 * 1024;

/// The demo lab, opened.
pub struct OpenedDemo {
    /// Its record (the digest of its token, its join code).
    pub record: LabRecord,
    /// Its instructor token, the server key, when it was made by this opening: shown
    /// once.
    pub new_token: Option<String>,
}

/// How the demo lab opens.
pub struct DemoLab {
    /// Its instructor token (the server key); `None` keeps the stored one, or makes one.
    pub instructor_token: Option<String>,
    /// Seed of its random generator.
    pub seed: u64,
    /// Whether its time runs from the start.
    pub start_running: bool,
}

impl ClassroomLabs<'_> {
    /// `POST /api/labs`: a new lab, paused (its clock starts when the instructor
    /// presses Play, not when the lab is made before the class), with its own clock;
    /// kept before it is announced.
    pub async fn create(self, key: Option<&str>, request: CreateLabRequest) -> Result<CreatedLab, ClassroomError> {
        if !self.classroom.open_labs {
            self.classroom.require_server_key(key, "a lab")?;
        }
        let instructor_token = new_token();
        self.create_for(request, TokenDigest::of(&instructor_token), instructor_token).await
    }

    /// A new lab whose instructor holds the token of digest `instructor` (given back in
    /// the answer as `instructor_token`: a new lab's own, or a class teacher's).
    pub(super) async fn create_for(
        self,
        request: CreateLabRequest,
        instructor: TokenDigest,
        instructor_token: String,
    ) -> Result<CreatedLab, ClassroomError> {
        let name = clean_display_name(&request.name).ok_or_else(|| {
            ClassroomError::Invalid(format!("a lab needs a name of 1 to {} characters", vlab_protocol::MAX_NAME_CHARS))
        })?;
        let seed = request.seed.unwrap_or(1);
        let scene = match (request.scene, request.scene_source) {
            (Some(_), Some(_)) => {
                return Err(ClassroomError::Invalid(
                    "give either `scene` (a library name) or `scene_source`, not both".into(),
                ));
            }
            (None, None) => LabScene::Demo,
            (Some(file), None) => LabScene::Library(self.library_file(&file)?),
            (None, Some(text)) if text.len() > MAX_CREATE_SOURCE_BYTES => {
                return Err(ClassroomError::TooLarge(format!(
                    "a lab's scene may be at most {MAX_CREATE_SOURCE_BYTES} bytes"
                )));
            }
            (None, Some(text)) => LabScene::Source(text),
        };
        let model = self.build_scene(&scene, seed).await?;
        let id = self.unique_id(&name);
        let record = LabRecord {
            id: id.clone(),
            name: name.clone(),
            instructor,
            seed,
            join_code: new_join_code(),
            scene,
            settings_json: serde_json::to_string(&LabSettings::default()).expect("settings serialise"),
        };
        let lab = self.open_lab(&record, model, false, vec![]).map_err(|e| ClassroomError::Invalid(e.to_string()))?;
        if let Err(e) = self.classroom.keep(|store| store.save_lab(&record)) {
            lab.shut_down();
            return Err(e);
        }
        self.classroom.registry.insert(lab);
        tracing::info!(lab = %id, %name, "lab created");
        // The token leaves the server this once: only its digest is kept.
        let instructor_path = format!("/?lab={id}&token={instructor_token}");
        Ok(CreatedLab { id, name, join_code: record.join_code, instructor_token, instructor_path })
    }

    /// Opens the demo lab `demo` (the embedded yard), kept first as
    /// [`ClassroomLabs::keep_demo`] keeps it. Returns the lab's record and the token if
    /// it was made now (to show it this once).
    pub fn open_demo(self, demo: DemoLab) -> Result<OpenedDemo, ClassroomError> {
        let start_running = demo.start_running;
        let kept = self.keep_demo(demo)?;
        let students = self.stored_students("demo")?;
        let scene = demo_scene(kept.record.seed);
        self.classroom.registry.insert(self.open_lab(&kept.record, scene, start_running, students)?);
        Ok(kept)
    }

    /// Keeps the demo lab's record, and whether its time runs once opened, without
    /// opening it (cluster mode: the server that claims its lease first opens it, so no
    /// other opens a copy only to close it). Its
    /// instructor token is the server key: the token given wins and is kept; else the
    /// stored one is reused (instructor links survive restarts); else a new one is
    /// made. A token given or made is saved to the key file, where `vlab key` finds it.
    pub fn keep_demo(self, demo: DemoLab) -> Result<OpenedDemo, ClassroomError> {
        self.classroom.demo_starts_running.store(demo.start_running, std::sync::atomic::Ordering::Relaxed);
        let stored = self.classroom.keep(|store| store.lab("demo"))?.flatten();
        let given = demo.instructor_token.filter(|t| !t.trim().is_empty());
        let (instructor, made) = match (given, &stored) {
            (Some(token), _) => {
                self.classroom.keep(|store| store.save_server_key(&token))?;
                (TokenDigest::of(&token), None)
            }
            (None, Some(lab)) => (lab.instructor, None),
            (None, None) => {
                let token = new_token();
                self.classroom.keep(|store| store.save_server_key(&token))?;
                (TokenDigest::of(&token), Some(token))
            }
        };
        let join_code = stored
            .as_ref()
            .map(|lab| lab.join_code.clone())
            .filter(|code| !code.is_empty())
            .unwrap_or_else(new_join_code);
        let settings_json = stored.map(|lab| lab.settings_json).unwrap_or_default();
        let record = LabRecord {
            id: "demo".into(),
            name: "Demo lab".into(),
            instructor,
            seed: demo.seed,
            join_code,
            scene: LabScene::Demo,
            settings_json,
        };
        self.classroom.keep(|store| store.save_lab(&record))?;
        Ok(OpenedDemo { record, new_token: made })
    }

    /// Opens every stored lab (but the demo lab, opened by [`ClassroomLabs::open_demo`]) and
    /// does again, in order, what was uploaded into each lab and removed from it; each
    /// then goes on from the last checkpoint the store kept of it. A lab
    /// or an upload that cannot be restored is logged and skipped: the others come back.
    /// Then the evaluations left unfinished start again. Returns how many uploads could
    /// not be done again.
    pub async fn restore(self) -> Result<usize, ClassroomError> {
        let records = self.classroom.keep(|store| store.open_labs())?.unwrap_or_default();
        let mut opened = Vec::new();
        for record in records.into_iter().filter(|record| record.id != "demo") {
            let kept = self.classroom.checkpoints().kept(&record.id)?;
            match self.open_stored(&record, kept.is_none()).await {
                Ok(lab) => {
                    self.classroom.registry.insert(Arc::clone(&lab));
                    opened.push((lab, kept, true));
                }
                Err(e) => tracing::error!(lab = %record.id, error = %e, "a stored lab could not be opened again"),
            }
        }
        // The demo lab was opened a moment ago, paused or running as the server was told.
        if let Some(demo) = self.classroom.registry.get("demo") {
            let running = demo.clock().state().mode != vlab_protocol::LabMode::Paused;
            let kept = self.classroom.checkpoints().kept("demo")?;
            if kept.is_some() && running {
                demo.clock().control(vlab_protocol::ControlAction::Pause).await?;
            }
            opened.push((demo, kept, running));
        }
        let mut failed = 0;
        for (lab, kept, running) in opened {
            failed += self.replay_kept(&lab).await?;
            if let Some(kept) = kept {
                self.classroom.checkpoints().go_on_from(&lab, kept, running).await?;
            }
        }
        // Evaluations a stopped server left unfinished run again (their trials are
        // deterministic: the same grade as if nothing had happened).
        match self.classroom.course().resume() {
            Ok(0) => {}
            Ok(resumed) => tracing::info!(resumed, "unfinished evaluations started again"),
            Err(e) => tracing::error!(error = %e, "unfinished evaluations could not be read"),
        }
        Ok(failed)
    }

    /// The ids of the labs kept open in the store (cluster mode: those some server must
    /// run).
    pub fn kept_ids(self) -> Result<Vec<String>, ClassroomError> {
        let records = self.classroom.keep(|store| store.open_labs())?.unwrap_or_default();
        Ok(records.into_iter().map(|record| record.id).collect())
    }

    /// The lab kept open in the store that students join with `code`, if any (cluster
    /// mode: it may run on another server).
    pub fn kept_with_code(self, code: &str) -> Option<String> {
        let code = vlab_lab::participants::normalise_code(code);
        let records = self.classroom.keep(|store| store.open_labs()).ok()??;
        records
            .into_iter()
            .find(|record| vlab_lab::participants::normalise_code(&record.join_code) == code)
            .map(|r| r.id)
    }

    /// Whether lab `id` is kept open in the store (cluster mode: a lab no server runs
    /// this moment is moving to one, not gone).
    pub fn is_kept(self, id: &str) -> bool {
        self.kept_ids().is_ok_and(|ids| ids.iter().any(|kept| kept == id))
    }

    /// Opens lab `id` as the store keeps it and does again what was done to it, as a
    /// restart does (cluster mode: a lab whose server died, taken over here). Its clock
    /// goes on from the last checkpoint the store kept.
    pub async fn restore_one(self, id: &str) -> Result<(), ClassroomError> {
        let Some(record) = self.classroom.keep(|store| store.lab(id))?.flatten() else {
            return Err(ClassroomError::Internal(format!("lab {id} is not in the store")));
        };
        // Opened paused when it goes on from a checkpoint: no step of its own before.
        let kept = self.classroom.checkpoints().kept(id)?;
        let running = id != "demo" || self.classroom.demo_starts_running.load(std::sync::atomic::Ordering::Relaxed);
        let lab = if id == "demo" {
            let students = self.stored_students(id)?;
            self.open_lab(&record, demo_scene(record.seed), running && kept.is_none(), students)?
        } else {
            self.open_stored(&record, kept.is_none()).await?
        };
        self.classroom.registry.insert(Arc::clone(&lab));
        let failed = self.replay_kept(&lab).await?;
        if failed > 0 {
            tracing::warn!(lab = %id, failed, "some uploads kept from before could not be done again");
        }
        match kept {
            Some(kept) => self.classroom.checkpoints().go_on_from(&lab, kept, running).await,
            None => Ok(()),
        }
    }

    /// A stored lab opened again, as its scene and its students were kept.
    async fn open_stored(self, record: &LabRecord, running: bool) -> Result<Arc<LabHandle>, ClassroomError> {
        let scene = self.build_scene(&record.scene, record.seed).await?;
        let students = self.stored_students(&record.id)?;
        Ok(self.open_lab(record, scene, running, students)?)
    }

    /// Does again, in order, what was uploaded into `lab` and removed from it; how many
    /// uploads could not be done again.
    async fn replay_kept(self, lab: &Arc<LabHandle>) -> Result<usize, ClassroomError> {
        let mut failed = 0;
        for (seq, insertion) in self.classroom.keep(|store| store.insertions(lab.id()))?.unwrap_or_default() {
            let unsure = matches!(insertion, Insertion::Upload { only_robots: None, .. });
            match self.classroom.uploads().replay(lab, insertion).await {
                // Uploads kept before the store noted it learn it now, so the
                // compaction below can forget them once their robots are gone.
                Ok(Some(only_robots)) if unsure => {
                    self.classroom.keep(|store| store.note_only_robots(seq, &only_robots))?;
                }
                Ok(_) => {}
                Err(e) => {
                    failed += 1;
                    tracing::error!(lab = %lab.id(), error = %e, "an upload kept from before could not be done again");
                }
            }
        }
        self.classroom.compact(lab.id());
        Ok(failed)
    }

    /// `DELETE /api/labs/{lab}` (instructor): closed in the store first, then for
    /// everybody watching.
    pub async fn close(self, lab: &Arc<LabHandle>, caller: Caller) -> Result<(), ClassroomError> {
        authorize(caller, Action::CloseLab)?;
        self.classroom.keep(|store| store.close_lab(lab.id()))?;
        self.classroom.registry.remove(lab.id());
        self.classroom.assets.forget_lab(lab.id());
        self.classroom.budget.forget_lab(lab.id());
        if let Some(recordings) = &self.classroom.recordings {
            recordings.forget(lab.id());
        }
        let closing = Arc::clone(lab);
        tokio::task::spawn_blocking(move || closing.close())
            .await
            .map_err(|e| ClassroomError::Internal(format!("closing the lab failed: {e}")))?;
        tracing::info!(lab = %lab.id(), "lab closed");
        Ok(())
    }

    /// The lab as `GET /api/labs/{lab}` shows it to `caller` (the join code to those who
    /// may read it).
    pub fn summary(self, lab: &LabHandle, caller: Caller) -> LabSummary {
        let mut summary = lab.summary();
        if authorize(caller, Action::SeeJoinCode).is_ok() {
            summary.join_code = Some(lab.people().join_code());
        }
        summary
    }

    /// Every lab, as `GET /api/labs` lists them.
    pub fn summaries(self) -> Vec<LabSummary> {
        self.classroom.registry.all().iter().map(|lab| lab.summary()).collect()
    }

    /// The scene library a lab can be created from: `{name, file, about}` per scene, the
    /// first comment line of each file saying what it is.
    pub fn scene_library(self) -> Vec<serde_json::Value> {
        let mut scenes = Vec::new();
        for folder in LIBRARY_FOLDERS {
            let Ok(entries) = std::fs::read_dir(self.classroom.library.scenes_dir.join(folder)) else { continue };
            for entry in entries.flatten().filter(|entry| entry.path().is_file()) {
                let file = format!("{folder}{}", entry.file_name().to_string_lossy());
                let text = std::fs::read_to_string(entry.path()).unwrap_or_default();
                scenes.extend(library_scene(&file, &text));
            }
        }
        scenes.sort_by(|a, b| a["name"].as_str().cmp(&b["name"].as_str()));
        scenes
    }

    /// Lab `id`'s challenge as its scene draws it with `seed` (where `random` in its
    /// start or zones gives another attempt another place), if the lab's scene can be
    /// read again: a lab created from the library or from scene text, on a server that
    /// keeps labs.
    pub async fn challenge_drawn_with(self, id: &str, seed: u64) -> Option<vlab_sim::scene::ChallengeModel> {
        let record = self.classroom.keep(|store| store.lab(id)).ok().flatten().flatten()?;
        if matches!(record.scene, LabScene::Demo) {
            return None;
        }
        match self.build_scene(&record.scene, seed).await {
            Ok(model) => model.challenge,
            Err(error) => {
                tracing::warn!(lab = %id, %error, "a lab's scene could not be read again for an attempt");
                None
            }
        }
    }

    /// The scene model of a stored lab's scene.
    async fn build_scene(self, scene: &LabScene, seed: u64) -> Result<SceneModel, ClassroomError> {
        scene_model(&self.classroom.library, scene, seed).await
    }

    /// Library scene `name` (`challenges/park`) drawn with `seed`: its file and model.
    pub(crate) async fn library_model(self, name: &str, seed: u64) -> Result<(String, SceneModel), ClassroomError> {
        let file = self.library_file(name)?;
        let model = self.build_scene(&LabScene::Library(file.clone()), seed).await?;
        Ok((file, model))
    }

    /// Students who joined lab `lab` before: id, name, token's digest.
    fn stored_students(self, lab: &str) -> Result<Vec<(u32, String, TokenDigest)>, ClassroomError> {
        let sessions = self.classroom.keep(|store| store.sessions(lab))?.unwrap_or_default();
        Ok(sessions.into_iter().map(|s| (s.user, s.name, s.token)).collect())
    }

    /// `name` as a library file name (`diffbot` → `diffbot.vlab`, `challenges/park` →
    /// `challenges/park.vlab`), if the library has it.
    fn library_file(self, name: &str) -> Result<String, ClassroomError> {
        let file = if name.ends_with(".vlab") { name.to_owned() } else { format!("{name}.vlab") };
        let (folder, base) = file.rsplit_once('/').map_or(("", file.as_str()), |(folder, base)| (folder, base));
        let folder = if folder.is_empty() { String::new() } else { format!("{folder}/") };
        let plain = base.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
            && !base.starts_with('.')
            && LIBRARY_FOLDERS.contains(&folder.as_str());
        if !plain || !self.classroom.library.scenes_dir.join(&file).is_file() {
            return Err(ClassroomError::NotFound(format!(
                "no scene '{name}' in the library; GET /api/scenes lists them"
            )));
        }
        Ok(file)
    }

    /// A URL-safe id from the lab's name, unique on this server (`physics-1-k7mp`).
    fn unique_id(self, name: &str) -> String {
        unique_slug(name, "lab", |id| self.classroom.registry.get(id).is_some())
    }
}

impl ClassroomLabs<'_> {
    /// Opens a lab from its record and scene model, recording into the classroom's
    /// recordings from the run after those kept.
    fn open_lab(
        self,
        record: &LabRecord,
        scene: SceneModel,
        start_running: bool,
        students: Vec<(u32, String, TokenDigest)>,
    ) -> Result<Arc<LabHandle>, vlab_lab::LabError> {
        let settings = serde_json::from_str(&record.settings_json).unwrap_or_default();
        let first_run =
            self.classroom.recordings.as_ref().map_or(Ok(1), |r| r.next_run(&record.id)).unwrap_or_else(|error| {
                tracing::warn!(lab = %record.id, %error, "could not read the recording's runs; numbering from 1");
                1
            });
        if let Some(recordings) = &self.classroom.recordings {
            recordings.begin(&record.id, first_run);
        }
        LabHandle::open(LabConfig {
            id: record.id.clone(),
            name: record.name.clone(),
            scene,
            instructor: record.instructor,
            start_running,
            seed: record.seed,
            join_code: record.join_code.clone(),
            settings,
            students,
            programs: Default::default(),
            recording: self.classroom.recording_sink(),
            first_run,
        })
    }
}

/// A library file as `GET /api/scenes` lists it, if it is a lab's scene: one that
/// declares an environment (a floor and walls). Robots and pieces made to be included or
/// inserted (`diffbot_robot.vlab`, `tower.vlab`) are not labs. Its `about` is its opening
/// comment, every line of it.
/// The folders of the scene library whose lab scenes are listed: its root, and the
/// challenges (docs/challenges.md).
const LIBRARY_FOLDERS: [&str; 2] = ["", "challenges/"];

/// The scene model of `scene` drawn with `seed`, interpreted off the async threads
/// (library files read from `library`).
pub(crate) async fn scene_model(library: &Library, scene: &LabScene, seed: u64) -> Result<SceneModel, ClassroomError> {
    let (name, text) = match scene {
        LabScene::Demo => return Ok(demo_scene(seed)),
        LabScene::Library(file) => {
            let text = tokio::fs::read_to_string(library.scenes_dir.join(file))
                .await
                .map_err(|e| ClassroomError::NotFound(format!("cannot read scene '{file}': {e}")))?;
            (file.clone(), text)
        }
        LabScene::Source(text) => ("lab.vlab".to_owned(), text.clone()),
    };
    let loader = DirLoader { scenes: library.scenes_dir.clone(), assets: Some(library.assets_dir.clone()) };
    let result =
        tokio::task::spawn_blocking(move || interpret(&text, &name, &loader, &Options { seed, ..Options::default() }))
            .await
            .map_err(|e| ClassroomError::Internal(format!("the scene interpreter stopped: {e}")))?;
    result.map(|interpretation| interpretation.model).map_err(|errors| ClassroomError::Scene {
        message: "the lab's scene has errors: nothing was created".into(),
        details: errors.iter().map(|e| e.to_string()).collect(),
    })
}

fn library_scene(file: &str, text: &str) -> Option<serde_json::Value> {
    let name = file.strip_suffix(".vlab")?;
    let declares = |line: &str| line.starts_with("environment ") || line.starts_with("env ");
    if !text.lines().map(str::trim_start).any(declares) {
        return None;
    }
    let about: Vec<&str> = text.lines().map_while(|line| line.trim_start().strip_prefix("//")).map(str::trim).collect();
    Some(serde_json::json!({ "name": name, "file": file, "about": about.join(" ").trim() }))
}

/// A URL-safe id from `name` (`fallback` when nothing of it is left), with a random
/// suffix that makes it unlike every id `taken` says is taken (`physics-1-k7mp`).
pub(super) fn unique_slug(name: &str, fallback: &str, taken: impl Fn(&str) -> bool) -> String {
    let mut slug: String = name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' })
        .collect::<String>()
        .split('-')
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("-");
    slug.truncate(24);
    if slug.is_empty() {
        slug = fallback.into();
    }
    loop {
        let suffix = new_join_code().to_ascii_lowercase();
        let id = format!("{}-{}", slug.trim_end_matches('-'), &suffix[..4]);
        if !taken(&id) {
            return id;
        }
    }
}

#[cfg(test)]
mod library_tests {
    use super::library_scene;

    #[test]
    fn a_lab_scene_is_listed_with_its_whole_opening_comment_and_a_piece_is_not() {
        let arena = "// A classroom arena: a room with a low inner fence,\n// two ramps and a bridge.\n\nenvironment wallrect { width 6; }\n";
        let listed = library_scene("arena.vlab", arena).unwrap();
        assert_eq!(listed["name"], "arena");
        assert_eq!(listed["about"], "A classroom arena: a room with a low inner fence, two ramps and a bridge.");
        let robot = "// the course robot, as a function to include\nfunction void diffbot(string s) { }\n";
        assert_eq!(library_scene("diffbot_robot.vlab", robot), None);
        assert_eq!(library_scene("notes.txt", arena), None);
    }
}
