//! The names of Enzyme's contexts of global shadows
//! (`__enzyme_context`, `__enzyme_shadow`, `__enzyme_zero_shadows`, the
//! `enzyme_context` marker) and of the helpers enz-rs lowers them to
//! (`synth/context.rs`).

/// `void *__enzyme_context(int width)`: a new context (zeroed shadows of
/// every global, `width` lanes).
pub const CONTEXT_NEW: &str = "__enzyme_context";
/// `void *__enzyme_shadow(void *ctx, void *p, int lane)`: the shadow in
/// `ctx` of `p`, a pointer into a global.
pub const CONTEXT_SHADOW: &str = "__enzyme_shadow";
/// `void __enzyme_zero_shadows(void *ctx)`.
pub const CONTEXT_ZERO: &str = "__enzyme_zero_shadows";

/// The helpers the calls become, defined when the session commits.
pub const CTX_NEW: &str = "__enz_ctx_new";
/// `ptr __enz_ctx_shadow(ptr ctx, ptr p, i32 lane)`.
pub const CTX_SHADOW: &str = "__enz_ctx_shadow";
/// `void __enz_ctx_zero(ptr ctx)`.
pub const CTX_ZERO: &str = "__enz_ctx_zero";
/// `void __enz_ctx_enter(ptr ctx)`: before a derivative called with
/// `enzyme_context, ctx`, the context's shadows into the shadow globals.
pub const CTX_ENTER: &str = "__enz_ctx_enter";
/// `void __enz_ctx_leave(ptr ctx)`: after it, the shadow globals back into
/// the context.
pub const CTX_LEAVE: &str = "__enz_ctx_leave";
/// `i8` flag set by `__enz_ctx_enter`: the derivative called next keeps
/// the shadow globals instead of zeroing them on entry.
pub const CTX_ENTERED: &str = "__enz_ctx_entered";
/// `void __enz_reset_shadows()`: what a derivative the program calls does
/// first (zero the shadow globals, unless a context was just entered).
pub const RESET_SHADOWS: &str = "__enz_reset_shadows";

/// Whether `name` is one of the context helpers (`__enz_ctx_*`).
pub(crate) fn is_context_helper(name: &str) -> bool {
    [CTX_NEW, CTX_SHADOW, CTX_ZERO, CTX_ENTER, CTX_LEAVE].contains(&name)
}
