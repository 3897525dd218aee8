//! cargo-enz as rustc's linker: the link's LLVM bitcode (the crate's
//! codegen units and the rlibs of the crates built with linker-plugin LTO)
//! merged into one module, differentiated by enz-rs, compiled to one
//! object; then the real linker runs the same link with that object in
//! place of the bitcode. Links with no `__enzyme_*` call (build scripts,
//! proc macros) go to the real linker unchanged.

use crate::archive::{is_bitcode, members};
use enz_enzyme_api::inkwell::context::Context;
use enz_enzyme_api::inkwell::memory_buffer::MemoryBuffer;
use enz_enzyme_api::inkwell::module::Module;
use enz_enzyme_api::inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine,
};
use enz_enzyme_api::inkwell::OptimizationLevel;
use enz_enzyme_api::{differentiate_module, Options};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// One bitcode module of the link.
struct Bitcode {
    /// Where it came from (a file, or `archive(member)`), for messages.
    origin: String,
    bytes: Vec<u8>,
}

/// What the link line holds: the bitcode to merge, and which arguments
/// it replaces (inputs whose code is all bitcode).
struct Inputs {
    bitcode: Vec<Bitcode>,
    replaced: Vec<usize>,
}

pub(crate) fn main(real_linker: &str, args: &[String]) -> ExitCode {
    let inputs = match read_inputs(args) {
        Ok(i) => i,
        Err(e) => return fail(&e),
    };
    let asks_for_derivatives = inputs
        .bitcode
        .iter()
        .any(|b| b.bytes.windows(9).any(|w| w == b"__enzyme_"));
    if !asks_for_derivatives {
        return run_linker(real_linker, args);
    }
    let dir = match tempfile::Builder::new().prefix("cargo-enz-").tempdir() {
        Ok(d) => d,
        Err(e) => return fail(&format!("cannot create a temporary directory: {e}")),
    };
    let object = dir.path().join("enz-differentiated.o");
    // The CPU rustc compiles for (`-C target-cpu`), as its LTO would.
    let cpu = plugin_opt(args, "mcpu=").unwrap_or("generic");
    if let Err(e) = differentiate(&inputs.bitcode, opt_level(args), cpu, &object) {
        return fail(&e);
    }
    let mut new_args: Vec<String> = Vec::new();
    let mut placed = false;
    for (i, a) in args.iter().enumerate() {
        if inputs.replaced.contains(&i) {
            if !placed {
                new_args.push(object.display().to_string());
                placed = true;
            }
            continue;
        }
        new_args.push(a.clone());
    }
    if !placed {
        new_args.insert(0, object.display().to_string());
    }
    run_linker(real_linker, &new_args)
}

fn fail(message: &str) -> ExitCode {
    eprintln!("cargo-enz: {message}");
    ExitCode::from(1)
}

fn run_linker(real_linker: &str, args: &[String]) -> ExitCode {
    match Command::new(real_linker).args(args).status() {
        Ok(s) => ExitCode::from(s.code().unwrap_or(1).clamp(0, 255) as u8),
        Err(e) => fail(&format!("cannot run the linker `{real_linker}`: {e}")),
    }
}

/// The bitcode inputs of the link: `.o` files that are bitcode, and the
/// bitcode members of `.rlib` archives; an rlib with no native object
/// member is replaced as a whole.
fn read_inputs(args: &[String]) -> Result<Inputs, String> {
    let mut inputs = Inputs {
        bitcode: Vec::new(),
        replaced: Vec::new(),
    };
    for (i, a) in args.iter().enumerate() {
        if a.starts_with('-') {
            continue;
        }
        let path = Path::new(a);
        let is_object = a.ends_with(".o");
        let is_rlib = a.ends_with(".rlib");
        if !(is_object || is_rlib) || !path.is_file() {
            continue;
        }
        let bytes = std::fs::read(path).map_err(|e| format!("cannot read `{a}`: {e}"))?;
        if is_object {
            if is_bitcode(&bytes) {
                inputs.bitcode.push(Bitcode {
                    origin: a.clone(),
                    bytes,
                });
                inputs.replaced.push(i);
            }
            continue;
        }
        let Some(ms) = members(&bytes) else { continue };
        let mut native = false;
        let mut any = false;
        for m in ms {
            if is_bitcode(m.data) {
                any = true;
                inputs.bitcode.push(Bitcode {
                    origin: format!("{a}({})", m.name),
                    bytes: m.data.to_vec(),
                });
            } else if m.name.ends_with(".o") {
                native = true;
            }
        }
        if any && !native {
            inputs.replaced.push(i);
        }
    }
    Ok(inputs)
}

