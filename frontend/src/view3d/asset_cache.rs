//! Assets the view fetches once per URL (meshes, textures): which are loading, which
//! arrived, which failed.
//!
//! Pure bookkeeping, host-tested; the fetching and decoding live in `view3d::assets`.
//! Until an asset is ready (or when it failed) the view draws the part's collision
//! shape and its material's plain colour.

use std::collections::HashMap;

/// Where one URL stands.
#[derive(Clone, Debug, PartialEq)]
pub enum AssetState<T> {
    /// Asked for, not here yet.
    Loading,
    /// Decoded and usable.
    Ready(T),
    /// Could not be fetched or decoded (the reason is logged once); never retried.
    Failed,
}

/// Assets by URL, fetched at most once each.
#[derive(Debug)]
pub struct AssetCache<T> {
    entries: HashMap<String, AssetState<T>>,
    generation: u64,
}

impl<T> Default for AssetCache<T> {
    fn default() -> Self {
        AssetCache { entries: HashMap::new(), generation: 0 }
    }
}

impl<T> AssetCache<T> {
    /// The asset at `url`, if it is ready.
    pub fn get(&self, url: &str) -> Option<&T> {
        match self.entries.get(url) {
            Some(AssetState::Ready(asset)) => Some(asset),
            _ => None,
        }
    }

    /// Asks for `url`: true the first time (the caller starts fetching it), false once
    /// it is loading, loaded or failed.
    pub fn request(&mut self, url: &str) -> bool {
        if self.entries.contains_key(url) {
            return false;
        }
        self.entries.insert(url.to_owned(), AssetState::Loading);
        true
    }

    /// Records how fetching `url` ended; changes the generation so the view rebuilds.
    pub fn finish(&mut self, url: &str, result: Result<T, String>) {
        let state = match result {
            Ok(asset) => AssetState::Ready(asset),
            Err(_) => AssetState::Failed,
        };
        self.entries.insert(url.to_owned(), state);
        self.generation += 1;
    }

    /// Where `url` stands, if it was ever requested.
    pub fn state(&self, url: &str) -> Option<&AssetState<T>> {
        self.entries.get(url)
    }

    /// Changes whenever an asset arrives or fails.
    pub fn generation(&self) -> u64 {
        self.generation
    }
}

/// Metres of surface one copy of a texture covers.
pub const TEXTURE_METRES: f32 = 2.0;

/// An 8-bit sRGB channel as linear light in `0..=1`. three-d samples textures as
/// linear values (it has no sRGB texture formats), so image texels are converted
/// before upload; without this a texture looks much lighter than its colour.
pub fn srgb_to_linear(c: u8) -> f32 {
    let c = f32::from(c) / 255.0;
    if c <= 0.04045 { c / 12.92 } else { ((c + 0.055) / 1.055).powf(2.4) }
}

/// Whether `url` names a mesh format the view can decode.
pub fn is_supported_mesh(url: &str) -> bool {
    let lower = url.to_ascii_lowercase();
    [".obj", ".gltf", ".glb"].iter().any(|ext| lower.ends_with(ext))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_url_is_fetched_once_and_failures_are_not_retried() {
        let mut cache: AssetCache<u32> = AssetCache::default();
        assert!(cache.request("/assets/wheel.obj"));
        assert!(!cache.request("/assets/wheel.obj"), "already loading");
        assert_eq!(cache.get("/assets/wheel.obj"), None);
        let before = cache.generation();
        cache.finish("/assets/wheel.obj", Ok(7));
        assert!(cache.generation() > before);
        assert_eq!(cache.get("/assets/wheel.obj"), Some(&7));
        assert!(!cache.request("/assets/wheel.obj"));

        assert!(cache.request("/assets/missing.obj"));
        cache.finish("/assets/missing.obj", Err("404".into()));
        assert_eq!(cache.state("/assets/missing.obj"), Some(&AssetState::Failed));
        assert_eq!(cache.get("/assets/missing.obj"), None);
        assert!(!cache.request("/assets/missing.obj"), "a failure is final");
    }

    #[test]
    fn srgb_texels_become_linear_light() {
        assert_eq!(srgb_to_linear(0), 0.0);
        assert!((srgb_to_linear(255) - 1.0).abs() < 1e-6);
        assert!((srgb_to_linear(128) - 0.2158).abs() < 1e-3, "{}", srgb_to_linear(128));
        assert!((0..255).all(|c| srgb_to_linear(c) < srgb_to_linear(c + 1)));
    }

    #[test]
    fn mesh_formats_by_extension() {
        assert!(is_supported_mesh("/assets/wheel.obj"));
        assert!(is_supported_mesh("/assets/Robot.GLB"));
        assert!(!is_supported_mesh("/assets/wheel.mesh"));
    }
}
