//! Fetches meshes and textures named by the snapshot (`/assets/...`) with the browser's
//! `fetch`, decodes them in memory with three-d-asset, and keeps them per URL in an
//! [`AssetCache`]. The renderer asks; when an asset arrives the caches' generation
//! changes and the renderer rebuilds with it.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use three_d::{Context, CpuMesh, CpuTexture, Texture2D};
use three_d_asset::io::RawAssets;
use three_d_asset::{Geometry, Model, TextureData, f16};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::view3d::asset_cache::{AssetCache, is_supported_mesh, srgb_to_linear};

/// The triangle meshes of one mesh file, in the file's own units and frame.
pub type MeshAsset = Rc<Vec<CpuMesh>>;

/// Every asset the view has asked for, shared with the fetch tasks.
#[derive(Clone, Default)]
pub struct Assets {
    meshes: Rc<RefCell<AssetCache<MeshAsset>>>,
    textures: Rc<RefCell<AssetCache<Arc<Texture2D>>>>,
}

impl Assets {
    /// Changes whenever any asset arrives or fails.
    pub fn generation(&self) -> u64 {
        self.meshes.borrow().generation() + self.textures.borrow().generation()
    }

    /// The mesh at `url` if loaded; otherwise starts loading it (once) and returns `None`.
    pub fn mesh(&self, url: &str) -> Option<MeshAsset> {
        if let Some(mesh) = self.meshes.borrow().get(url) {
            return Some(Rc::clone(mesh));
        }
        if self.meshes.borrow_mut().request(url) {
            let cache = Rc::clone(&self.meshes);
            let url = url.to_owned();
            wasm_bindgen_futures::spawn_local(async move {
                let result = if is_supported_mesh(&url) {
                    fetch_bytes(&url).await.and_then(|bytes| decode_mesh(&url, bytes))
                } else {
                    Err("not an .obj, .gltf or .glb file".to_owned())
                };
                if let Err(error) = &result {
                    leptos::logging::warn!("mesh {url}: {error}; drawing the collision shape instead");
                }
                cache.borrow_mut().finish(&url, result.map(Rc::new));
            });
        }
        None
    }

    /// The texture at `url` on the GPU if loaded; otherwise starts loading it (once).
    pub fn texture(&self, context: &Context, url: &str) -> Option<Arc<Texture2D>> {
        if let Some(texture) = self.textures.borrow().get(url) {
            return Some(Arc::clone(texture));
        }
        if self.textures.borrow_mut().request(url) {
            let cache = Rc::clone(&self.textures);
            let url = url.to_owned();
            let context = context.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let result = fetch_bytes(&url).await.and_then(|bytes| {
                    let mut raw = RawAssets::new();
                    raw.insert(file_name(&url), bytes);
                    let mut cpu: CpuTexture = raw.deserialize(file_name(&url)).map_err(|e| e.to_string())?;
                    linearise(&mut cpu);
                    // three-d's `Texture2DRef` takes an `Arc`; one thread here anyway.
                    #[allow(clippy::arc_with_non_send_sync)]
                    Ok(Arc::new(Texture2D::new(&context, &cpu)))
                });
                if let Err(error) = &result {
                    leptos::logging::warn!("texture {url}: {error}; drawing the plain colour instead");
                }
                cache.borrow_mut().finish(&url, result);
            });
        }
        None
    }
}

/// Turns 8-bit sRGB colour texels into linear half floats (see [`srgb_to_linear`]);
/// alpha stays linear. Half floats are filterable in WebGL2 without extensions.
fn linearise(texture: &mut CpuTexture) {
    let h = |c: u8| f16::from_f32(srgb_to_linear(c));
    let a = |c: u8| f16::from_f32(f32::from(c) / 255.0);
    texture.data = match &texture.data {
        TextureData::RgbU8(texels) => TextureData::RgbF16(texels.iter().map(|t| t.map(h)).collect()),
        TextureData::RgbaU8(texels) => {
            TextureData::RgbaF16(texels.iter().map(|&[r, g, b, alpha]| [h(r), h(g), h(b), a(alpha)]).collect())
        }
        _ => return,
    };
}

/// The last path segment: three-d-asset picks the decoder by its extension.
fn file_name(url: &str) -> &str {
    url.rsplit('/').next().unwrap_or(url)
}

/// Every triangle mesh of a mesh file, with its node transformation applied and
/// normals computed when the file has none.
fn decode_mesh(url: &str, bytes: Vec<u8>) -> Result<Vec<CpuMesh>, String> {
    let mut raw = RawAssets::new();
    raw.insert(file_name(url), bytes);
    let model: Model = raw.deserialize(file_name(url)).map_err(|e| e.to_string())?;
    let mut meshes = Vec::new();
    for primitive in model.geometries {
        if let Geometry::Triangles(mut mesh) = primitive.geometry {
            mesh.transform(primitive.transformation).map_err(|e| e.to_string())?;
            if mesh.normals.is_none() {
                mesh.compute_normals();
            }
            meshes.push(mesh);
        }
    }
    if meshes.is_empty() {
        return Err("no triangles in the file".to_owned());
    }
    Ok(meshes)
}

/// The body of `GET url`, or why not.
async fn fetch_bytes(url: &str) -> Result<Vec<u8>, String> {
    let window = web_sys::window().ok_or("no window")?;
    let response = JsFuture::from(window.fetch_with_str(url)).await.map_err(|e| format!("fetch failed: {e:?}"))?;
    let response: web_sys::Response = response.dyn_into().map_err(|_| "not a response")?;
    if !response.ok() {
        return Err(format!("HTTP {}", response.status()));
    }
    let buffer = response.array_buffer().map_err(|e| format!("{e:?}"))?;
    let buffer = JsFuture::from(buffer).await.map_err(|e| format!("reading the body failed: {e:?}"))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}
