//! Meshes and textures that came with uploads, served by their lab at a path that names
//! their content, kept in memory while the server runs (a restart brings them back by
//! doing the uploads again).

use std::collections::HashMap;

use bytes::Bytes;

/// Assets uploaded with scenes, per lab.
#[derive(Default)]
pub struct UploadedAssets {
    by_lab: std::sync::RwLock<HashMap<String, HashMap<String, Bytes>>>,
}

impl UploadedAssets {
    /// Serves `assets` (path → bytes) in lab `lab`.
    pub fn add(&self, lab: &str, assets: Vec<(String, Bytes)>) {
        if assets.is_empty() {
            return;
        }
        self.by_lab.write().expect("assets lock").entry(lab.to_owned()).or_default().extend(assets);
    }

    /// The asset at `path` in lab `lab`.
    pub fn get(&self, lab: &str, path: &str) -> Option<Bytes> {
        self.by_lab.read().expect("assets lock").get(lab)?.get(path).cloned()
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
