//! Objects from everyone: a participant (when the instructor lets students) or the
//! instructor adds objects to a running lab, a palette item or a scene fragment of
//! bodies, owned by the caller, within the per-student quotas; the owner or the
//! instructor removes them; and the same done again from the store after a restart.
//!
//! Every addition takes one road: the `.vlab` text (the palette's, or the fragment) →
//! interpret with the lab's seed → objects only (no robot, environment, device, joint or
//! challenge: refused at its place) → within the quotas for a student → kept in the
//! store → inserted on the lab's thread, which checks the student's object count, the
//! lab's bodies and where each object stands, all or nothing. A lab that refuses takes
//! the kept record back with it.

mod checks;

use std::sync::Arc;

use vlab_protocol::permissions::Action;
use vlab_protocol::{
    AddObjectRequest, INSTRUCTOR_ID, InsertedCounts, MAX_FRAGMENT_BYTES, MAX_OBJECTS_PER_STUDENT, PaletteItem,
    SceneUploadReply, SourceMessage, UserId, check_object_name, suffix_from_name,
};

use super::access::{authorize, authorize_on_object};
use super::upload::{Bundle, UploadFiles, interpret};
use super::{Classroom, ClassroomError, RefusalKind};
use crate::store::Insertion;
use vlab_lab::{Caller, LabError, LabHandle, Owner};
use vlab_sim::scene::{DirLoader, SceneError};

pub use checks::{object_extent_m, object_mass_kg};

/// Free floor the lab keeps around a palette item it places, metres from its base
/// centre: robots can pass between two items it placed.
pub const PLACED_CLEARANCE_M: f32 = 0.5;

/// Name of the file a palette item is inserted as (its errors point here).
const PALETTE_FILE: &str = "palette.vlab";

/// The objects of the classroom's labs, as participants and instructors add and remove
/// them.
#[derive(Clone, Copy)]
pub struct ClassroomObjects<'a> {
    pub(super) classroom: &'a Classroom,
}

/// Who adds objects, and whether the per-student quotas apply.
#[derive(Clone)]
struct Adder {
    owner: Owner,
    student: bool,
}