/// The last value rustc gives the linker's LTO for `option`
/// (`-Wl,-plugin-opt=O3,-plugin-opt=mcpu=x86-64`: `O` gives `3`).
fn plugin_opt<'a>(args: &'a [String], option: &str) -> Option<&'a str> {
    args.iter()
        .flat_map(|a| a.split(','))
        .filter_map(|p| p.strip_prefix("-plugin-opt=")?.strip_prefix(option))
        .next_back()
}

/// The LTO optimisation level rustc asks of the linker, 2 when it says
/// none.
fn opt_level(args: &[String]) -> u8 {
    plugin_opt(args, "O")
        .and_then(|n| n.parse::<u8>().ok())
        .unwrap_or(2)
        .min(3)
}

/// Merges the modules, differentiates them and writes one object.
fn differentiate(
    bitcode: &[Bitcode],
    opt_level: u8,
    cpu: &str,
    object: &Path,
) -> Result<(), String> {
    let context = Context::create();
    let mut merged: Option<Module> = None;
    for b in bitcode {
        let buf = MemoryBuffer::create_from_memory_range_copy(&b.bytes, &b.origin);
        let m = Module::parse_bitcode_from_buffer(&buf, &context)
            .map_err(|e| format!("cannot read the bitcode of `{}`: {e}", b.origin))?;
        match &merged {
            None => merged = Some(m),
            Some(all) => all
                .link_in_module(m)
                .map_err(|e| format!("cannot link `{}` into the module: {e}", b.origin))?,
        }
    }
    let mut module = merged.ok_or("no bitcode to differentiate")?;
    // CARGO_ENZ_KEEP=DIR: the merged module and the differentiated one,
    // for a bug report or a look at the derivatives.
    let keep = std::env::var_os("CARGO_ENZ_KEEP").map(PathBuf::from);
    if let Some(dir) = &keep {
        module.write_bitcode_to_path(dir.join("merged.bc"));
    }
    let opts = Options {
        opt_level,
        keep_module_on_error: false,
        cache_budget: enz_enzyme_api::CacheBudget::Off,
        loop_mode: enz_enzyme_api::LoopMode::Auto,
        gpu_thread_cache: enz_enzyme_api::DEFAULT_GPU_THREAD_CACHE,
        ..Options::default()
    };
    // In a scope: what differentiation erases is freed when it returns.
    let report = enz_enzyme_api::Module::scope(&mut module, |m| differentiate_module(m, &opts))
        .map_err(|errors| {
            errors
                .iter()
                .map(|e| e.to_string())
                .collect::<Vec<_>>()
                .join("\n")
        })?;
    for w in &report.warnings {
        eprintln!("cargo-enz: warning: {w}");
    }
    if let Some(dir) = &keep {
        module.write_bitcode_to_path(dir.join("differentiated.bc"));
    }
    Target::initialize_all(&InitializationConfig::default());
    let triple = module.get_triple();
    let triple = if triple.as_str().to_bytes().is_empty() {
        TargetMachine::get_default_triple()
    } else {
        triple
    };
    let target =
        Target::from_triple(&triple).map_err(|e| format!("no target for the module: {e}"))?;
    let level = match opt_level {
        0 => OptimizationLevel::None,
        1 => OptimizationLevel::Less,
        2 => OptimizationLevel::Default,
        _ => OptimizationLevel::Aggressive,
    };
    let machine = target
        .create_target_machine(&triple, cpu, "", level, RelocMode::PIC, CodeModel::Default)
        .ok_or("cannot create a target machine for the module")?;
    machine
        .write_to_file(&module, FileType::Object, object)
        .map_err(|e| format!("cannot compile the differentiated module: {e}"))
}
