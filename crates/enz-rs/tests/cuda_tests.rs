//! End-to-end tests over the CUDA kernels in `cuda_tests/`, without a GPU.
//!
//! Every `cuda_tests/NAME.cu` with a host driver `cuda_tests/NAME_host.c`
//! is compiled for NVPTX at -O1, -O2 and -O3; each (kernel, level) pair is a
//! trial named like `stencil::O2`. Kernels whose source mentions `NO_AD`
//! (a hand-written gradient kernel in place of `__enzyme_autodiff`) also
//! get `NAME::noad::O<n>` trials, which validate the test itself and the
//! emulator path independently of enz-rs's GPU support. A trial, in its own
//! temporary directory:
//!
//! 1. `clang-22 -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 -nocudainc
//!    -nocudalib -Xclang -target-feature -Xclang +ptx80 -O<n> -emit-llvm -c
//!    NAME.cu -o k.bc` (plus `-DNO_AD` for noad trials);
//! 2. `enz-rs k.bc -o k.grad.bc`, `opt -passes=verify`, no `__enzyme_*`
//!    symbol left (`llvm-nm`);
//! 3. `llc -march=nvptx64 -mcpu=sm_80 -mattr=+ptx80 k.grad.bc` (the
//!    gradient must lower to PTX, and call no external function a GPU does
//!    not provide: only `malloc`, `free`, `vprintf`, `__assertfail`); the
//!    PTX must have no `alloca` instruction (a dynamic `alloca` in the IR:
//!    NVIDIA's JIT miscompiled such per-thread caches on an H200); and for a
//!    kernel file with a line `// enz-no-extra-atomics`, the PTX of enz-rs's
//!    module must have no more atomic instructions (`atom.*`, `red.*`, whole
//!    module) than that of the hand-written gradient (`-DNO_AD`, compiled by
//!    clang and llc at the same level in the trial);
//! 4. `enz-rs k.grad.bc -O0 -o k.emu.ll -S --emulate-host`: the very NVPTX
//!    module that went to llc, retargeted to the host for the CPU SIMT
//!    emulator (runtime/emu/). With no `__enzyme_*` call left and -O0 this
//!    differentiates and optimises nothing: it is only the mechanical
//!    lowering of `enz_core::retarget_to_host` (NVVM intrinsics to
//!    `__emu_*` calls, address spaces dropped);
//! 5. `clang-22 -c k.emu.ll`, linked with `NAME_host.c` and
//!    `runtime/emu/emu.c` (`-lpthread -lm`), run: the driver compares the
//!    gradient kernel with finite differences of the primal kernel (both run
//!    on the emulator) and must print `N checks, 0 failed`;
//! 6. the same program built with ThreadSanitizer (`sanitize_thread` added
//!    to the kernels' functions, `-fsanitize=thread`): a data race in a
//!    kernel, e.g. a gradient accumulated into shared memory without an
//!    atomic, fails the trial even when the race happened not to corrupt
//!    the numbers. Where TSan does not work, every trial that would run it
//!    fails, saying why; `ENZ_CUDA_SKIP_TSAN=1` turns these runs off, with
//!    a note on stderr saying so.
//!
//! Every kernel at every level also goes through the pass plugin
//! (`stencil::O2::plugin`): step 1 with `-fplugin=P`
//! (P = libenz_plugin.so, no `-I` for the headers) differentiates inside
//! clang's device compile; steps 2-5 check that module as above; no TSan.
//!
//! A kernel file with a line `// enz-args: ARGS` gets ARGS on enz-rs's
//! command line (step 2); the plugin route gets `--cache-budget` and
//! `--mode-per-loop` through `ENZ_RS_CACHE_BUDGET` and
//! `ENZ_RS_MODE_PER_LOOP`.
//!
//! A kernel file with a line `// enz-xfail: REASON` has its enz-rs trials
//! (not its noad trials) marked ignored: known failures until enz-rs
//! supports what the kernel needs. Run them anyway with
//! `cargo test --test cuda_tests -- --include-ignored`.
//!
//! Run one trial: `cargo test --test cuda_tests -- stencil::O2`.
//! `ENZ_KEEP_TMP=1` keeps the directory of a failing trial. Tools are found
//! as `clang-22`, `opt-22`, `llvm-nm-22`, `llc-22` on PATH, falling back to
//! `/usr/lib/llvm-22/bin`; `ENZ_CLANG`, `ENZ_OPT`, `ENZ_LLVM_NM`, `ENZ_LLC`
//! override them.

