//! The `enz-rs` command: differentiate the `__enzyme_*` call sites of an LLVM
//! module.
//!
//! Only this crate touches argv and files. It reads bitcode or textual IR,
//! hands the module to `enz_enzyme_api::differentiate_module`, and writes the
//! result through a temporary file renamed into place, so that a failed run
//! never leaves a partial output.
//!
//! The input is untrusted: before this process parses it, a child process
//! (this executable with `--read-check`) parses and verifies it under a time
//! and address-space limit, so that bytes that crash, exhaust memory in or
//! hang LLVM's reader give a diagnostic, not a crash (see `untrusted.rs`).
//! LLVM's fatal errors exit with status 2; writing to a closed stdout or
//! stderr is never an error.
#![forbid(unsafe_code)]

#[cfg(feature = "fault-injection")]
mod fault;
mod untrusted;

use clap::Parser;
use enz_enzyme_api::inkwell::context::Context;
use enz_enzyme_api::inkwell::memory_buffer::MemoryBuffer;
use enz_enzyme_api::inkwell::module::Module;
use enz_enzyme_api::{
    differentiate_module, print_abi, print_activity, print_plan, print_type_analysis,
    retarget_to_host, Diagnostic, Options, Report,
};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// Automatic differentiation of LLVM IR, Enzyme-compatible.
///
/// Replaces every call to __enzyme_autodiff in the input module with a call to
/// a synthesised gradient function, re-optimises, verifies and writes the
/// module. Input may be bitcode (.bc) or textual IR (.ll).
#[derive(Parser, Debug)]
#[command(name = "enz-rs", version, about, long_about = None)]
struct Cli {
    /// Input module: LLVM bitcode or textual IR.
    input: PathBuf,

