//! Uploads, from files to running robots: a scene from the instructor (anything), robots
//! from a participant (robots only, within their quota, owned by them), a robot's new
//! program; and the same done again from the store after a restart.
//!
//! Every upload takes the same road: interpret (with the lab's seed) → check what the
//! caller may add → resolve which file is which robot's program → check the programs →
//! keep it in the store → insert into the lab, all or nothing. Anything wrong on the way
//! is answered with positioned messages and changes nothing; a lab that refuses the
//! insertion takes the kept record back with it.

mod archive;
mod assets;
mod budget;
mod bundle;
pub(crate) mod interpret;
pub mod programs;
mod start;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use bytes::Bytes;
use vlab_protocol::permissions::Action;
use vlab_protocol::{
    INSTRUCTOR_ID, InsertedCounts, SceneUploadReply, SourceMessage, fill_suffix, leaves_start_to_lab, suffix_from_name,
};

pub use archive::ArchiveError;
pub use assets::{AssetUser, ServedAsset, UploadedAssets, content_type};
pub use budget::{Cost, STUDENT_MESH_BUDGET_BYTES, STUDENT_UPLOAD_BUDGET_BYTES, UploadBudget};
pub use bundle::{BINARY_EXTENSIONS, Bundle, UploadFiles};

use super::access::{authorize, authorize_on_robot};
use super::{Classroom, ClassroomError, RefusalKind};
use crate::store::Insertion;
use vlab_lab::capacity::OverCapacity;
use vlab_lab::{Caller, LabError, LabHandle, Owner};
use vlab_sim::scene::{DirLoader, SceneError, SceneModel};

/// Largest upload: the scene text and every file of a bundle together (a zip file's
/// files unpacked, too).
pub const MAX_UPLOAD_BYTES: usize = 4 * 1024 * 1024;

/// The most files one upload may have, a form's parts and a zip file's entries alike:
/// a robot's package has a few dozen (its URDF files and meshes).
pub const MAX_UPLOAD_FILES: usize = 512;

/// The most elements one robot of a student may have: its bodies, their parts, the
/// joints between them and its sensors and actuators, each counting one. The course's
/// robots have 20 to 40; the limit keeps one student's robot from slowing the class.
pub const MAX_ROBOT_ELEMENTS: usize = 300;

pub use vlab_lab::capacity::MAX_LAB_BODIES;

/// Uploads into the classroom's labs, and the assets that came with them.
#[derive(Clone, Copy)]
pub struct ClassroomUploads<'a> {
    pub(in crate::classroom) classroom: &'a Classroom,
}

/// Who adds robots, and whether their quota applies.
#[derive(Clone)]
struct Adder {
    owner: Owner,
    within_quota: bool,
}

/// Where an upload comes from, which decides whether it is kept in the store.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    /// A caller sent it: it is kept before it is inserted.
    Caller,
    /// The store holds it already: it is done again after a restart, not kept twice.
    Store,
}

