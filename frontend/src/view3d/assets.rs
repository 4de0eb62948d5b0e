//! Fetches meshes and textures named by the snapshot (`/assets/...`) with the browser's
//! `fetch` and keeps them per URL in an [`AssetCache`]. A mesh comes as the triangles
//! the server read from its file (`GET /api/triangles?mesh=URL`: the page has no OBJ or
//! glTF reader); an image is decoded by the browser's own decoders. The renderer asks;
//! when an asset arrives the caches' generation changes and the renderer rebuilds with it.
//!
//! Turning the triangles into meshes and the texels into a texture is a part of the page
//! of its own (`scene_assets`, see `ui::part`): a lab whose scene names no mesh file and
//! no image never downloads that code, and one that does fetches it beside its first
//! asset (both on the way at once), while the view draws the collision shapes and plain
//! colours it draws anyway until an asset arrives.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;

use three_d::{Context, CpuMesh, CpuTexture, Indices, Mat4, Positions, Srgba, Texture2D, Vec2, Vec3};
use three_d_asset::{TextureData, f16};
use vlab_protocol::TriangleMesh;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_split_helpers::{SplitLoaderError, wasm_split};
use web_sys::{
    CanvasRenderingContext2d, ColorSpaceConversion, HtmlCanvasElement, ImageBitmap, ImageBitmapOptions,
    PremultiplyAlpha,
};

use crate::view3d::asset_cache::{AssetCache, is_supported_mesh, srgb_to_linear};

/// The triangle meshes of one mesh file, in the file's own units and frame.
pub type MeshAsset = Rc<Vec<CpuMesh>>;

/// Every asset the view has asked for, shared with the fetch tasks.
#[derive(Clone, Default)]
pub struct Assets {
    meshes: Rc<RefCell<AssetCache<MeshAsset>>>,
    textures: Rc<RefCell<AssetCache<Arc<Texture2D>>>>,
    /// Whether the `scene_assets` part was asked for yet.
    code_asked: Rc<Cell<bool>>,
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
            self.ask_for_code();
            let cache = Rc::clone(&self.meshes);
            let url = url.to_owned();
            wasm_bindgen_futures::spawn_local(async move {
                let result: Result<MeshAsset, String> = async {
                    if !is_supported_mesh(&url) {
                        return Err("not an .obj, .gltf or .glb file".to_owned());
                    }
                    let bytes = fetch_bytes(&triangles_url(&url)).await?;
                    Ok(meshes_of(bytes).await?)
                }
                .await;
                if let Err(error) = &result {
                    leptos::logging::warn!("mesh {url}: {error}; drawing the collision shape instead");
                }
                cache.borrow_mut().finish(&url, result);
            });
        }
        None
    }

    /// Starts fetching the `scene_assets` part with the first asset, so that it is on
    /// its way while the asset is (a failure is reported when the asset needs it).
    fn ask_for_code(&self) {
        if !self.code_asked.replace(true) {
            wasm_bindgen_futures::spawn_local(async {
                let _ = fetch_scene_assets_code().await;
            });
        }
    }

    /// The texture at `url` on the GPU if loaded; otherwise starts loading it (once).
    pub fn texture(&self, context: &Context, url: &str) -> Option<Arc<Texture2D>> {
        if let Some(texture) = self.textures.borrow().get(url) {
            return Some(Arc::clone(texture));
        }
        if self.textures.borrow_mut().request(url) {
            self.ask_for_code();
            let cache = Rc::clone(&self.textures);
            let url = url.to_owned();
            let context = context.clone();
            wasm_bindgen_futures::spawn_local(async move {
                let result: Result<Arc<Texture2D>, String> = async {
                    let image = decode_image(&url).await?;
                    Ok(texture_of(context, file_name(&url).to_owned(), image).await?)
                }
                .await;
                if let Err(error) = &result {
                    leptos::logging::warn!("texture {url}: {error}; drawing the plain colour instead");
                }
                cache.borrow_mut().finish(&url, result);
            });
        }
        None
    }
}