mod common;

use common::{find_tool, fixture_enz_args, fixture_flag, plugin_env_of_args, run, show, tail};

use libtest_mimic::{Arguments, Failed, Trial};
use std::path::{Path, PathBuf};
use std::process::Command;

const OPT_LEVELS: [&str; 3] = ["O1", "O2", "O3"];
/// The device compile of every kernel (CUDA without the CUDA SDK).
const CUDA_FLAGS: [&str; 11] = [
    "-x",
    "cuda",
    "--cuda-device-only",
    "--cuda-gpu-arch=sm_80",
    "-nocudainc",
    "-nocudalib",
    "-Xclang",
    "-target-feature",
    "-Xclang",
    "+ptx80",
    "-emit-llvm",
];

#[derive(Clone)]
struct Tools {
    clang: PathBuf,
    opt: PathBuf,
    llvm_nm: PathBuf,
    llc: PathBuf,
    enz_rs: PathBuf,
    /// libenz_plugin.so, built next to this test binary (a dev-dependency).
    plugin: PathBuf,
    root: PathBuf,
    /// Whether the trials run their programs under ThreadSanitizer too.
    tsan: Tsan,
}

/// Step 6, ThreadSanitizer: run, turned off, or broken here (a failure).
#[derive(Clone)]
enum Tsan {
    On,
    /// Turned off by `ENZ_CUDA_SKIP_TSAN=1`.
    Off,
    /// TSan does not work here: why (fails every trial that needs it).
    Broken(String),
}

/// The environment variable that turns the ThreadSanitizer runs off.
const SKIP_TSAN: &str = "ENZ_CUDA_SKIP_TSAN";

#[derive(Clone)]
struct Case {
    kernel: PathBuf,
    host: PathBuf,
    level: &'static str,
    no_ad: bool,
    /// Differentiated inside clang's device compile by the pass plugin
    /// rather than by the CLI.
    plugin: bool,
    /// `--gpu-thread-cache` in place of the fixture's, and whether the
    /// program must then trap (a loop that cannot be recomputed and does
    /// not fit) instead of passing. No ThreadSanitizer run.
    thread_cache: Option<(&'static str, bool)>,
}

/// Trials of the per-thread cache at sizes of their own: `loop`'s
/// recomputation with an array so small that its stack of saved states
/// fills up (it then re-runs from the last state), and a loop that writes
/// memory (cannot be recomputed) in an array too small for one iteration.
const THREAD_CACHE_TRIALS: [(&str, &str, bool); 2] =
    [("loop", "384", false), ("hmlstm_chunk_reverse", "64", true)];

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root");
    let dir = root.join("cuda_tests");
    let mut tools = Tools {
        clang: find_tool("ENZ_CLANG", "clang-22", "clang"),
        opt: find_tool("ENZ_OPT", "opt-22", "opt"),
        llvm_nm: find_tool("ENZ_LLVM_NM", "llvm-nm-22", "llvm-nm"),
        llc: find_tool("ENZ_LLC", "llc-22", "llc"),
        enz_rs: PathBuf::from(env!("CARGO_BIN_EXE_enz-rs")),
        plugin: std::env::current_exe()
            .ok()
            .and_then(|e| e.parent().map(|d| d.join("libenz_plugin.so")))
            .expect("the test binary's directory"),
        root: root.clone(),
        // Set before any trial runs (not when listing them).
        tsan: Tsan::Broken("not probed".into()),
    };