impl ClassroomUploads<'_> {
    /// `POST /api/labs/{lab}/scene` (instructor): anything a scene may hold.
    pub async fn upload_scene(
        self,
        lab: &Arc<LabHandle>,
        caller: Caller,
        files: UploadFiles,
    ) -> Result<SceneUploadReply, ClassroomError> {
        authorize(caller, Action::InsertScene)?;
        let bundle = files.into_scene()?;
        if let Some(error) = start::placeholder_in_scene(&bundle) {
            return Err(ClassroomError::upload(
                RefusalKind::Invalid,
                SceneUploadReply { errors: vec![error], ..Default::default() },
            ));
        }
        self.insert_upload(lab, bundle, None, Origin::Caller, None).await.map(|(reply, _)| reply)
    }

    /// `POST /api/labs/{lab}/robots` (a participant): robots and nothing else, owned by
    /// the caller. Refused while the instructor has locked uploads, and beyond the lab's
    /// per-student quota (the instructor has neither). A description's `{suffix}` is
    /// filled in from the caller's name; one that writes `{x}` and `{z}` has the lab
    /// choose its start, with `clearance_m` of free floor around it if any spot has it.
    pub async fn upload_robots(
        self,
        lab: &Arc<LabHandle>,
        caller: Caller,
        files: UploadFiles,
        clearance_m: f32,
    ) -> Result<SceneUploadReply, ClassroomError> {
        authorize(caller, Action::AddRobot)?;
        let Some(user) = caller.user() else { unreachable!("the permission table gives viewers no robots") };
        let student = matches!(caller, Caller::Student(_));
        if student && lab.settings().uploads_locked {
            return Err(ClassroomError::Forbidden("the instructor has locked uploads in this lab for now".into()));
        }
        let adder = Adder {
            owner: Owner { id: user, name: lab.people().name_of(user).unwrap_or_default() },
            within_quota: student,
        };
        let mut bundle = files.into_robots()?;
        bundle.main_text = fill_suffix(&bundle.main_text, &suffix_from_name(&adder.owner.name));
        if !leaves_start_to_lab(&bundle.main_text) {
            return self.insert_upload(lab, bundle, Some(adder), Origin::Caller, None).await.map(|(reply, _)| reply);
        }
        let mut tries = 0;
        loop {
            tries += 1;
            let (placed, chosen) = start::choose(lab, &bundle, self.library_loader(), clearance_m).await?;
            let kept = Some(chosen.clearance_m as f32);
            match self.insert_upload(lab, placed, Some(adder.clone()), Origin::Caller, kept).await {
                Err(ClassroomError::Upload(refusal))
                    if refusal.kind == RefusalKind::Misplaced && tries < start::START_TRIES =>
                {
                    tracing::info!(lab = %lab.id(), tries, "the start chosen was taken meanwhile: choosing again");
                }
                Ok((mut reply, _)) => {
                    let robot = reply.robots.first().map_or("the robot".to_owned(), |r| format!("robot '{r}'"));
                    reply.warnings.extend(start::short_of_floor(&bundle.main_name, &robot, &chosen));
                    reply.start = Some(chosen);
                    return Ok(reply);
                }
                Err(error) => return Err(error),
            }
        }
    }

    /// The scene library, as uploads include from it.
    fn library_loader(self) -> DirLoader {
        DirLoader {
            scenes: self.classroom.library.scenes_dir.clone(),
            assets: Some(self.classroom.library.assets_dir.clone()),
        }
    }

    /// `PUT /api/labs/{lab}/robots/{robot}/program` (owner or instructor): a new program,
    /// checked first; the old one stops, the robot stays where it is.
    pub async fn replace_program(
        self,
        lab: &Arc<LabHandle>,
        caller: Caller,
        robot: &str,
        files: UploadFiles,
    ) -> Result<SceneUploadReply, ClassroomError> {
        authorize_on_robot(lab, caller, Action::ReplaceProgram, robot)?;
        let bundle = files.into_program()?;
        let refuse = |errors: Vec<SourceMessage>| {
            let reply = SceneUploadReply { errors, robots: vec![robot.to_owned()], ..SceneUploadReply::default() };
            ClassroomError::upload(RefusalKind::Invalid, reply)
        };
        let field = bundle.main_name.clone();
        let pending =
            programs::program_of_file(&field, &bundle, &self.program_library()).map_err(|error| refuse(vec![error]))?;
        let pending = BTreeMap::from([(robot.to_owned(), pending)]);
        let who = caller.user().map(|user| compiling_key(lab, user));
        let (checked, _) = programs::build_all(&self.classroom.compiler, pending, who, refuse).await?;
        programs::check_all(&checked).await.map_err(refuse)?;
        let code = checked.into_values().next().expect("one program");
        let reservation = match lab.robots().owner_of(robot).filter(|owner| *owner != INSTRUCTOR_ID) {
            Some(owner) => {
                let bytes = bundle.size();
                let checked = matches!(caller, Caller::Student(_));
                Some(self.classroom.budget.reserve(lab.id(), owner, Cost::files(bytes), checked).map_err(|over| {
                    let error = SourceMessage { file: field.clone(), line: 1, col: 1, message: over.to_string() };
                    let reply =
                        SceneUploadReply { errors: vec![error], robots: vec![robot.to_owned()], ..Default::default() };
                    ClassroomError::upload(RefusalKind::OverBudget, reply)
                })?)
            }
            None => None,
        };
        let replaced = Insertion::Program {
            robot: robot.to_owned(),
            program: field,
            files: bundle.files.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
            binaries: bundle.binaries.iter().map(|(k, v)| (k.clone(), v.to_vec())).collect(),
        };
        let kept = self.classroom.keep(|store| store.record_insertion(lab.id(), &replaced))?;
        if let Err(e) = lab.programs().set(robot, code).await {
            if let Some(seq) = kept {
                self.classroom.unkeep(lab.id(), "program", |store| store.forget_insertion(seq));
            }
            return Err(e.into());
        }
        if let Some(reservation) = reservation {
            reservation.keep_as_program(robot);
        }
        self.classroom.compact(lab.id());
        tracing::info!(lab = %lab.id(), %robot, "program replaced");
        let warnings = programs::project_warnings(&bundle.main_name, &bundle);
        Ok(SceneUploadReply { ok: true, robots: vec![robot.to_owned()], warnings, ..SceneUploadReply::default() })
    }

    /// Does again, at start-up, what the store kept: the same files interpreted with the
    /// lab's seed, owned by the same participant (no quota, budget or lock applies
    /// again). For an upload, returns the robots it added if it added nothing else.
    pub(super) async fn replay(
        self,
        lab: &Arc<LabHandle>,
        insertion: Insertion,
    ) -> Result<Option<Vec<String>>, ClassroomError> {
        match insertion {
            Insertion::Removal { robot } => {
                let owner = lab.robots().owner_of(&robot);
                lab.robots().remove(&robot).await?;
                self.classroom.robot_gone(lab.id(), &robot, owner);
                Ok(None)
            }
            Insertion::Start { robot, position, heading } => {
                lab.robots().set_start(&robot, position, heading).await?;
                Ok(None)
            }
            Insertion::Move { name, position, heading } => {
                lab.robots().move_object(&name, position, heading).await?;
                Ok(None)
            }
            // Checked when it was made; done again as it was, whatever stands where.
            Insertion::Room { change } => {
                lab.room().change(change, false).await?;
                Ok(None)
            }
            Insertion::Program { robot, program, files, binaries } => {
                let (_, binaries) = programs::split_stored(binaries);
                let bundle = Bundle {
                    main_name: program.clone(),
                    main_text: String::new(),
                    files: files.into_iter().collect(),
                    assets: HashMap::new(),
                    binaries,
                    program: Some(program.clone()),
                };
                let positioned = |e: SourceMessage| format!("{}:{}:{}: {}", e.file, e.line, e.col, e.message);
                let pending = programs::program_of_file(&program, &bundle, &self.program_library())
                    .map_err(|e| ClassroomError::Invalid(positioned(e)))?;
                let pending = BTreeMap::from([(robot.clone(), pending)]);
                let invalid = |errors: Vec<SourceMessage>| {
                    ClassroomError::Invalid(errors.into_iter().map(positioned).collect::<Vec<_>>().join("; "))
                };
                let (built, _) = programs::build_all(&self.classroom.compiler, pending, None, invalid).await?;
                let code = built.into_values().next().expect("one program");
                let reservation = lab
                    .robots()
                    .owner_of(&robot)
                    .filter(|owner| *owner != INSTRUCTOR_ID)
                    .map(|owner| self.classroom.budget.reserve(lab.id(), owner, Cost::files(bundle.size()), false));
                lab.programs().set(&robot, code).await?;
                if let Some(Ok(reservation)) = reservation {
                    reservation.keep_as_program(&robot);
                }
                Ok(None)
            }
            Insertion::Objects { owner, main_name, main_text, files } => {
                self.classroom.objects().replay_added(lab, owner, main_name, main_text, files).await?;
                Ok(None)
            }
            Insertion::ObjectRemoval { name } => {
                self.classroom.objects().replay_removal(lab, &name).await?;
                Ok(None)
            }
            Insertion::Upload { owner, main_name, main_text, files, assets, program, only_robots: _ } => {
                let (assets, binaries) = programs::split_stored(assets);
                let bundle =
                    Bundle { main_name, main_text, files: files.into_iter().collect(), assets, binaries, program };
                let adder = owner.map(|(id, name)| Adder { owner: Owner { id, name }, within_quota: false });
                self.classroom
                    .uploads()
                    .insert_upload(lab, bundle, adder, Origin::Store, None)
                    .await
                    .map(|(_, only_robots)| only_robots)
            }
        }
    }

    /// The road every upload takes (see the module's doc); `keep_clear` is the free floor
    /// its robots got around starts the lab chose, which later ones keep out of. Returns
    /// the reply and, if it added robots and nothing else, their names.
    async fn insert_upload(
        self,
        lab: &Arc<LabHandle>,
        bundle: Bundle,
        adder: Option<Adder>,
        origin: Origin,
        keep_clear: Option<f32>,
    ) -> Result<(SceneUploadReply, Option<Vec<String>>), ClassroomError> {
        let library = self.library_loader();
        let bundle = Arc::new(bundle);
        let invalid = |errors: Vec<SourceMessage>, reply: &SceneUploadReply| {
            let reply = SceneUploadReply { errors, ..reply.clone() };
            ClassroomError::upload(RefusalKind::Invalid, reply)
        };
        let mut interpretation = interpret::run(Arc::clone(&bundle), library, lab.seed())
            .await
            .map_err(|errors| invalid(errors, &SceneUploadReply::default()))?;
        let mut served = self.serve_uploaded_meshes(lab, &mut interpretation.model, &bundle);
        let mut reply = SceneUploadReply {
            log: std::mem::take(&mut interpretation.log),
            warnings: interpret::warnings(&interpretation),
            ..SceneUploadReply::default()
        };
        let model = interpretation.model;
        if let Some(adder) = &adder
            && let Err((kind, message)) = robots_only(&model, lab, adder)
        {
            let error = SourceMessage { file: bundle.main_name.clone(), line: 1, col: 1, message };
            return Err(ClassroomError::upload(kind, SceneUploadReply { errors: vec![error], ..reply }));
        }
        if let Err(message) = room_for(&model, lab) {
            let error = SourceMessage { file: bundle.main_name.clone(), line: 1, col: 1, message };
            return Err(ClassroomError::upload(
                RefusalKind::Invalid,
                SceneUploadReply { errors: vec![error], ..reply },
            ));
        }
        let pending = programs::resolve(&model, &bundle, &self.program_library()).map_err(|e| invalid(e, &reply))?;
        reply.warnings.extend(programs::unrun(&model, &bundle, &pending));
        // Compiled here, in the upload's request: the robot starts with its program ready.
        let who = match origin {
            Origin::Caller => Some(compiling_key(lab, adder.as_ref().map_or(INSTRUCTOR_ID, |a| a.owner.id))),
            Origin::Store => None,
        };
        let (programs, compiled_warnings) =
            programs::build_all(&self.classroom.compiler, pending, who, |e| invalid(e, &reply)).await?;
        reply.warnings.extend(compiled_warnings);
        programs::check_all(&programs).await.map_err(|e| invalid(e, &reply))?;
        reply.warnings.extend(programs::form_project_warnings(&model, &bundle));
        let programs = programs.into_iter().map(|(robot, code)| (robot, Arc::new(code))).collect();
        let robots: Vec<String> = model.robots.iter().map(|r| r.name.clone()).collect();
        let only_robots = holds_only_robots(&model).then(|| robots.clone());
        let (meshes, unread) = self.classroom.assets.read_meshes(lab.id(), &mut served).await;
        reply.warnings.extend(unread.into_iter().map(|(path, error)| SourceMessage {
            file: path.rsplit('/').next().unwrap_or(&path).to_owned(),
            line: 1,
            col: 1,
            message: format!("{error}: pages draw its part as its collision shape"),
        }));
        // A student's bytes: reserved now, so uploads sent at once cannot pass the
        // budget together; given back if the upload fails from here on.
        let reservation = match adder.as_ref().filter(|a| a.owner.id != INSTRUCTOR_ID && !robots.is_empty()) {
            Some(adder) => {
                let checked = adder.within_quota;
                let cost = Cost { files: bundle.size(), meshes };
                Some(self.classroom.budget.reserve(lab.id(), adder.owner.id, cost, checked).map_err(|over| {
                    let error =
                        SourceMessage { file: bundle.main_name.clone(), line: 1, col: 1, message: over.to_string() };
                    ClassroomError::upload(
                        RefusalKind::OverBudget,
                        SceneUploadReply { errors: vec![error], ..reply.clone() },
                    )
                })?)
            }
            None => None,
        };
        let kept = match origin {
            Origin::Store => None,
            Origin::Caller => {
                let upload = Insertion::Upload {
                    owner: adder.as_ref().map(|a| (a.owner.id, a.owner.name.clone())),
                    main_name: bundle.main_name.clone(),
                    main_text: bundle.main_text.clone(),
                    files: bundle.files.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
                    assets: bundle
                        .assets
                        .iter()
                        .chain(&bundle.binaries)
                        .map(|(k, v)| (k.clone(), v.to_vec()))
                        .collect(),
                    program: bundle.program.clone(),
                    only_robots: only_robots.clone(),
                };
                self.classroom.keep(|store| store.record_insertion(lab.id(), &upload))?
            }
        };
        let quota = adder.as_ref().filter(|a| a.within_quota).map(|_| lab.settings().robot_quota as usize);
        let inserted = match lab.robots().insert(model, adder.map(|a| a.owner), quota, programs, keep_clear).await {
            Ok(inserted) => inserted,
            Err(error) => {
                if let Some(seq) = kept {
                    self.classroom.unkeep(lab.id(), "upload", |store| store.forget_insertion(seq));
                }
                let (kind, error) = match error {
                    LabError::Refused(refusal) => {
                        let kind = match refusal {
                            SceneError::NameTaken(_) | SceneError::EnvironmentAlreadySet => RefusalKind::Conflict,
                            _ => RefusalKind::Invalid,
                        };
                        (kind, interpret::position_of(&refusal, &bundle))
                    }
                    full @ LabError::OverCapacity(_) => (
                        RefusalKind::Invalid,
                        SourceMessage { file: bundle.main_name.clone(), line: 1, col: 1, message: full.to_string() },
                    ),
                    misplaced @ LabError::Misplaced(_) => (
                        RefusalKind::Misplaced,
                        SourceMessage {
                            file: bundle.main_name.clone(),
                            line: 1,
                            col: 1,
                            message: misplaced.to_string(),
                        },
                    ),
                    over @ LabError::OverQuota { .. } => (
                        RefusalKind::OverQuota,
                        SourceMessage { file: bundle.main_name.clone(), line: 1, col: 1, message: over.to_string() },
                    ),
                    error => return Err(error.into()),
                };
                reply.errors.push(error);
                return Err(ClassroomError::upload(kind, reply));
            }
        };
        self.classroom.assets.add(lab.id(), served);
        if let Some(reservation) = reservation {
            reservation.keep_as_upload(&robots);
        }
        reply.ok = true;
        reply.inserted = InsertedCounts { bodies: inserted.bodies, joints: inserted.joints, robots: inserted.robots };
        reply.robots = robots;
        lab.people().broadcast_presence();
        tracing::info!(lab = %lab.id(), file = %bundle.main_name, ?reply.inserted, "scene inserted");
        Ok((reply, only_robots))
    }

    /// Points the meshes that came in the upload at the lab's own copy of them, served
    /// at a path that names their content; returns what to serve once inserted (their
    /// triangles not read yet).
    fn serve_uploaded_meshes(self, lab: &LabHandle, model: &mut SceneModel, bundle: &Bundle) -> Vec<ServedAsset> {
        let mut served = Vec::new();
        for body in model.bodies.iter_mut() {
            let user = body.robot.clone().map_or(AssetUser::Scene, AssetUser::Robot);
            for part in body.parts.iter_mut() {
                let Some(mesh) = part.mesh.as_mut() else { continue };
                let Some(name) = mesh.resolved.clone() else { continue };
                let Some(bytes) = bundle.assets.get(&name) else { continue };
                // The browser draws OBJ and glTF: an STL (from a URDF robot) is served as OBJ.
                let (name, bytes) = if name.to_ascii_lowercase().ends_with(".stl") {
                    match vlab_sim::scene::stl_to_obj(bytes) {
                        Ok(obj) => (format!("{name}.obj"), Bytes::from(obj)),
                        Err(_) => {
                            // Told as a warning when the scene ran; its box is drawn.
                            mesh.resolved = None;
                            continue;
                        }
                    }
                } else {
                    (name, bytes.clone())
                };
                let path = assets::served_path(&name, &bytes);
                mesh.resolved = Some(format!("/api/labs/{}/assets/{path}", lab.id()));
                served.push(ServedAsset { path, bytes, user: user.clone(), triangles: Default::default() });
            }
        }
        served
    }

    /// An asset uploaded with one of lab `lab`'s scenes.
    pub fn uploaded_asset(self, lab: &str, path: &str) -> Result<Bytes, ClassroomError> {
        self.classroom
            .assets
            .get(lab, path)
            .ok_or_else(|| ClassroomError::NotFound(format!("no uploaded asset '{path}' in lab '{lab}'")))
    }

    /// Where programs' files not in the upload are looked for: the scene library.
    fn program_library(self) -> DirLoader {
        DirLoader { scenes: self.classroom.library.scenes_dir.clone(), assets: None }
    }
}