    /// Output file (`-`: standard output).
    #[arg(short = 'o', long = "output", value_name = "OUT",
          required_unless_present_any = ["print_type_analysis", "print_activity", "print_abi", "print_plan", "read_check", "explain"])]
    output: Option<PathBuf>,

    /// Print the type analysis of function FN (after preprocessing); then
    /// exit, or with -o differentiate the module as usual.
    #[arg(long = "print-type-analysis", value_name = "FN")]
    print_type_analysis: Option<String>,

    /// Print the activity analysis of function FN (after preprocessing, with
    /// the default activities: floats active, pointers shadowed); then exit,
    /// or with -o differentiate the module as usual.
    #[arg(long = "print-activity", value_name = "FN")]
    print_activity: Option<String>,

    /// Print the plan of the gradient of function FN (how each value
    /// reaches the reverse sweep: used directly, recomputed, re-read or
    /// cached); then exit, or with -o differentiate the module as usual.
    #[arg(long = "print-plan", value_name = "FN")]
    print_plan: Option<String>,

    /// Print the canonical derivative ABI of function FN (what its
    /// derivatives take and return when activities follow from the types);
    /// then exit, or with -o differentiate the module as usual.
    #[arg(long = "print-abi", value_name = "FN")]
    print_abi: Option<String>,

    /// Differentiate, then print the plan of each derivative made: per
    /// loop (with its source line, given debug info), the strategy, the
    /// bytes cached per iteration and the recomputation factor. On stdout
    /// (stderr when the module itself goes to stdout, `-o -`); without -o
    /// nothing else is written.
    #[arg(long = "explain")]
    explain: bool,

    /// Bound the memory one gradient call's loop caches may hold: a whole
    /// number of MiB, `auto` (the default: half the physical memory of the
    /// machine the gradient runs on, read at run time) or `off`. A time
    /// loop over a state in memory whose stores write byte ranges known
    /// before it may be checkpointed: where a bound on what it caches
    /// running plainly (its trip count times its loops' values) is
    /// computable before it and within half the budget, it runs plainly
    /// (under `auto`, a loop whose trip count is known only as it runs
    /// does when one iteration's bound is at most 64 KiB); otherwise its first k iterations are recorded (k = the lesser of
    /// half the budget and 128 MiB over what one iteration caches,
    /// measured at run time), after them
    /// its state is saved every k iterations and each later segment runs
    /// again before its reverse. `off`: every loop caches every
    /// iteration, nothing is checkpointed. Under an explicit MiB budget,
    /// a time loop that cannot be checkpointed is warned of here, and the
    /// gradient writes one line to stderr when a call's caches pass the
    /// budget (`ENZ_RS_QUIET_BUDGET` set in its environment silences it).
    #[arg(long = "cache-budget", value_name = "MB|auto|off",
          default_value = "auto", value_parser = enz_enzyme_api::parse_cache_budget)]
    cache_budget: enz_enzyme_api::CacheBudget,

    /// GPU (NVPTX) gradients: the bytes of loop caches each thread keeps,
    /// in a fixed array on its stack (no dynamic allocation). A loop whose
    /// caches do not fit is recomputed from saved states where it can run
    /// again (it writes no memory and reads nothing written after it);
    /// otherwise the gradient kernel traps, which enz-rs warns of when the
    /// loop's trip count is not known to fit (`--explain` says per loop).
    #[arg(long = "gpu-thread-cache", value_name = "BYTES",
          default_value_t = enz_enzyme_api::DEFAULT_GPU_THREAD_CACHE,
          value_parser = enz_enzyme_api::parse_gpu_thread_cache)]
    gpu_thread_cache: u64,

    /// How loops are differentiated: `auto` (the default) uses mixed mode
    /// (the partials of each iteration by forward mode in the forward
    /// sweep, cached instead of its intermediate values) for elementwise
    /// loops where it caches at most half the bytes; `mixed` in every
    /// elementwise loop; `reverse` nowhere (scripts/bench-mixed.sh).
    #[arg(long = "mode-per-loop", value_name = "MODE", value_enum, default_value_t = LoopMode::Auto)]
    mode_per_loop: LoopMode,

    /// Write textual IR instead of bitcode.
    #[arg(short = 'S')]
    text: bool,

    /// Do not run the clean-up pipeline on the functions before
    /// differentiating them.
    #[arg(long = "no-preopt")]
    no_preopt: bool,

    /// After differentiating, retarget an NVPTX module to the host for the
    /// CPU SIMT emulator (runtime/emu/): host triple, no address spaces,
    /// kernels as plain C functions, thread ids and barriers as calls to the
    /// emulator runtime.
    #[arg(long = "emulate-host")]
    emulate_host: bool,

    /// Print how long each stage took and the instruction counts before
    /// and after, on stderr.
    #[arg(long = "time")]
    time: bool,

    /// Do not inline calls before differentiating: every called function
    /// gets its own augmented primal and reverse (or forward) derivative
    /// (by default only callees of 500 or more instructions that are not
    /// optnone do).
    #[arg(long = "no-inline")]
    no_inline: bool,

    /// Internal: only parse and verify the input, in the child process that
    /// guards the parent against hostile bitcode.
    #[arg(long = "read-check", hide = true)]
    read_check: bool,

    /// Optimisation level after differentiation (-O0, -O1, -O2, -O3).
    #[arg(short = 'O', value_name = "LEVEL", default_value_t = 2,
          value_parser = clap::value_parser!(u8).range(0..=3))]
    opt_level: u8,
}

/// `--mode-per-loop`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
enum LoopMode {
    Reverse,
    Auto,
    Mixed,
}

fn main() -> ExitCode {
    enz_enzyme_api::install_fatal_error_handler();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // --help and --version print to stdout and succeed; a usage
            // error is the user's (exit 1, not the internal-error status 2).
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 1 } else { 0 });
        }
    };
    if cli.read_check {
        return untrusted::read_check_child(&cli.input);
    }
    #[cfg(feature = "fault-injection")]
    let exit2 = fault::arm();
    #[cfg(not(feature = "fault-injection"))]
    let exit2 = false;
    match std::panic::catch_unwind(|| run(&cli)) {
        Ok(Ok(())) if exit2 => {
            say_err("error: internal error in enz-rs (injected by ENZ_RS_FAULT=exit2)");
            ExitCode::from(2)
        }
        Ok(Ok(())) => ExitCode::SUCCESS,
        Ok(Err(errors)) => {
            for e in &errors {
                say_err(&e.to_string());
            }
            // A module enz-rs itself made invalid is its bug, not the user's.
            let internal = errors.iter().any(|e| e.internal);
            ExitCode::from(if internal { 2 } else { 1 })
        }
        Err(_) => {
            say_err(&format!(
                "error: internal error in enz-rs while processing `{}` (this is a bug; no output was written)",
                cli.input.display()
            ));
            ExitCode::from(2)
        }
    }
}

