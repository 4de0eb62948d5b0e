//! Meshes and textures that came with uploads, served by their lab at a path that names
//! their content, kept in memory while something in the lab uses them (a restart brings
//! them back by doing the uploads again): an asset of robots goes when the last of them
//! is removed.

use std::collections::{BTreeSet, HashMap};

use bytes::Bytes;

use vlab_sim::mesh::{self, TrianglesOnce};

/// What uses an uploaded asset.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum AssetUser {
    /// A body of no robot (it stays as long as the lab).
    Scene,
    /// A body of this robot.
    Robot(String),
}

struct Served {
    bytes: Bytes,
    users: BTreeSet<AssetUser>,
    /// The asset's triangles once a page asked for them (meshes only): they go with it.
    triangles: TrianglesOnce,
}

/// An asset an upload brings to its lab: where it is served, its bytes, what uses it
/// and, for a mesh, its triangles.
pub struct ServedAsset {
    /// Its path under the lab's assets ([`served_path`]).
    pub path: String,
    /// The file.
    pub bytes: Bytes,
    /// What uses it.
    pub user: AssetUser,
    /// Its triangles, read at upload ([`UploadedAssets::read_meshes`]).
    pub triangles: TrianglesOnce,
}

/// Assets uploaded with scenes, per lab.
#[derive(Default)]
pub struct UploadedAssets {
    by_lab: std::sync::RwLock<HashMap<String, HashMap<String, Served>>>,
}

impl UploadedAssets {
    /// Serves `assets` in lab `lab`.
    pub fn add(&self, lab: &str, assets: Vec<ServedAsset>) {
        if assets.is_empty() {
            return;
        }
        let mut by_lab = self.by_lab.write().expect("assets lock");
        let served = by_lab.entry(lab.to_owned()).or_default();
        for ServedAsset { path, bytes, user, triangles } in assets {
            served
                .entry(path)
                .or_insert_with(|| Served { bytes, users: BTreeSet::new(), triangles })
                .users
                .insert(user);
        }
    }

    /// Reads the triangles of the meshes among `assets`, about to be served in lab
    /// `lab`, off the async workers: each file once, and not again when the lab serves
    /// the same file already. Returns what they count against the student's budget
    /// ([`super::budget::mesh_cost`]), each file once, and the files that do not read,
    /// with why (they count nothing: pages draw their parts' collision shapes).
    /// Reading them now, rather than when a page first asks, is what lets the budget
    /// count them before the upload is in.
    pub async fn read_meshes(&self, lab: &str, assets: &mut [ServedAsset]) -> (u64, Vec<(String, mesh::MeshError)>) {
        let mut files: Vec<(String, Bytes, TrianglesOnce)> = Vec::new();
        for asset in assets.iter_mut().filter(|asset| mesh::is_mesh_file(&asset.path)) {
            // The same file twice in one upload: read and counted once.
            if let Some((_, _, triangles)) = files.iter().find(|(path, _, _)| *path == asset.path) {
                asset.triangles = triangles.clone();
                continue;
            }
            if let Some((_, triangles)) = self.with_triangles(lab, &asset.path) {
                asset.triangles = triangles;
            }
            files.push((asset.path.clone(), asset.bytes.clone(), asset.triangles.clone()));
        }
        if files.is_empty() {
            return (0, Vec::new());
        }
        let read = tokio::task::spawn_blocking(move || {
            let mut cost = 0;
            let mut unread = Vec::new();
            for (path, bytes, once) in &files {
                match mesh::read_once(once, path, bytes) {
                    Ok(triangles) => cost += super::budget::mesh_cost(&triangles),
                    Err(error) => unread.push((path.clone(), error)),
                }
            }
            (cost, unread)
        });
        read.await.unwrap_or_default()
    }

    /// The asset at `path` in lab `lab`.
    pub fn get(&self, lab: &str, path: &str) -> Option<Bytes> {
        self.by_lab.read().expect("assets lock").get(lab)?.get(path).map(|served| served.bytes.clone())
    }

    /// The asset at `path` in lab `lab` and where its triangles are kept once read.
    pub fn with_triangles(&self, lab: &str, path: &str) -> Option<(Bytes, TrianglesOnce)> {
        let by_lab = self.by_lab.read().expect("assets lock");
        let served = by_lab.get(lab)?.get(path)?;
        Some((served.bytes.clone(), served.triangles.clone()))
    }

    /// Robot `robot` left lab `lab`: the assets only it used go.
    pub fn robot_removed(&self, lab: &str, robot: &str) {
        let mut by_lab = self.by_lab.write().expect("assets lock");
        let Some(served) = by_lab.get_mut(lab) else { return };
        let user = AssetUser::Robot(robot.to_owned());
        served.retain(|_, asset| {
            asset.users.remove(&user);
            !asset.users.is_empty()
        });
    }

    /// Bytes served in lab `lab`, each asset once.
    pub fn bytes_in(&self, lab: &str) -> usize {
        self.by_lab.read().expect("assets lock").get(lab).map_or(0, |s| s.values().map(|a| a.bytes.len()).sum())
    }

    /// Drops every asset of a closed lab.
    pub fn forget_lab(&self, lab: &str) {
        self.by_lab.write().expect("assets lock").remove(lab);
    }
}

/// Where a lab serves an asset uploaded with a scene. The content's hash is part of the
/// path, so two uploads of different `wheel.obj` files never replace each other.
pub fn served_path(name: &str, bytes: &[u8]) -> String {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    bytes.hash(&mut hasher);
    format!("{:016x}/{name}", hasher.finish())
}

/// The content type of an uploaded asset, from its name.
pub fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next().map(str::to_ascii_lowercase).as_deref() {
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("glb") => "model/gltf-binary",
        Some("gltf") => "model/gltf+json",
        _ => "text/plain",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_asset_stays_while_something_uses_it() {
        let assets = UploadedAssets::default();
        let wheel = Bytes::from_static(b"wheel");
        let robot = |name: &str| AssetUser::Robot(name.into());
        let served = |path: &str, bytes: &Bytes, user: AssetUser| ServedAsset {
            path: path.into(),
            bytes: bytes.clone(),
            user,
            triangles: TrianglesOnce::default(),
        };
        assets.add("lab", vec![served("w", &wheel, robot("a")), served("w", &wheel, robot("b"))]);
        assets.add("lab", vec![served("floor", &Bytes::from_static(b"floor"), AssetUser::Scene)]);
        assets.robot_removed("lab", "a");
        assert_eq!(assets.get("lab", "w"), Some(wheel), "b still uses it");
        assets.robot_removed("lab", "b");
        assert_eq!(assets.get("lab", "w"), None);
        assets.robot_removed("lab", "floor");
        assert_eq!(assets.bytes_in("lab"), 5, "the scene's stays");
    }
}