    let mut kernels: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|ext| ext == "cu"))
        .collect();
    kernels.sort();
    // An empty suite would pass vacuously.
    assert!(!kernels.is_empty(), "no kernels found in {}", dir.display());

    // Probe TSan only if some trial will run (listing must stay cheap).
    if !args.list {
        tools.tsan = tsan_setting(&tools);
    }

    let mut trials = Vec::new();
    for kernel in &kernels {
        let stem = kernel.file_stem().unwrap().to_string_lossy().into_owned();
        let host = dir.join(format!("{stem}_host.c"));
        let source = std::fs::read_to_string(kernel)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", kernel.display()));
        assert!(
            host.is_file(),
            "{} has no host driver {}",
            kernel.display(),
            host.display()
        );
        let xfail = source
            .lines()
            .any(|l| l.trim().starts_with("// enz-xfail:"));
        let has_no_ad = source.contains("NO_AD");
        for level in OPT_LEVELS {
            for (no_ad, plugin) in [(false, false), (true, false), (false, true)] {
                if no_ad && !has_no_ad {
                    continue;
                }
                let name = match (no_ad, plugin) {
                    (true, _) => format!("{stem}::noad::{level}"),
                    (_, true) => format!("{stem}::{level}::plugin"),
                    _ => format!("{stem}::{level}"),
                };
                let case = Case {
                    kernel: kernel.clone(),
                    host: host.clone(),
                    level,
                    no_ad,
                    plugin,
                    thread_cache: None,
                };
                let tools = tools.clone();
                trials.push(
                    Trial::test(name, move || run_case(&tools, &case))
                        .with_ignored_flag(xfail && !no_ad),
                );
            }
        }
    }
    for (stem, bytes, traps) in THREAD_CACHE_TRIALS {
        let case = Case {
            kernel: dir.join(format!("{stem}.cu")),
            host: dir.join(format!("{stem}_host.c")),
            level: "O2",
            no_ad: false,
            plugin: false,
            thread_cache: Some((bytes, traps)),
        };
        let tools = tools.clone();
        trials.push(Trial::test(
            format!("{stem}::O2::thread_cache_{bytes}"),
            move || run_case(&tools, &case),
        ));
    }
    libtest_mimic::run(&args, trials).exit();
}

/// Whether step 6 runs: `ENZ_CUDA_SKIP_TSAN=1` turns it off (a note
/// says so); else TSan must work here, or every trial that needs it fails.
fn tsan_setting(tools: &Tools) -> Tsan {
    match std::env::var(SKIP_TSAN).as_deref() {
        Ok("1") => {
            eprintln!(
                "note: {SKIP_TSAN}=1: the ThreadSanitizer runs of cuda_tests are skipped \
                 (data races between emulated GPU threads go unchecked)"
            );
            return Tsan::Off;
        }
        Ok("0") | Err(std::env::VarError::NotPresent) => {}
        Ok(other) => panic!("{SKIP_TSAN}={other}: set it to 1 (skip the TSan runs) or 0"),
        Err(e) => panic!("{SKIP_TSAN}: {e}"),
    }
    if std::env::var_os("ENZ_CUDA_TSAN").is_some() {
        eprintln!(
            "note: ENZ_CUDA_TSAN is not read any more; the ThreadSanitizer runs happen \
             unless {SKIP_TSAN}=1"
        );
    }
    match probe_tsan(tools) {
        Ok(()) => Tsan::On,
        Err(why) => {
            eprintln!("error: ThreadSanitizer does not work here: the trials that run it fail");
            Tsan::Broken(why)
        }
    }
}

/// Builds and runs a two-thread program with `-fsanitize=thread`.
fn probe_tsan(tools: &Tools) -> Result<(), String> {
    let dir = tempfile::Builder::new()
        .prefix("enz-tsan-probe-")
        .tempdir()
        .map_err(|e| e.to_string())?;
    let src = dir.path().join("probe.c");
    let exe = dir.path().join("probe");
    std::fs::write(
        &src,
        "#include <pthread.h>\nstatic int x;\nstatic void *f(void *p) { (void)p; \
         __atomic_fetch_add(&x, 1, __ATOMIC_RELAXED); return 0; }\nint main(void) { \
         pthread_t t; pthread_create(&t, 0, f, 0); f(0); pthread_join(t, 0); \
         return x == 2 ? 0 : 1; }\n",
    )
    .map_err(|e| e.to_string())?;
    let mut cc = Command::new(&tools.clang);
    cc.args(["-fsanitize=thread", "-O1"])
        .arg(&src)
        .arg("-lpthread")
        .arg("-o")
        .arg(&exe);
    run(&mut cc, "build a ThreadSanitizer probe")?;
    run(&mut Command::new(&exe), "run a ThreadSanitizer probe")?;
    Ok(())
}