/// One line on stderr; a closed or full stderr is ignored.
fn say_err(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Text on stdout; a closed stdout (`enz-rs ... | head`) is ignored.
fn say_out(text: &str) {
    let mut out = std::io::stdout();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

fn run(cli: &Cli) -> Result<(), Vec<Diagnostic>> {
    let context = Context::create();
    let read_start = Instant::now();
    untrusted::check_in_child(&cli.input).map_err(|d| vec![d])?;
    let mut module = read_module(&context, &cli.input).map_err(|d| vec![d])?;
    let read_time = read_start.elapsed();
    if let Err(e) = module.verify() {
        return Err(vec![Diagnostic::new(format!(
            "`{}` is not a valid LLVM module: {}",
            cli.input.display(),
            e.to_string().trim()
        ))]);
    }
    let opts = Options {
        preopt: !cli.no_preopt,
        opt_level: cli.opt_level,
        inline: !cli.no_inline,
        trace_functions: std::env::var_os("ENZ_TRACE_FUNCTIONS")
            .is_some()
            .then_some(|line: &str| eprintln!("{line}")),
        // The module is thrown away on error: no need to try on a copy.
        keep_module_on_error: false,
        cache_budget: cli.cache_budget,
        gpu_thread_cache: cli.gpu_thread_cache,
        loop_mode: match cli.mode_per_loop {
            LoopMode::Reverse => enz_enzyme_api::LoopMode::Reverse,
            LoopMode::Auto => enz_enzyme_api::LoopMode::Auto,
            LoopMode::Mixed => enz_enzyme_api::LoopMode::Mixed,
        },
        explain: cli.explain,
    };
    // In a scope: what the printing and differentiation erase is freed
    // when it ends, before the module is written.
    let outcome = enz_enzyme_api::Module::scope(&mut module, |ir_module| {
        if let Some(f) = &cli.print_type_analysis {
            say_out(&print_type_analysis(ir_module, f, &opts).map_err(|d| vec![d])?);
        }
        if let Some(f) = &cli.print_activity {
            say_out(&print_activity(ir_module, f, &opts).map_err(|d| vec![d])?);
        }
        if let Some(f) = &cli.print_plan {
            say_out(&print_plan(ir_module, f, &opts).map_err(|d| vec![d])?);
        }
        if let Some(f) = &cli.print_abi {
            say_out(&print_abi(ir_module, f).map_err(|d| vec![d])?);
        }
        if cli.output.is_none() && !cli.explain {
            return Ok(None);
        }
        Ok::<_, Vec<Diagnostic>>(Some(differentiate_module(ir_module, &opts)))
    });
    let Some(report) = outcome? else {
        return Ok(());
    };
    let report = report.inspect_err(|errors| {
        // Debugging aid: the module that enz-rs itself made invalid.
        if let Some(path) = std::env::var_os("ENZ_DUMP_INVALID") {
            if errors.iter().any(|e| e.internal) {
                let _ = module.print_to_file(&path);
            }
        }
    })?;
    for w in &report.warnings {
        eprintln!("warning: {w}");
    }
    if cli.time {
        print_timings(&report, read_time);
    }
    if cli.explain {
        let text: String = report.explanations.join("\n");
        if cli.output.as_deref() == Some(std::path::Path::new("-")) {
            let _ = write!(std::io::stderr(), "{text}");
        } else {
            say_out(&text);
        }
    }
    let Some(out) = &cli.output else {
        return Ok(());
    };
    if cli.emulate_host {
        let host = retarget_to_host(&module.print_to_string().to_string()).map_err(|d| vec![d])?;
        let buf = MemoryBuffer::create_from_memory_range_copy(host.as_bytes(), "emulate-host");
        let host = context.create_module_from_ir(buf).map_err(|e| {
            vec![Diagnostic::new(format!(
                "cannot reparse the retargeted module: {e}"
            ))]
        })?;
        return write_module(&host, out, cli.text).map_err(|d| vec![d]);
    }
    write_module(&module, out, cli.text).map_err(|d| vec![d])
}

/// `--time`: one line per stage, then the instruction counts.
fn print_timings(r: &Report, read: Duration) {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let t = &r.timings;
    say_err("enz-rs stage times:");
    for (name, d) in [
        ("read input", read),
        ("preprocess", t.preprocess),
        ("analyses", t.analyses),
        ("synthesis", t.synthesis),
        ("post-optimisation", t.post_optimisation),
        ("verify", t.verify),
    ] {
        say_err(&format!("  {name:<18} {:>9.2} ms", ms(d)));
    }
    say_err(&format!(
        "  instructions: {} before, {} after; {} call site(s), {} derivative(s)",
        r.instructions_before, r.instructions_after, r.call_sites, r.derivatives
    ));
}

/// Reads bitcode or textual IR, chosen by content (bitcode magic), not name.
pub(crate) fn read_module<'c>(context: &'c Context, path: &Path) -> Result<Module<'c>, Diagnostic> {
    let bytes = std::fs::read(path).map_err(|e| {
        Diagnostic::new(format!("cannot read input file `{}`: {e}", path.display()))
    })?;
    let is_bitcode =
        bytes.starts_with(b"BC\xC0\xDE") || bytes.starts_with(&[0xDE, 0xC0, 0x17, 0x0B]);
    let name = path.display().to_string();
    if is_bitcode {
        let buf = MemoryBuffer::create_from_memory_range_copy(&bytes, &name);
        Module::parse_bitcode_from_buffer(&buf, context).map_err(|e| {
            Diagnostic::new(format!(
                "`{name}` is not valid LLVM bitcode (corrupt or truncated): {}",
                e.to_string().trim()
            ))
        })
    } else if std::str::from_utf8(&bytes).is_err() || bytes.contains(&0) {
        Err(Diagnostic::new(format!(
            "`{name}` is neither LLVM bitcode (no bitcode magic number) nor textual LLVM IR (not text)"
        )))
    } else {
        let mut text = bytes;
        text.push(0);
        let buf = MemoryBuffer::create_from_memory_range_copy(&text[..text.len() - 1], &name);
        context.create_module_from_ir(buf).map_err(|e| {
            let msg = e.to_string();
            let first = msg.lines().next().unwrap_or("").trim();
            Diagnostic::new(format!(
                "`{name}` is neither LLVM bitcode nor valid textual LLVM IR: {first}"
            ))
        })
    }
}