impl ClassroomObjects<'_> {
    /// `POST /api/labs/{lab}/objects` with JSON: one palette item, where asked or on a
    /// clear spot of the floor the lab finds.
    pub async fn add_palette(
        self,
        lab: &Arc<LabHandle>,
        caller: Caller,
        request: AddObjectRequest,
    ) -> Result<SceneUploadReply, ClassroomError> {
        let adder = self.adder(lab, caller)?;
        let item = PaletteItem::find(&request.palette).ok_or_else(|| {
            let ids: Vec<&str> = vlab_protocol::PALETTE.iter().map(|i| i.id).collect();
            ClassroomError::Invalid(format!(
                "there is no palette item '{}': the palette has {}",
                request.palette,
                ids.join(", ")
            ))
        })?;
        if let Some(heading) = request.heading.filter(|h| !h.is_finite()) {
            return Err(ClassroomError::Invalid(format!("heading is a number of radians, not {heading}")));
        }
        if let Some(position) = request.position.filter(|p| p.iter().any(|v| !v.is_finite())) {
            return Err(ClassroomError::Invalid(format!("position is three numbers of metres, not {position:?}")));
        }
        let name = match request.name {
            Some(name) => {
                check_object_name(&name).map_err(ClassroomError::Invalid)?;
                if name_in_use(lab, &name) {
                    return Err(ClassroomError::Conflict(format!(
                        "the name '{name}' is already used in this lab: choose another, or leave the name out"
                    )));
                }
                name
            }
            None => free_name(lab, &adder.owner, item.id),
        };
        let heading = request.heading.unwrap_or(0.0);
        let position = match request.position {
            Some(position) => position,
            None => self.free_spot(lab, item, &name, heading).await?,
        };
        let bundle = Bundle {
            main_name: PALETTE_FILE.into(),
            main_text: item.vlab(&name, position, heading),
            ..Bundle::default()
        };
        self.insert(lab, bundle, adder, true).await
    }

    /// `POST /api/labs/{lab}/objects` with a `.vlab` fragment (a plain body or a form, as
    /// scene uploads): objects and nothing else.
    pub async fn add_fragment(
        self,
        lab: &Arc<LabHandle>,
        caller: Caller,
        files: UploadFiles,
    ) -> Result<SceneUploadReply, ClassroomError> {
        let adder = self.adder(lab, caller)?;
        let mut bundle = files.into_scene()?;
        let bytes = bundle.main_text.len() + bundle.files.values().map(String::len).sum::<usize>();
        if bytes > MAX_FRAGMENT_BYTES {
            return Err(ClassroomError::TooLarge(format!(
                "a fragment of objects is at most {MAX_FRAGMENT_BYTES} bytes of text; this one has {bytes}"
            )));
        }
        // Objects are drawn from the library's meshes: files that came along are not
        // served for them.
        bundle.assets.clear();
        bundle.binaries.clear();
        self.insert(lab, bundle, adder, true).await
    }

    /// `DELETE /api/labs/{lab}/objects/{name}`: its owner removes her own, the
    /// instructor any (the lab's own too). Kept first, then done.
    pub async fn remove(self, lab: &LabHandle, caller: Caller, name: &str) -> Result<(), ClassroomError> {
        authorize_on_object(lab, caller, Action::RemoveObject, name)?;
        let removal = Insertion::ObjectRemoval { name: name.to_owned() };
        let kept = self.classroom.keep(|store| store.record_insertion(lab.id(), &removal))?;
        if let Err(error) = lab.robots().remove_object(name).await {
            if let Some(seq) = kept {
                self.classroom.unkeep(lab.id(), "object removal", |store| store.forget_insertion(seq));
            }
            return Err(error.into());
        }
        tracing::info!(lab = %lab.id(), object = %name, "object removed");
        Ok(())
    }

    /// Does again, at start-up, objects the store kept: the same text, owned by the same
    /// participant, without the switch or the quotas.
    pub(super) async fn replay_added(
        self,
        lab: &Arc<LabHandle>,
        owner: Option<(UserId, String)>,
        main_name: String,
        main_text: String,
        files: std::collections::BTreeMap<String, String>,
    ) -> Result<(), ClassroomError> {
        let bundle = Bundle { main_name, main_text, files: files.into_iter().collect(), ..Bundle::default() };
        let (id, name) = owner.unwrap_or((INSTRUCTOR_ID, String::new()));
        let adder = Adder { owner: Owner { id, name }, student: false };
        self.insert(lab, bundle, adder, false).await.map(|_| ())
    }

    /// Does again, at start-up, an object's removal the store kept.
    pub(super) async fn replay_removal(self, lab: &LabHandle, name: &str) -> Result<(), ClassroomError> {
        Ok(lab.robots().remove_object(name).await?)
    }

    /// Who adds, if they may: the permission table, then the instructor's switch for a
    /// student.
    fn adder(self, lab: &LabHandle, caller: Caller) -> Result<Adder, ClassroomError> {
        authorize(caller, Action::AddObject)?;
        let Some(user) = caller.user() else { unreachable!("the permission table gives viewers no objects") };
        let student = matches!(caller, Caller::Student(_));
        if student && !lab.settings().students_add_objects {
            return Err(ClassroomError::Forbidden(
                "the instructor has not let students add objects in this lab (the setting students_add_objects)".into(),
            ));
        }
        let name = lab.people().name_of(user).unwrap_or_else(|| "instructor".into());
        Ok(Adder { owner: Owner { id: user, name }, student })
    }

    /// A clear spot of the lab's floor for palette item `item`, with
    /// [`PLACED_CLEARANCE_M`] around it if any spot has it.
    async fn free_spot(
        self,
        lab: &LabHandle,
        item: &PaletteItem,
        name: &str,
        heading: f32,
    ) -> Result<[f32; 3], ClassroomError> {
        let bundle = Arc::new(Bundle {
            main_name: PALETTE_FILE.into(),
            main_text: item.vlab(name, [0.0; 3], heading),
            ..Bundle::default()
        });
        let model = interpret::run(bundle, self.library_loader(), lab.seed())
            .await
            .map_err(|errors| ClassroomError::upload(RefusalKind::Invalid, reply_with(errors)))?
            .model;
        let search = lab.robots().start_search().await?;
        let spot = tokio::task::spawn_blocking(move || search.choose_for_objects(&model, PLACED_CLEARANCE_M))
            .await
            .map_err(|e| ClassroomError::Internal(format!("finding a spot failed: {e}")))?
            .map_err(|no_spot| ClassroomError::Conflict(no_spot.to_string()))?;
        Ok([spot.x, 0.0, spot.z])
    }

    /// The road every addition takes (see the module's doc); `kept`: a caller's, kept
    /// in the store before it is inserted (not one the store is doing again).
    async fn insert(
        self,
        lab: &Arc<LabHandle>,
        bundle: Bundle,
        adder: Adder,
        kept: bool,
    ) -> Result<SceneUploadReply, ClassroomError> {
        let bundle = Arc::new(bundle);
        let interpretation = interpret::run(Arc::clone(&bundle), self.library_loader(), lab.seed())
            .await
            .map_err(|errors| ClassroomError::upload(RefusalKind::Invalid, reply_with(errors)))?;
        let mut reply = SceneUploadReply {
            log: interpretation.log.clone(),
            warnings: interpret::warnings(&interpretation),
            ..SceneUploadReply::default()
        };
        let model = interpretation.model;
        let refuse = |kind: RefusalKind, error: SourceMessage, reply: &SceneUploadReply| {
            ClassroomError::upload(kind, SceneUploadReply { errors: vec![error], ..reply.clone() })
        };
        checks::objects_only(&model, &bundle).map_err(|error| refuse(RefusalKind::Invalid, error, &reply))?;
        if adder.student {
            checks::within_quotas(&model, &bundle).map_err(|error| refuse(RefusalKind::Invalid, error, &reply))?;
            let (have, adding) = (lab.robots().objects_owned_by(adder.owner.id).len(), model.bodies.len());
            if have + adding > MAX_OBJECTS_PER_STUDENT {
                let over = LabError::OverObjectQuota { quota: MAX_OBJECTS_PER_STUDENT, have, adding };
                return Err(refuse(RefusalKind::OverQuota, first_line(&bundle, over.to_string()), &reply));
            }
        }
        let names: Vec<String> = model.bodies.iter().map(|b| b.name.clone()).collect();
        let record = Insertion::Objects {
            owner: Some((adder.owner.id, adder.owner.name.clone())),
            main_name: bundle.main_name.clone(),
            main_text: bundle.main_text.clone(),
            files: bundle.files.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
        };
        let seq = if kept { self.classroom.keep(|store| store.record_insertion(lab.id(), &record))? } else { None };
        let quota = adder.student.then_some(MAX_OBJECTS_PER_STUDENT);
        let inserted = match lab.robots().insert_objects(model, Some(adder.owner.clone()), quota).await {
            Ok(inserted) => inserted,
            Err(error) => {
                if let Some(seq) = seq {
                    self.classroom.unkeep(lab.id(), "object", |store| store.forget_insertion(seq));
                }
                let (kind, error) = match error {
                    LabError::Refused(refusal) => {
                        let kind = match refusal {
                            SceneError::NameTaken(_) => RefusalKind::Conflict,
                            _ => RefusalKind::Invalid,
                        };
                        (kind, interpret::position_of(&refusal, &bundle))
                    }
                    over @ LabError::OverObjectQuota { .. } => {
                        (RefusalKind::OverQuota, first_line(&bundle, over.to_string()))
                    }
                    full @ LabError::OverCapacity(_) => (RefusalKind::Invalid, first_line(&bundle, full.to_string())),
                    misplaced @ LabError::Misplaced(_) => {
                        (RefusalKind::Misplaced, first_line(&bundle, misplaced.to_string()))
                    }
                    error => return Err(error.into()),
                };
                return Err(refuse(kind, error, &reply));
            }
        };
        reply.ok = true;
        reply.inserted = InsertedCounts { bodies: inserted.bodies, joints: inserted.joints, robots: inserted.robots };
        reply.objects = names;
        tracing::info!(lab = %lab.id(), owner = adder.owner.id, objects = ?reply.objects, "objects added");
        Ok(reply)
    }

    /// The scene library, as fragments include from it.
    fn library_loader(self) -> DirLoader {
        DirLoader {
            scenes: self.classroom.library.scenes_dir.clone(),
            assets: Some(self.classroom.library.assets_dir.clone()),
        }
    }
}

/// A refused reply with `errors`.
fn reply_with(errors: Vec<SourceMessage>) -> SceneUploadReply {
    SceneUploadReply { errors, ..SceneUploadReply::default() }
}

/// `message` at the start of `bundle`'s main file.
fn first_line(bundle: &Bundle, message: String) -> SourceMessage {
    SourceMessage { file: bundle.main_name.clone(), line: 1, col: 1, message }
}

/// Whether `name` is an object's or a robot's in `lab`.
fn name_in_use(lab: &LabHandle, name: &str) -> bool {
    lab.robots().has_object(name) || lab.robots().has_robot(name)
}

/// A readable name no object of `lab` has: its owner's name, the item and the first
/// counter free (`ana_ramp_1`, `ana_ramp_2`).
fn free_name(lab: &LabHandle, owner: &Owner, item: &str) -> String {
    let who = if owner.id == INSTRUCTOR_ID { "instructor".to_owned() } else { suffix_from_name(&owner.name) };
    let who = if who.starts_with(|c: char| c.is_ascii_alphabetic()) { who } else { format!("p{who}") };
    (1..).map(|n| format!("{who}_{item}_{n}")).find(|name| !name_in_use(lab, name)).expect("a free counter")
}