fn run_case(tools: &Tools, case: &Case) -> Result<(), Failed> {
    let dir = tempfile::Builder::new()
        .prefix("enz-cuda-test-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    match run_steps(tools, case, dir.path()) {
        Ok(()) => Ok(()),
        Err(msg) if std::env::var_os("ENZ_KEEP_TMP").is_some() => {
            let kept = dir.keep();
            Err(format!("{msg}\n(files kept in {})", kept.display()).into())
        }
        Err(msg) => Err(msg.into()),
    }
}

fn run_steps(tools: &Tools, case: &Case, dir: &Path) -> Result<(), String> {
    let include = tools.root.join("runtime/include");
    let k_bc = dir.join("k.bc");
    let grad_bc = dir.join("k.grad.bc");
    let ptx = dir.join("k.ptx");

    // 1. CUDA -> NVPTX bitcode; the plugin route differentiates here,
    // inside clang's pipeline, with no -I for the headers.
    let mut cc = Command::new(&tools.clang);
    cc.args(CUDA_FLAGS)
        .arg(format!("-{}", case.level))
        .arg("-c");
    if case.no_ad {
        cc.arg("-DNO_AD");
    }
    let source = std::fs::read_to_string(&case.kernel)
        .map_err(|e| format!("cannot read {}: {e}", case.kernel.display()))?;
    let mut enz_args = fixture_enz_args(&source);
    if let Some((bytes, _)) = case.thread_cache {
        if let Some(k) = enz_args.iter().position(|a| a == "--gpu-thread-cache") {
            enz_args.drain(k..(k + 2).min(enz_args.len()));
        }
        enz_args.extend(["--gpu-thread-cache".to_string(), bytes.to_string()]);
    }
    if case.plugin {
        plugin_env_of_args(&mut cc, &enz_args);
        cc.arg(format!("-fplugin={}", tools.plugin.display()));
        cc.arg(&case.kernel).arg("-o").arg(&grad_bc);
        run(
            &mut cc,
            "compile and differentiate the kernel with the plugin",
        )?;
    } else {
        cc.arg("-I").arg(&include);
        cc.arg(&case.kernel).arg("-o").arg(&k_bc);
        run(&mut cc, "compile the kernel for NVPTX")?;
    }

    // 2. differentiate (NVPTX output)
    if !case.plugin {
        let mut enz = Command::new(&tools.enz_rs);
        enz.arg(&k_bc).arg("-o").arg(&grad_bc).args(&enz_args);
        run(&mut enz, "run enz-rs")?;
    }
    let mut verify = Command::new(&tools.opt);
    verify
        .args(["-passes=verify", "-disable-output"])
        .arg(&grad_bc);
    run(&mut verify, "verify the output of enz-rs")?;
    let mut nm = Command::new(&tools.llvm_nm);
    nm.arg("--undefined-only").arg(&grad_bc);
    let listing = run(&mut nm, "list undefined symbols")?;
    let left: Vec<&str> = listing
        .stdout
        .lines()
        .filter(|l| l.contains("__enzyme_") || l.contains(" enzyme_"))
        .map(str::trim)
        .collect();
    if !left.is_empty() {
        return Err(format!(
            "the output of enz-rs still refers to {}\ncommand: {}",
            left.join(", "),
            show(&nm)
        ));
    }

    // 3. the gradient must lower to PTX
    let mut llc = Command::new(&tools.llc);
    llc.args(["-march=nvptx64", "-mcpu=sm_80", "-mattr=+ptx80"])
        .arg(&grad_bc)
        .arg("-o")
        .arg(&ptx);
    run(&mut llc, "lower the output of enz-rs to PTX")?;
    let ptx_text =
        std::fs::read_to_string(&ptx).map_err(|e| format!("cannot read {}: {e}", ptx.display()))?;
    let missing: Vec<String> = extern_functions(&ptx_text)
        .into_iter()
        .filter(|f| !GPU_PROVIDED.contains(&f.as_str()))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "the PTX of the output of enz-rs calls functions no GPU provides: {} \
             (a CUDA driver resolves only {} in PTX)\ncommand: {}",
            missing.join(", "),
            GPU_PROVIDED.join(", "),
            show(&llc)
        ));
    }
    // What the emulator cannot see: reported after its run, with its
    // verdict.
    let mut ptx_problems = Vec::new();
    let allocas = ptx_count_by_function(&ptx_text, |op| op.starts_with("alloca"));
    if !allocas.is_empty() {
        ptx_problems.push(format!(
            "the PTX of the output of enz-rs has `alloca` instructions (stack memory sized at \
             run time: a dynamic `alloca` in the IR, e.g. a per-thread loop cache; NVIDIA's JIT \
             has miscompiled them) in {}\ncommand: {}",
            by_function(&allocas),
            show(&llc)
        ));
    }
    if !case.no_ad && fixture_flag(&source, "enz-no-extra-atomics") {
        if let Err(e) = check_no_extra_atomics(tools, case, dir, &ptx_text) {
            ptx_problems.push(e);
        }
    }
    let emulated = run_on_emulator(tools, case, dir, &grad_bc);
    if ptx_problems.is_empty() {
        return emulated;
    }
    let verdict = match emulated {
        Ok(()) => "the emulator run passed".to_string(),
        Err(e) => format!("and the emulator run failed too:\n{e}"),
    };
    Err(format!("{}\n{verdict}", ptx_problems.join("\n")))
}