/// Writes the module to a temporary file beside `out`, then renames it.
fn write_module(module: &Module, out: &Path, text: bool) -> Result<(), Diagnostic> {
    let fail = |what: &str, e: &dyn std::fmt::Display| {
        Diagnostic::new(format!(
            "cannot write output file `{}`: {what}: {e}",
            out.display()
        ))
    };
    // `-o -`: standard output, the whole module at once.
    if out == Path::new("-") {
        use std::io::Write;
        let bytes = if text {
            module.print_to_string().to_bytes().to_vec()
        } else {
            module.write_bitcode_to_memory().as_slice().to_vec()
        };
        let mut stdout = std::io::stdout().lock();
        return stdout
            .write_all(&bytes)
            .and_then(|()| stdout.flush())
            .map_err(|e| fail("cannot write to standard output", &e));
    }
    // A device or pipe (`-o /dev/null`, `-o /dev/stdout`) is written in
    // place: renaming a file over it would replace the device itself.
    if std::fs::metadata(out).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        let written = if text {
            std::fs::write(out, module.print_to_string().to_bytes())
                .map_err(|e| fail("cannot write IR", &e))
        } else {
            std::fs::write(out, module.write_bitcode_to_memory().as_slice())
                .map_err(|e| fail("cannot write bitcode", &e))
        };
        return written;
    }
    let dir = match out.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    // Mode 0666 less the umask, as compilers create their outputs (a
    // temporary file is 0600 by default).
    use std::os::unix::fs::PermissionsExt;
    let tmp = tempfile::Builder::new()
        .prefix(".enz-rs-")
        .suffix(".tmp")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(&dir)
        .map_err(|e| fail("cannot create a temporary file", &e))?;
    if text {
        module
            .print_to_file(tmp.path())
            .map_err(|e| fail("cannot print IR", &e.to_string()))?;
    } else if !module.write_bitcode_to_path(tmp.path()) {
        return Err(fail("cannot write bitcode", &"LLVM reported an error"));
    }
    tmp.persist(out)
        .map_err(|e| fail("cannot rename the temporary file", &e.error))?;
    Ok(())
}
