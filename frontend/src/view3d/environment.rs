//! The ambient light: a sky-over-floor gradient, pre-filtered for image-based lighting so metals reflect something.
//!
//! A uniform ambient light leaves metallic parts black (they have no diffuse colour and
//! nothing to reflect). A tiny procedural cube map is enough to fix that; the
//! pre-filtering sizes are cut far below three-d's defaults so it stays quick to build
//! under software WebGL.
//!
//! The pre-filtering (three-d's environment shaders and cube-map code) is a part of the
//! page of its own (`lighting`, see `ui::part`), fetched when the view opens: the first
//! frames are lit by [`plain_ambient_light`], of the gradient's mean colour, and the
//! gradient replaces it a moment later, or never if the part cannot be fetched.

use std::cell::Cell;
use std::rc::Rc;

use three_d::{
    AmbientLight, Context, CpuTexture, Environment, EnvironmentOptions, Interpolation, Srgba, TextureCubeMap,
    TextureData, Wrapping,
};
use wasm_split_helpers::{SplitLoaderError, wasm_split};

use crate::view3d::sky::{gradient, linear_to_srgb, mean_colour};

/// Texels per cube face edge: the gradient is smooth, more would be wasted.
const FACE_TEXELS: u32 = 16;

/// Starts making the gradient ambient light; it is put in the returned cell when ready.
/// If its part cannot be fetched the cell stays empty, and the console says why.
pub fn fetch_ambient_light(context: &Context, intensity: f32) -> Rc<Cell<Option<AmbientLight>>> {
    let arriving = Rc::new(Cell::new(None));
    let cell = Rc::clone(&arriving);
    let context = context.clone();
    wasm_bindgen_futures::spawn_local(async move {
        match ambient_light(context, intensity).await {
            Ok(light) => cell.set(Some(light)),
            Err(LightingNotLoaded) => leptos::logging::warn!(
                "the page's code for the sky's lighting could not be fetched: lit evenly instead (check the connection, then reload)"
            ),
        }
    });
    arriving
}

/// The ambient light of every lab view once the `lighting` part is there.
#[wasm_split(lighting, fallible)]
fn ambient_light(context: Context, intensity: f32) -> Result<AmbientLight, LightingNotLoaded> {
    let faces = [0, 1, 2, 3, 4, 5].map(face_texture);
    let cube = TextureCubeMap::new(&context, &faces[0], &faces[1], &faces[2], &faces[3], &faces[4], &faces[5]);
    let options = EnvironmentOptions {
        irradiance_map_size: 8,
        irradiance_sample_count: 64,
        prefilter_map_size: 32,
        prefilter_map_max_mip_levels: 4,
        prefilter_sample_count: 64,
        brdf_map_size: 64,
        brdf_sample_count: 64,
        ..Default::default()
    };
    Ok(AmbientLight {
        intensity,
        color: Srgba::WHITE,
        environment: Some(Environment::new_with_options(&context, &cube, options)),
    })
}

/// The ambient light until [`ambient_light`] is ready: uniform, of the colour the
/// gradient averages to over the sphere of directions, so that matte faces keep about
/// their brightness when the gradient replaces it.
pub fn plain_ambient_light(context: &Context, intensity: f32) -> AmbientLight {
    let [r, g, b] = mean_colour().map(linear_to_srgb);
    AmbientLight::new(context, intensity, Srgba::new_opaque(r, g, b))
}

/// Why the gradient could not be had: its part could not be fetched.
#[derive(Debug)]
struct LightingNotLoaded;

impl From<SplitLoaderError> for LightingNotLoaded {
    fn from(_: SplitLoaderError) -> LightingNotLoaded {
        LightingNotLoaded
    }
}

/// One face of the cube map, in GL's order (+X, -X, +Y, -Y, +Z, -Z); row 0 is `t = 0`.
fn face_texture(face: usize) -> CpuTexture {
    let mut data = Vec::with_capacity((FACE_TEXELS * FACE_TEXELS) as usize);
    for row in 0..FACE_TEXELS {
        for column in 0..FACE_TEXELS {
            let sc = 2.0 * (column as f32 + 0.5) / FACE_TEXELS as f32 - 1.0;
            let tc = 2.0 * (row as f32 + 0.5) / FACE_TEXELS as f32 - 1.0;
            // The direction each texel stands for (OpenGL spec, table 8.19).
            let direction = match face {
                0 => [1.0, -tc, -sc],
                1 => [-1.0, -tc, sc],
                2 => [sc, 1.0, tc],
                3 => [sc, -1.0, -tc],
                4 => [sc, -tc, 1.0],
                _ => [-sc, -tc, -1.0],
            };
            let length = direction.iter().map(|c| c * c).sum::<f32>().sqrt();
            let colour = gradient(direction[1] / length);
            data.push(colour.map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8));
        }
    }
    CpuTexture {
        data: TextureData::RgbU8(data),
        width: FACE_TEXELS,
        height: FACE_TEXELS,
        min_filter: Interpolation::Linear,
        mag_filter: Interpolation::Linear,
        mipmap: None,
        wrap_s: Wrapping::ClampToEdge,
        wrap_t: Wrapping::ClampToEdge,
        ..Default::default()
    }
}