/// Whose compile it is: one participant of one lab compiles one program at a time.
fn compiling_key(lab: &LabHandle, user: vlab_protocol::UserId) -> String {
    format!("{}/{user}", lab.id())
}

/// How many elements robot `robot` of `model` has (see [`MAX_ROBOT_ELEMENTS`]).
fn robot_elements(model: &SceneModel, robot: &str) -> usize {
    let mine = |index: usize| model.bodies.get(index).is_some_and(|b| b.robot.as_deref() == Some(robot));
    let bodies = model.bodies.iter().filter(|b| b.robot.as_deref() == Some(robot));
    let bodies_and_parts: usize = bodies.map(|b| 1 + b.parts.len()).sum();
    let joints = model.joints.iter().filter(|j| mine(j.body1) || mine(j.body2)).count();
    let devices = model.sensors.iter().chain(&model.actuators).filter(|d| d.robot.as_deref() == Some(robot)).count();
    bodies_and_parts + joints + devices
}

/// Whether `model` adds robots and nothing else (so removing them all undoes it).
fn holds_only_robots(model: &SceneModel) -> bool {
    !model.robots.is_empty()
        && model.environment.is_none()
        && model.bodies.iter().all(|b| b.robot.is_some())
        && model.sensors.iter().chain(&model.actuators).all(|d| d.robot.is_some())
}

