//! libenz_plugin.so: enz-rs inside opt, clang and lld, as an LLVM pass
//! plugin. `shim/plugin.cpp` registers the `enz-rs` module pass with
//! LLVM's PassBuilder (see there for where it runs); the pass hands each
//! module to [`enz_plugin_run`], which differentiates it in place exactly
//! as the CLI does.
//!
//! This is the FFI boundary: the one place outside the IR crate with
//! `unsafe` (reading the C strings and the module pointer the shim
//! passes). No panic crosses it; a failure becomes a message the shim
//! reports through the host's diagnostics (clang: an error; opt: exit 1).

#![deny(unsafe_op_in_unsafe_fn)]

use enz_enzyme_api::{differentiate_module, Options};
use std::ffi::{c_char, c_int, c_void, CStr, CString};

extern "C" {
    /// Registers the pass with a `llvm::PassBuilder` (shim/plugin.cpp).
    fn enz_plugin_register(pass_builder: *mut c_void);
    /// `LLVM_PLUGIN_API_VERSION` of the headers the shim was built with.
    fn enz_plugin_api_version() -> u32;
}

/// `llvm::PassPluginLibraryInfo`, field for field (the shim checks the
/// size).
#[repr(C)]
pub struct PassPluginLibraryInfo {
    api_version: u32,
    plugin_name: *const c_char,
    plugin_version: *const c_char,
    register_pass_builder_callbacks: Option<unsafe extern "C" fn(*mut c_void)>,
    pre_codegen_callback: Option<unsafe extern "C" fn()>,
}

/// The entry point LLVM looks up in a pass plugin.
#[no_mangle]
pub extern "C" fn llvmGetPassPluginInfo() -> PassPluginLibraryInfo {
    PassPluginLibraryInfo {
        // SAFETY: a constant from the shim.
        api_version: unsafe { enz_plugin_api_version() },
        plugin_name: c"enz-rs".as_ptr(),
        plugin_version: c"0.1".as_ptr(),
        register_pass_builder_callbacks: Some(enz_plugin_register),
        pre_codegen_callback: None,
    }
}

/// What a pass parameter string says (`no-inline;no-preopt;explain;O1;
/// cache-budget=MB;mode-per-loop=MODE`): the options, whether this is a
/// ThinLTO back end (`thin-lto`, set by the shim), and whether to explain
/// the plans (`explain`). For clang and lld, whose pipelines take no
/// parameters, the shim adds `explain`, `cache-budget=MB` and
/// `mode-per-loop=MODE` from the environment (`ENZ_RS_EXPLAIN`,
/// `ENZ_RS_CACHE_BUDGET`, `ENZ_RS_MODE_PER_LOOP`, `ENZ_RS_GPU_THREAD_CACHE`).
fn parse_options(s: &str) -> Result<(Options, bool, bool), String> {
    let mut thin = false;
    let mut explain = false;
    let mut opts = Options {
        preopt: true,
        opt_level: 2,
        inline: true,
        trace_functions: None,
        keep_module_on_error: false,
        cache_budget: enz_enzyme_api::CacheBudget::Machine,
        loop_mode: enz_enzyme_api::LoopMode::Auto,
        gpu_thread_cache: enz_enzyme_api::DEFAULT_GPU_THREAD_CACHE,
        explain: false,
    };
    for word in s.split(';').map(str::trim).filter(|w| !w.is_empty()) {
        match word {
            "no-inline" => opts.inline = false,
            "no-preopt" => opts.preopt = false,
            "O0" => opts.opt_level = 0,
            "O1" => opts.opt_level = 1,
            "O2" => opts.opt_level = 2,
            "O3" => opts.opt_level = 3,
            "thin-lto" => thin = true,
            "explain" => {
                explain = true;
                opts.explain = true;
            }
            "mode-per-loop=reverse" => opts.loop_mode = enz_enzyme_api::LoopMode::Reverse,
            "mode-per-loop=auto" => opts.loop_mode = enz_enzyme_api::LoopMode::Auto,
            "mode-per-loop=mixed" => opts.loop_mode = enz_enzyme_api::LoopMode::Mixed,
            _ if word.starts_with("gpu-thread-cache=") => {
                opts.gpu_thread_cache = enz_enzyme_api::parse_gpu_thread_cache(
                    &word["gpu-thread-cache=".len()..],
                )
                .map_err(|e| format!("enz-rs: `{word}`: {e}"))?;
            }
            _ if word.starts_with("cache-budget=") => {
                opts.cache_budget = enz_enzyme_api::parse_cache_budget(&word["cache-budget=".len()..])
                    .map_err(|e| format!("enz-rs: `{word}`: {e}"))?;
            }
            _ => {
                return Err(format!(
                    "enz-rs: unknown pass parameter `{word}` (known: no-inline, no-preopt, explain, cache-budget=MB|auto|off, gpu-thread-cache=BYTES, mode-per-loop=reverse|auto|mixed, O0, O1, O2, O3)"
                ))
            }
        }
    }
    Ok((opts, thin, explain))
}