/// Steps 4-6: the module that went to llc, on the emulator, natively and
/// under ThreadSanitizer.
fn run_on_emulator(tools: &Tools, case: &Case, dir: &Path, grad_bc: &Path) -> Result<(), String> {
    let emu_dir = tools.root.join("runtime/emu");
    let emu_c = emu_dir.join("emu.c");
    let tests_dir = tools.root.join("cuda_tests");
    let emu_ll = dir.join("k.emu.ll");
    let emu_o = dir.join("k.emu.o");
    let exe = dir.join("exe");

    // 4. the module that went to llc, retargeted to the host for the
    // emulator: with no __enzyme call left, -O0 only lowers it
    let mut enz_host = Command::new(&tools.enz_rs);
    enz_host
        .arg(grad_bc)
        .args(["-O0", "-o"])
        .arg(&emu_ll)
        .args(["-S", "--emulate-host"]);
    run(
        &mut enz_host,
        "retarget the NVPTX module to the host (enz-rs -O0 --emulate-host)",
    )?;

    // 5. build and run on the emulator
    let mut obj = Command::new(&tools.clang);
    obj.arg("-c").arg(&emu_ll).arg("-o").arg(&emu_o);
    run(&mut obj, "compile the retargeted module")?;
    let mut link = Command::new(&tools.clang);
    link.arg("-O2")
        .arg("-I")
        .arg(&emu_dir)
        .arg("-I")
        .arg(&tests_dir)
        .arg(&case.host)
        .arg(&emu_c)
        .arg(&emu_o)
        .args(["-lpthread", "-lm", "-o"])
        .arg(&exe);
    run(&mut link, "link the host driver with the emulator")?;
    match case.thread_cache {
        Some((bytes, true)) => return expect_trap(&exe, bytes),
        Some((_, false)) => return run_checked(&mut Command::new(&exe), "run on the emulator"),
        None => run_checked(&mut Command::new(&exe), "run on the emulator")?,
    }

    // 6. again under ThreadSanitizer (the CLI route's modules; the plugin
    // route's differ only by where the same synthesis ran)
    if case.plugin {
        return Ok(());
    }
    if let Tsan::Broken(why) = &tools.tsan {
        return Err(format!(
            "cannot run on the emulator under ThreadSanitizer: it does not work here \
             (scripts/setup.sh installs its runtime, libclang-rt-22-dev; {SKIP_TSAN}=1 \
             turns these runs off):\n{why}"
        ));
    }
    if matches!(tools.tsan, Tsan::On) {
        let text = std::fs::read_to_string(&emu_ll)
            .map_err(|e| format!("cannot read {}: {e}", emu_ll.display()))?;
        let tsan_ll = dir.join("k.tsan.ll");
        let tsan_o = dir.join("k.tsan.o");
        let tsan_exe = dir.join("exe.tsan");
        std::fs::write(&tsan_ll, add_sanitize_thread(&text))
            .map_err(|e| format!("cannot write {}: {e}", tsan_ll.display()))?;
        let mut obj = Command::new(&tools.clang);
        obj.args(["-fsanitize=thread", "-c"])
            .arg(&tsan_ll)
            .arg("-o")
            .arg(&tsan_o);
        run(
            &mut obj,
            "compile the retargeted module with ThreadSanitizer",
        )?;
        let mut link = Command::new(&tools.clang);
        link.args(["-O1", "-g", "-fsanitize=thread"])
            .arg("-I")
            .arg(&emu_dir)
            .arg("-I")
            .arg(&tests_dir)
            .arg(&case.host)
            .arg(&emu_c)
            .arg(&tsan_o)
            .args(["-lpthread", "-lm", "-o"])
            .arg(&tsan_exe);
        run(&mut link, "link the ThreadSanitizer build")?;
        let mut prog = Command::new(&tsan_exe);
        prog.env("TSAN_OPTIONS", "halt_on_error=1:exitcode=66");
        run_checked(
            &mut prog,
            "run on the emulator under ThreadSanitizer (a data race between emulated GPU threads)",
        )?;
    }
    Ok(())
}

