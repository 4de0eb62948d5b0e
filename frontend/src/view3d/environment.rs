//! The ambient light: a sky-over-floor gradient, pre-filtered for image-based lighting so metals reflect something.
//!
//! A uniform ambient light leaves metallic parts black (they have no diffuse colour and
//! nothing to reflect). A tiny procedural cube map is enough to fix that; the
//! pre-filtering sizes are cut far below three-d's defaults so it stays quick to build
//! under software WebGL.

use three_d::{
    AmbientLight, Context, CpuTexture, Environment, EnvironmentOptions, Interpolation, Srgba, TextureCubeMap,
    TextureData, Wrapping,
};

/// Texels per cube face edge: the gradient is smooth, more would be wasted.
const FACE_TEXELS: u32 = 16;

/// Linear RGB seen looking straight up, at the horizon and straight down.
const ZENITH: [f32; 3] = [0.75, 0.82, 0.95];
const HORIZON: [f32; 3] = [0.55, 0.56, 0.58];
const NADIR: [f32; 3] = [0.18, 0.17, 0.16];

/// The ambient light of every lab view.
pub fn ambient_light(context: &Context, intensity: f32) -> AmbientLight {
    let faces = [0, 1, 2, 3, 4, 5].map(face_texture);
    let cube = TextureCubeMap::new(context, &faces[0], &faces[1], &faces[2], &faces[3], &faces[4], &faces[5]);
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
    AmbientLight {
        intensity,
        color: Srgba::WHITE,
        environment: Some(Environment::new_with_options(context, &cube, options)),
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

/// Colour for a direction with this vertical component (-1 down … 1 up).
fn gradient(up: f32) -> [f32; 3] {
    let (from, to, t) = if up >= 0.0 { (HORIZON, ZENITH, up.sqrt()) } else { (HORIZON, NADIR, (-up).sqrt()) };
    [0, 1, 2].map(|k| from[k] + (to[k] - from[k]) * t)
}