/// Whether the lab has room for `model`'s bodies (see [`MAX_LAB_BODIES`]): told early,
/// before programs are checked; the lab checks again, with its cameras, as it inserts.
fn room_for(model: &SceneModel, lab: &LabHandle) -> Result<(), String> {
    let (have, adding) = (lab.summary().bodies, model.bodies.len());
    if have + adding > MAX_LAB_BODIES {
        return Err(OverCapacity::Bodies { have, adding }.to_string());
    }
    Ok(())
}

/// A participant's upload: robots and nothing else, within their quota.
fn robots_only(model: &SceneModel, lab: &LabHandle, adder: &Adder) -> Result<(), (RefusalKind, String)> {
    let refuse = |message: String| Err((RefusalKind::Invalid, message));
    if model.robots.is_empty() {
        return refuse("no robot in this file: a robot upload declares `robot name { body { ... } }`".into());
    }
    if model.environment.is_some() {
        return refuse("a robot upload may not declare an environment (the lab has its own)".into());
    }
    if let Some(body) = model.bodies.iter().find(|b| b.robot.is_none()) {
        return refuse(format!("a robot upload may only contain robots: '{}' is not part of one", body.name));
    }
    if let Some(device) = model.sensors.iter().chain(&model.actuators).find(|d| d.robot.is_none()) {
        return refuse(format!("a robot upload may only contain robots: device '{}' is outside them", device.name));
    }
    if adder.within_quota
        && let Some((robot, elements)) = model
            .robots
            .iter()
            .map(|r| (r.name.as_str(), robot_elements(model, &r.name)))
            .find(|(_, n)| *n > MAX_ROBOT_ELEMENTS)
    {
        return refuse(format!(
            "robot '{robot}' has {elements} elements (bodies, parts, joints, sensors, actuators); a student's robot may have at most {MAX_ROBOT_ELEMENTS}"
        ));
    }
    // Told early, before programs are checked; the lab checks again as it inserts.
    let quota = lab.settings().robot_quota as usize;
    let (have, adding) = (lab.robots().robots_of(adder.owner.id), model.robots.len());
    if adder.within_quota && have + adding > quota {
        return Err((RefusalKind::OverQuota, LabError::OverQuota { quota, have, adding }.to_string()));
    }
    Ok(())
}