/// `// enz-no-extra-atomics`: the PTX of enz-rs's module (`ptx`) has no
/// more atomic instructions than the hand-written gradient's (`-DNO_AD`,
/// compiled by clang and llc at the trial's level). Whole modules are
/// compared: both hold the same primal kernel.
fn check_no_extra_atomics(tools: &Tools, case: &Case, dir: &Path, ptx: &str) -> Result<(), String> {
    let noad_bc = dir.join("noad.bc");
    let noad_ptx = dir.join("noad.ptx");
    let mut cc = Command::new(&tools.clang);
    cc.args(CUDA_FLAGS)
        .arg(format!("-{}", case.level))
        .args(["-c", "-DNO_AD", "-I"])
        .arg(tools.root.join("runtime/include"))
        .arg(&case.kernel)
        .arg("-o")
        .arg(&noad_bc);
    run(&mut cc, "compile the hand-written gradient (-DNO_AD)")?;
    let mut llc = Command::new(&tools.llc);
    llc.args(["-march=nvptx64", "-mcpu=sm_80", "-mattr=+ptx80"])
        .arg(&noad_bc)
        .arg("-o")
        .arg(&noad_ptx);
    run(&mut llc, "lower the hand-written gradient to PTX")?;
    let noad_text = std::fs::read_to_string(&noad_ptx)
        .map_err(|e| format!("cannot read {}: {e}", noad_ptx.display()))?;
    let ours = ptx_count_by_function(ptx, is_atomic_opcode);
    let theirs = ptx_count_by_function(&noad_text, is_atomic_opcode);
    let total = |c: &[(String, usize)]| c.iter().map(|(_, k)| k).sum::<usize>();
    if total(&ours) > total(&theirs) {
        let list = |c: &[(String, usize)]| {
            if c.is_empty() {
                String::new()
            } else {
                format!(": {}", by_function(c))
            }
        };
        return Err(format!(
            "the PTX of the output of enz-rs has {} atomic instructions (`atom.*`/`red.*`){}; \
             the hand-written gradient's (-DNO_AD) has {}{} (`// enz-no-extra-atomics`: an \
             adjoint only one thread updates needs no atomic)\ncommand: {}",
            total(&ours),
            list(&ours),
            total(&theirs),
            list(&theirs),
            show(&llc)
        ));
    }
    Ok(())
}

/// A PTX opcode that updates memory atomically: `atom.global.add.f32`,
/// `red.shared.add.u32`, ...
fn is_atomic_opcode(op: &str) -> bool {
    op.starts_with("atom.") || op.starts_with("red.")
}