/// Why an asset could not be made ready, for the console; also what a failed fetch of
/// the `scene_assets` part becomes.
struct AssetFailed(String);

impl From<AssetFailed> for String {
    fn from(AssetFailed(why): AssetFailed) -> String {
        why
    }
}

impl From<SplitLoaderError> for AssetFailed {
    fn from(_: SplitLoaderError) -> AssetFailed {
        AssetFailed(
            "the page's code for meshes and images could not be fetched (check the connection, then reload)".into(),
        )
    }
}

/// An image's RGBA texels, row by row, as the browser decoded them.
struct DecodedImage {
    rgba: Vec<u8>,
    width: u32,
    height: u32,
}

/// The meshes of a mesh file, from the triangles the server read from it
/// ([`decode_mesh`]). In the `scene_assets` part.
#[wasm_split(scene_assets, fallible, preload(fetch_scene_assets_code))]
fn meshes_of(bytes: Vec<u8>) -> Result<MeshAsset, AssetFailed> {
    decode_mesh(&bytes).map(Rc::new).map_err(AssetFailed)
}

/// The texture of a decoded image on the GPU, its colours made linear ([`linearise`]);
/// an image without transparency becomes an RGB texture. In the `scene_assets` part.
#[wasm_split(scene_assets, fallible)]
fn texture_of(context: Context, name: String, image: DecodedImage) -> Result<Arc<Texture2D>, AssetFailed> {
    let rgba: Vec<[u8; 4]> = image.rgba.chunks_exact(4).map(|t| [t[0], t[1], t[2], t[3]]).collect();
    let data = if rgba.iter().all(|t| t[3] == u8::MAX) {
        TextureData::RgbU8(rgba.into_iter().map(|[r, g, b, _]| [r, g, b]).collect())
    } else {
        TextureData::RgbaU8(rgba)
    };
    let mut cpu = CpuTexture { name, data, width: image.width, height: image.height, ..Default::default() };
    linearise(&mut cpu);
    // three-d's `Texture2DRef` takes an `Arc`; one thread here anyway.
    #[allow(clippy::arc_with_non_send_sync)]
    Ok(Arc::new(Texture2D::new(&context, &cpu)))
}

/// The image at `url` as 8-bit RGBA texels, decoded by the browser (any format it
/// reads: PNG, JPEG, WebP...). Colours are taken as stored (no colour-space conversion,
/// no premultiplied alpha).
async fn decode_image(url: &str) -> Result<DecodedImage, String> {
    let window = web_sys::window().ok_or("no window")?;
    let response = fetch_response(url).await?;
    let blob = response.blob().map_err(|e| format!("{e:?}"))?;
    let blob: web_sys::Blob = JsFuture::from(blob)
        .await
        .map_err(|e| format!("reading the body failed: {e:?}"))?
        .dyn_into()
        .map_err(|_| "not a blob")?;
    let options = ImageBitmapOptions::new();
    options.set_color_space_conversion(ColorSpaceConversion::None);
    options.set_premultiply_alpha(PremultiplyAlpha::None);
    let decoding = window.create_image_bitmap_with_blob_and_image_bitmap_options(&blob, &options);
    let bitmap: ImageBitmap = JsFuture::from(decoding.map_err(|e| format!("{e:?}"))?)
        .await
        .map_err(|e| format!("not an image the browser can decode: {e:?}"))?
        .dyn_into()
        .map_err(|_| "not an image bitmap")?;
    let (width, height) = (bitmap.width(), bitmap.height());
    let texels = bitmap_texels(&window, &bitmap);
    bitmap.close();
    Ok(DecodedImage { rgba: texels?, width, height })
}