/// How a line of the message on success starts when it is a warning.
const WARNING: &str = "enz-rs: warning: ";

/// Differentiates the module behind `module` in place; the warnings and
/// the plans when asked to explain them, or the diagnostics of a failure,
/// joined.
fn run(module: *mut c_void, options: &str) -> Result<Option<String>, String> {
    let (opts, thin, explain) = parse_options(options)?;
    // SAFETY: the shim passes the module the pass manager is running on,
    // alive and not touched by anything else during the call.
    let result =
        unsafe { enz_enzyme_api::Module::with_raw(module, |m| differentiate_module(m, &opts)) };
    let result = result.map(|report| {
        // Warnings (a line each, `enz-rs: warning: `), which the shim
        // reports as warnings, then the plans, which it reports as a remark.
        let mut text: String = report
            .warnings
            .iter()
            .map(|w| format!("{WARNING}{}\n", w.replace('\n', " ")))
            .collect();
        if explain && !report.explanations.is_empty() {
            text.push_str(&format!(
                "enz-rs: {}",
                report.explanations.join("\nenz-rs: ").trim_end()
            ));
        }
        (!text.is_empty()).then_some(text)
    });
    result.map_err(|diags| {
        let mut text = diags
            .iter()
            .map(|d| format!("enz-rs: {d}"))
            .collect::<Vec<_>>()
            .join("\n");
        if thin {
            text.push_str("\nenz-rs: note: with -flto=thin each module is differentiated on its own, so a function defined in another translation unit has no body here; link with -flto (full LTO) to differentiate across translation units");
        }
        text
    })
}

/// The pass's entry point, called by the shim: 0 on success (with
/// `*message` set to the plans when asked to explain them, a remark),
/// else 1 with `*message` set to the diagnostics (an error); a message is
/// freed with [`enz_plugin_free_message`].
///
/// # Safety
/// `module` must be a live `LLVMModuleRef`, `options` a NUL-terminated
/// string, `message` writable.
#[no_mangle]
pub unsafe extern "C" fn enz_plugin_run(
    module: *mut c_void,
    options: *const c_char,
    message: *mut *mut c_char,
) -> c_int {
    let options = if options.is_null() {
        String::new()
    } else {
        // SAFETY: a NUL-terminated string from the shim.
        unsafe { CStr::from_ptr(options) }
            .to_string_lossy()
            .into_owned()
    };
    let outcome = std::panic::catch_unwind(|| run(module, &options)).unwrap_or_else(|p| {
        let what = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        Err(format!("enz-rs: internal error (a bug in enz-rs): {what}"))
    });
    let (rc, text) = match outcome {
        Ok(plans) => (0, plans),
        Err(text) => (1, Some(text)),
    };
    if let Some(text) = text.filter(|_| !message.is_null()) {
        let c = CString::new(text.replace('\0', " ")).unwrap_or_default();
        // SAFETY: `message` is writable (the shim's local).
        unsafe { *message = c.into_raw() };
    }
    rc
}

/// The pipeline-start pass, called by the shim before clang's inliner:
/// keeps the functions the user registered something for from being
/// inlined and the registration globals alive through link-time
/// dead-stripping (see `keep_registrations_for_later`). Returns how
/// many it marked; never fails.
///
/// # Safety
/// `module` must be a live `LLVMModuleRef`.
#[no_mangle]
pub unsafe extern "C" fn enz_plugin_prepare(module: *mut c_void) -> c_int {
    std::panic::catch_unwind(|| {
        // SAFETY: the module the pass manager runs on, as for the pass.
        unsafe {
            enz_enzyme_api::Module::with_raw(module, |m| {
                enz_enzyme_api::keep_registrations_for_later(m)
            })
        }
    })
    .map(|n| n as c_int)
    .unwrap_or(0)
}

/// Frees a message [`enz_plugin_run`] returned.
///
/// # Safety
/// `message` must come from `enz_plugin_run`, or be null.
#[no_mangle]
pub unsafe extern "C" fn enz_plugin_free_message(message: *mut c_char) {
    if !message.is_null() {
        // SAFETY: made by `CString::into_raw` in `enz_plugin_run`.
        drop(unsafe { CString::from_raw(message) });
    }
}

#[cfg(test)]
mod tests {
    use super::parse_options;

    #[test]
    fn pass_parameters_set_the_options() {
        let (o, thin, _) = parse_options("no-inline;O1").expect("valid");
        assert!(!o.inline && o.preopt && o.opt_level == 1 && !thin);
        assert!(parse_options("explain;O3").expect("valid").2);
        assert!(parse_options("").expect("valid").0.inline);
        assert!(parse_options("O2;thin-lto").expect("valid").1);
        assert!(parse_options("fast").is_err());
    }
}