/// The number of instructions whose opcode satisfies `pick`, by the PTX
/// function (`.entry` or `.func`) that holds them, in order; functions with
/// none are left out.
fn ptx_count_by_function(ptx: &str, pick: impl Fn(&str) -> bool) -> Vec<(String, usize)> {
    let mut counts: Vec<(String, usize)> = Vec::new();
    let mut current = String::from("(no function)");
    for line in ptx.lines() {
        let line = line.trim();
        if let Some(name) = ptx_function_name(line) {
            current = name;
            continue;
        }
        // An instruction, maybe under a guard: `@%p1 atom...`, `@!%p2 ...`.
        let mut words = line.split_whitespace();
        let mut op = words.next().unwrap_or("");
        if op.starts_with('@') {
            op = words.next().unwrap_or("");
        }
        if op.starts_with("//") || !pick(op) {
            continue;
        }
        match counts.iter_mut().find(|(f, _)| *f == current) {
            Some((_, k)) => *k += 1,
            None => counts.push((current.clone(), 1)),
        }
    }
    counts
}

/// `f (2), g (1)`.
fn by_function(counts: &[(String, usize)]) -> String {
    counts
        .iter()
        .map(|(f, k)| format!("{f} ({k})"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The function a PTX line declares or defines: `.visible .entry k(`,
/// `.func (.param .b64 func_retval0) f(`, `.extern .func g`, ...
fn ptx_function_name(line: &str) -> Option<String> {
    let mut rest = line;
    for prefix in [".visible", ".weak", ".extern"] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest).trim_start();
    }
    let mut rest = rest
        .strip_prefix(".entry")
        .or_else(|| rest.strip_prefix(".func"))?
        .trim_start();
    if rest.starts_with('(') {
        // the return value's parameter list
        rest = rest[rest.find(')')? + 1..].trim_start();
    }
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.'))
        .collect();
    (!name.is_empty()).then_some(name)
}

/// The external functions a CUDA driver resolves when it loads PTX.
const GPU_PROVIDED: [&str; 4] = ["malloc", "free", "vprintf", "__assertfail"];

/// The functions a PTX module declares `.extern .func` (called but not
/// defined in it), e.g. `.extern .func  (.param .b64 func_retval0) realloc`.
fn extern_functions(ptx: &str) -> Vec<String> {
    let mut names = Vec::new();
    for line in ptx.lines() {
        let line = line.trim();
        if !line.starts_with(".extern .func") {
            continue;
        }
        if let Some(name) = ptx_function_name(line) {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names
}

/// Adds `sanitize_thread` to every function definition of a module printed
/// by LLVM (`define ... {`), so that `-fsanitize=thread` instruments it.
fn add_sanitize_thread(ir: &str) -> String {
    let mut out = String::with_capacity(ir.len() + 1024);
    for line in ir.lines() {
        match line.strip_suffix(" {") {
            Some(head) if line.starts_with("define ") => {
                out.push_str(head);
                out.push_str(" sanitize_thread {");
            }
            _ => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

/// Runs a driver whose gradient kernel must trap (SIGILL from
/// `llvm.trap` on x86-64): its per-thread caches do not fit in `bytes`.
fn expect_trap(exe: &Path, bytes: &str) -> Result<(), String> {
    use std::os::unix::process::ExitStatusExt;
    let out = Command::new(exe)
        .env("EMU_BARRIER_TIMEOUT", "60")
        .output()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    match out.status.signal() {
        Some(4) => Ok(()),
        _ => Err(format!(
            "with --gpu-thread-cache {bytes}, a loop that cannot be recomputed does not fit: \
             the gradient kernel must trap (SIGILL), but the program ended with {}\n--- stdout ---\n{}",
            out.status,
            tail(&String::from_utf8_lossy(&out.stdout))
        )),
    }
}

/// Runs a driver; it must exit 0 and report `N checks, 0 failed`.
fn run_checked(cmd: &mut Command, what: &str) -> Result<(), String> {
    cmd.env("EMU_BARRIER_TIMEOUT", "60");
    let out = run(cmd, what)?;
    let reported = out.stdout.lines().any(|l| {
        l.strip_suffix(" checks, 0 failed")
            .and_then(|n| n.trim().parse::<u32>().ok())
            .is_some_and(|n| n > 0)
    });
    if !reported {
        return Err(format!(
            "cannot {what}: the program exited 0 but did not report 'N checks, 0 failed'\n\
             command: {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            show(cmd),
            tail(&out.stdout),
            tail(&out.stderr)
        ));
    }
    Ok(())
}