/// The RGBA bytes of `bitmap`, read back through a 2D canvas of its size.
fn bitmap_texels(window: &web_sys::Window, bitmap: &ImageBitmap) -> Result<Vec<u8>, String> {
    let document = window.document().ok_or("no document")?;
    let canvas: HtmlCanvasElement =
        document.create_element("canvas").map_err(|e| format!("{e:?}"))?.dyn_into().map_err(|_| "not a canvas")?;
    canvas.set_width(bitmap.width());
    canvas.set_height(bitmap.height());
    let context: CanvasRenderingContext2d = canvas
        .get_context("2d")
        .map_err(|e| format!("{e:?}"))?
        .ok_or("no 2D context")?
        .dyn_into()
        .map_err(|_| "not a 2D context")?;
    context.draw_image_with_image_bitmap(bitmap, 0.0, 0.0).map_err(|e| format!("{e:?}"))?;
    let image = context
        .get_image_data(0.0, 0.0, f64::from(bitmap.width()), f64::from(bitmap.height()))
        .map_err(|e| format!("{e:?}"))?;
    Ok(image.data().0)
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

/// The last path segment: the texture's name.
fn file_name(url: &str) -> &str {
    url.rsplit('/').next().unwrap_or(url)
}

/// Where the server answers with the triangles of the mesh file at `url`, in the layout
/// this build reads (a browser may keep an uploaded mesh's triangles: see docs/assets.md).
fn triangles_url(url: &str) -> String {
    format!(
        "/api/triangles?mesh={}&format={}",
        String::from(js_sys::encode_uri_component(url)),
        vlab_protocol::TRIANGLES_FORMAT
    )
}

/// Every triangle mesh the server read from a mesh file, with its transformation
/// applied and normals computed when the file has none.
fn decode_mesh(bytes: &[u8]) -> Result<Vec<CpuMesh>, String> {
    let placed = vlab_protocol::decode_triangles(bytes).map_err(|e| e.to_string())?;
    let mut meshes = Vec::new();
    for (mut mesh, transformation) in placed.into_iter().map(cpu_mesh_of) {
        mesh.transform(transformation).map_err(|e| e.to_string())?;
        if mesh.normals.is_none() {
            mesh.compute_normals();
        }
        meshes.push(mesh);
    }
    if meshes.is_empty() {
        return Err("no triangles in the file".to_owned());
    }
    Ok(meshes)
}

/// three-d's mesh of one of a file's triangle meshes, and the transformation that places it.
fn cpu_mesh_of(mesh: TriangleMesh) -> (CpuMesh, Mat4) {
    let vec3 = |v: Vec<[f32; 3]>| v.into_iter().map(Vec3::from).collect::<Vec<_>>();
    let cpu = CpuMesh {
        positions: Positions::F32(vec3(mesh.positions)),
        normals: mesh.normals.map(vec3),
        indices: mesh.indices.map_or(Indices::None, Indices::U32),
        uvs: mesh.uvs.map(|uvs| uvs.into_iter().map(Vec2::from).collect()),
        colors: mesh.colors.map(|colors| colors.into_iter().map(|[r, g, b, a]| Srgba::new(r, g, b, a)).collect()),
        ..Default::default()
    };
    (cpu, Mat4::from(mesh.transform))
}

/// The answer to `GET url` when it succeeded, or why not.
async fn fetch_response(url: &str) -> Result<web_sys::Response, String> {
    let window = web_sys::window().ok_or("no window")?;
    let response = JsFuture::from(window.fetch_with_str(url)).await.map_err(|e| format!("fetch failed: {e:?}"))?;
    let response: web_sys::Response = response.dyn_into().map_err(|_| "not a response")?;
    if !response.ok() {
        return Err(format!("HTTP {}", response.status()));
    }
    Ok(response)
}

/// The body of `GET url`, or why not.
async fn fetch_bytes(url: &str) -> Result<Vec<u8>, String> {
    let response = fetch_response(url).await?;
    let buffer = response.array_buffer().map_err(|e| format!("{e:?}"))?;
    let buffer = JsFuture::from(buffer).await.map_err(|e| format!("reading the body failed: {e:?}"))?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}
