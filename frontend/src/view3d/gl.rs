//! Gets a three-d context from a canvas element.

use std::sync::Arc;

use wasm_bindgen::{JsCast, JsValue};
use web_sys::{HtmlCanvasElement, WebGl2RenderingContext};

/// `UNMASKED_RENDERER_WEBGL` of the `WEBGL_debug_renderer_info` extension.
const UNMASKED_RENDERER_WEBGL: u32 = 0x9246;

/// A three-d context, and whether WebGL runs on the CPU.
pub struct GlContext {
    /// For three-d.
    pub context: three_d::Context,
    /// The browser renders WebGL in software (SwiftShader, llvmpipe): expect tens of
    /// milliseconds per frame, so start at a lower quality.
    pub software: bool,
}

/// A WebGL2 context wrapped for three-d. `preserveDrawingBuffer` keeps the last frame
/// readable (e2e tests read pixels back; screenshots see what was drawn).
pub fn three_d_context(canvas: &HtmlCanvasElement) -> Result<GlContext, String> {
    let options = js_sys::Object::new();
    for (key, value) in [("antialias", true), ("depth", true), ("alpha", false), ("preserveDrawingBuffer", true)] {
        js_sys::Reflect::set(&options, &JsValue::from_str(key), &JsValue::from_bool(value))
            .map_err(|e| format!("{e:?}"))?;
    }
    let gl = canvas
        .get_context_with_context_options("webgl2", &options)
        .map_err(|e| format!("the browser refused a WebGL2 context: {e:?}"))?
        .ok_or("this browser has no WebGL2")?
        .dyn_into::<WebGl2RenderingContext>()
        .map_err(|_| "the webgl2 context has an unexpected type")?;
    // three-d renders some passes into float targets.
    let _ = gl.get_extension("EXT_color_buffer_float");
    let software = renderer_name(&gl).is_some_and(|name| {
        let name = name.to_ascii_lowercase();
        ["swiftshader", "llvmpipe", "softpipe", "software"].iter().any(|s| name.contains(s))
    });
    let gl = three_d::context::Context::from_webgl2_context(gl);
    // three-d's API takes an `Arc`; on wasm there is one thread, so `Send` is moot.
    #[allow(clippy::arc_with_non_send_sync)]
    let gl = Arc::new(gl);
    let context =
        three_d::Context::from_gl_context(gl).map_err(|e| format!("three-d could not use the context: {e}"))?;
    Ok(GlContext { context, software })
}

/// The GPU's name, when the browser tells it.
fn renderer_name(gl: &WebGl2RenderingContext) -> Option<String> {
    gl.get_extension("WEBGL_debug_renderer_info").ok().flatten()?;
    gl.get_parameter(UNMASKED_RENDERER_WEBGL).ok()?.as_string()
}
