//! End-to-end tests over the self-checking C programs in `c_tests/`.
//!
//! Every `c_tests/*.c` is compiled at -O0, -O1, -O2 and -O3; each
//! (fixture, level) pair is its own trial, named like `rev_relu3::O2`.
//! Every `c_tests/*.cpp` is compiled with `clang++-22` at each level twice,
//! with exceptions (`cpp_virtual::O2`) and with `-fno-exceptions`
//! (`cpp_virtual::O2::no-exceptions`), and linked with the C++ runtime.
//! A trial, in its own temporary directory:
//!
//! 1. `clang-22 -O<n> [-g] -c -emit-llvm -I runtime/include -I c_tests X.c -o in.bc`
//!    (plus the flags of a `// enz-cflags: ...` line in the fixture, if any;
//!    `-g` at -O1 and -O3 on this route only, so that every fixture is
//!    differentiated with debug information at two levels and without it
//!    at the others and on the other routes);
//! 2. `enz-rs in.bc -o out.bc` (at -O2 twice: both outputs must be the
//!    same bytes);
//! 3. `clang-22 -c out.bc -o out.o`, which verifies its IR input as
//!    `opt -passes=verify` does (the harness checks once per run that the
//!    compiler rejects a module that does not verify, and otherwise runs
//!    `opt -passes=verify -disable-output out.bc` as well); debug
//!    information that does not verify, which both drop with a warning,
//!    fails the trial;
//! 4. `llvm-nm out.bc` must list no `__enzyme_*` or
//!    `enzyme_*` symbol, undefined (an entry point, a marker) or defined
//!    (a registration global);
//! 5. `clang-22 out.o -lm -o exe` (plus the libraries of a
//!    `// enz-libs: ...` line, on every route: `-lopenblas`);
//! 6. runs `exe`, which must exit 0 and print its `N checks, 0 failed` line.
//!
//! Every fixture at every level also goes through the plugin route
//! (`stem::O2::plugin`): `clang -O<n> -fplugin=P -c X.c -o X.o`, then
//! `clang X.o -lm -o exe` with the same flags, P = libenz_plugin.so (no
//! `-I` for enzyme.h), enz-rs running inside clang's pipeline;
//! the executable must hold no API symbol, run and report its checks.
//! Fixtures named `plugin_*` (the plugin's source attributes) take that
//! route only. A fixture with a line `// enz-plugin-levels: O2 ...` takes
//! the plugin route at those levels only (the Eigen fixtures, whose
//! every compile takes seconds: the other routes cover every level). The `call_*` fixtures also go through link-time
//! differentiation (`stem::O2::lto`): compiled with `-flto`, split into
//! two translation units (`main`, and the functions it differentiates) and
//! linked by lld with the plugin (see `run_lto_case`).
//!
//! Each link runs the linker command the driver gives for its flags,
//! without the driver (see `toolchain.rs`); a file's symbols are listed only
//! if its bytes hold `enzyme_` at all (see `no_api_symbol_in`). The C++
//! fixtures' trials run first, the Eigen ones first of all, so that the
//! run does not end waiting on one of them.
//!
//! Any failing step fails the trial with the command and its output.
//! Run one trial: `cargo test --test c_tests -- rev_relu3::O2`.
//! Set `ENZ_KEEP_TMP=1` to keep the directory of a failing trial, and
//! `ENZ_TEST_TIMES=FILE` to log how long each trial and step took.
//! Tools are found as `clang-22`, `opt-22`, `llvm-nm-22` on PATH, falling back
//! to `/usr/lib/llvm-22/bin`; `ENZ_CLANG`, `ENZ_OPT` and `ENZ_LLVM_NM`
//! override them.

mod common;
#[path = "c_tests/toolchain.rs"]
mod toolchain;

use common::{find_tool, fixture_directive, fixture_enz_args, plugin_env_of_args, run, show, tail};
use toolchain::Toolchain;

use libtest_mimic::{Arguments, Failed, Trial};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

const OPT_LEVELS: [&str; 4] = ["O0", "O1", "O2", "O3"];

#[derive(Clone)]
struct Tools {
    clang: PathBuf,
    clangxx: PathBuf,
    opt: PathBuf,
    llvm_nm: PathBuf,
    llvm_extract: PathBuf,
    enz_rs: PathBuf,
    /// libenz_plugin.so, built next to this test binary (a dev-dependency).
    plugin: PathBuf,
    include_dirs: Vec<PathBuf>,
    toolchain: Arc<Toolchain>,
}

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let c_dir = root.join("c_tests");
    let tools = Tools {
        clang: find_tool("ENZ_CLANG", "clang-22", "clang"),
        clangxx: find_tool("ENZ_CLANGXX", "clang++-22", "clang++"),
        opt: find_tool("ENZ_OPT", "opt-22", "opt"),
        llvm_nm: find_tool("ENZ_LLVM_NM", "llvm-nm-22", "llvm-nm"),
        llvm_extract: find_tool("ENZ_LLVM_EXTRACT", "llvm-extract-22", "llvm-extract"),
        enz_rs: PathBuf::from(env!("CARGO_BIN_EXE_enz-rs")),
        plugin: std::env::current_exe()
            .ok()
            .and_then(|e| e.parent().map(|d| d.join("libenz_plugin.so")))
            .unwrap_or_default(),
        include_dirs: vec![root.join("runtime/include"), c_dir.clone()],
        toolchain: Arc::new(Toolchain::new().unwrap_or_else(|e| panic!("{e}"))),
    };

    let mut fixtures: Vec<PathBuf> = std::fs::read_dir(&c_dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", c_dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|ext| ext == "c" || ext == "cpp"))
        .collect();
    fixtures.sort();
    // An empty suite would pass vacuously.
    assert!(
        !fixtures.is_empty(),
        "no fixtures found in {}",
        c_dir.display()
    );

    let mut trials = Vec::new();
    for fixture in &fixtures {
        let stem = fixture.file_stem().unwrap().to_string_lossy().into_owned();
        let cpp = fixture.extension().is_some_and(|e| e == "cpp");
        let source = std::fs::read_to_string(fixture).unwrap_or_default();
        // Fixtures written for the plugin (its source attributes) take
        // that route only.
        let plugin_only = stem.starts_with("plugin_");
        let plugin_levels = fixture_directive(&source, "enz-plugin-levels");
        let weight = weight_of(&source, cpp);
        let mut add = |name: String, body: Box<dyn FnOnce() -> Result<(), Failed> + Send>| {
            trials.push((weight, timed(name, body)));
        };
        for level in OPT_LEVELS {
            // The plugin route: enz-rs running inside clang's pipeline
            // (`-fplugin`).
            if plugin_levels.is_empty() || plugin_levels.iter().any(|l| l == level) {
                let (t, f) = (tools.clone(), fixture.clone());
                add(
                    format!("{stem}::{level}::plugin"),
                    Box::new(move || run_plugin_case(&t, &f, level)),
                );
            }
            if plugin_only {
                continue;
            }
            let (t, f) = (tools.clone(), fixture.clone());
            let debug: &[&str] = if matches!(level, "O1" | "O3") {
                &["-g"]
            } else {
                &[]
            };
            add(
                format!("{stem}::{level}"),
                Box::new(move || run_case(&t, &f, level, debug, &[])),
            );
            if cpp {
                let (t, f) = (tools.clone(), fixture.clone());
                add(
                    format!("{stem}::{level}::no-exceptions"),
                    Box::new(move || run_case(&t, &f, level, &["-fno-exceptions"], &[])),
                );
            }
            // Calls are also differentiated without inlining, so that every
            // callee goes through its own augmented primal and reverse (or
            // forward) function.
            if stem.starts_with("call_") || stem.starts_with("fwd_call") {
                let (t, f) = (tools.clone(), fixture.clone());
                add(
                    format!("{stem}::{level}::no-inline"),
                    Box::new(move || run_case(&t, &f, level, &[], &["--no-inline"])),
                );
            }
            // Link-time differentiation across translation units.
            if stem.starts_with("call_") {
                let (t, f) = (tools.clone(), fixture.clone());
                add(
                    format!("{stem}::{level}::lto"),
                    Box::new(move || run_lto_case(&t, &f, level)),
                );
            }
        }
    }
    // Heaviest first (the sort is stable): the threads take trials in
    // order, and a long trial taken last would run alone.
    trials.sort_by_key(|(weight, _)| std::cmp::Reverse(*weight));
    let trials = trials.into_iter().map(|(_, t)| t).collect();
    let conclusion = libtest_mimic::run(&args, trials);
    // Removes the toolchain's temporary directory (exit runs no destructors).
    drop(tools);
    conclusion.exit();
}

/// How heavy a fixture's trials are, roughly: the Eigen fixtures' compiles
/// take seconds, other C++ fixtures' a few tenths, C fixtures' less.
fn weight_of(source: &str, cpp: bool) -> u8 {
    match (source.contains("<Eigen/"), cpp) {
        (true, _) => 2,
        (false, true) => 1,
        (false, false) => 0,
    }
}

/// A trial that names itself to the step log (`ENZ_TEST_TIMES`) and logs
/// its own time as the step `trial`.
fn timed(name: String, body: Box<dyn FnOnce() -> Result<(), Failed> + Send>) -> Trial {
    let label = name.clone();
    Trial::test(name, move || {
        common::set_trial(&label);
        let started = std::time::Instant::now();
        let outcome = body();
        common::log_time("trial", started.elapsed());
        outcome
    })
}

/// Libraries to link from `// enz-libs: ...` lines of a fixture (after
/// the program, on every route; `-lopenblas` for the BLAS fixtures).
fn fixture_libs(source: &str) -> Vec<String> {
    fixture_directive(source, "enz-libs")
}

/// Extra compiler flags from `// enz-cflags: ...` lines of a fixture.
fn fixture_cflags(source: &str) -> Vec<String> {
    fixture_directive(source, "enz-cflags")
}

fn run_case(
    tools: &Tools,
    fixture: &Path,
    level: &str,
    cflags: &[&str],
    enz_args: &[&str],
) -> Result<(), Failed> {
    in_temp_dir(fixture, |source, dir| {
        run_steps(tools, fixture, source, level, cflags, enz_args, dir)
    })
}

/// Runs `steps` on the fixture's source in a fresh temporary directory,
/// kept on failure when `ENZ_KEEP_TMP` is set.
fn in_temp_dir(
    fixture: &Path,
    steps: impl FnOnce(&str, &Path) -> Result<(), String>,
) -> Result<(), Failed> {
    let source = std::fs::read_to_string(fixture)
        .map_err(|e| format!("cannot read {}: {e}", fixture.display()))?;
    let dir = tempfile::Builder::new()
        .prefix("enz-c-test-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    match steps(&source, dir.path()) {
        Ok(()) => Ok(()),
        Err(msg) if std::env::var_os("ENZ_KEEP_TMP").is_some() => {
            let kept = dir.keep();
            Err(format!("{msg}\n(files kept in {})", kept.display()).into())
        }
        Err(msg) => Err(msg.into()),
    }
}

fn run_steps(
    tools: &Tools,
    fixture: &Path,
    source: &str,
    level: &str,
    cflags: &[&str],
    enz_args: &[&str],
    dir: &Path,
) -> Result<(), String> {
    let cpp = fixture.extension().is_some_and(|e| e == "cpp");
    let compiler = if cpp { &tools.clangxx } else { &tools.clang };
    let in_bc = dir.join("in.bc");
    let out_bc = dir.join("out.bc");
    let exe = dir.join("exe");

    // 1. C -> bitcode
    let mut cc = Command::new(compiler);
    cc.arg(format!("-{level}")).args(["-c", "-emit-llvm"]);
    cc.args(fixture_cflags(source)).args(cflags);
    for inc in &tools.include_dirs {
        cc.arg("-I").arg(inc);
    }
    cc.arg(fixture).arg("-o").arg(&in_bc);
    run(&mut cc, "compile the fixture")?;

    // 2. differentiate
    let fixture_args = fixture_enz_args(source);
    let mut enz = Command::new(&tools.enz_rs);
    enz.arg(&in_bc)
        .arg("-o")
        .arg(&out_bc)
        .args(&fixture_args)
        .args(enz_args);
    run(&mut enz, "run enz-rs")?;
    if !out_bc.is_file() {
        return Err(format!(
            "enz-rs exited 0 but wrote no {}\ncommand: {}",
            out_bc.display(),
            show(&enz)
        ));
    }

    // 2b. at -O2, a second run must give the same bytes (deterministic
    // output: no hash order may leak into the module)
    if level == "O2" && enz_args.is_empty() {
        let again = dir.join("again.bc");
        let mut enz2 = Command::new(&tools.enz_rs);
        enz2.arg(&in_bc).arg("-o").arg(&again).args(&fixture_args);
        run(&mut enz2, "run enz-rs a second time")?;
        let (a, b) = (std::fs::read(&out_bc), std::fs::read(&again));
        if a.is_err() || a.ok() != b.ok() {
            return Err(format!(
                "two runs of enz-rs on the same input gave different outputs\ncommand: {}",
                show(&enz)
            ));
        }
    }

    // 3. compile the output: the compiler verifies its IR input (if it
    // does not, opt does)
    if !tools.toolchain.verifies_ir(compiler) {
        let mut verify = Command::new(&tools.opt);
        verify
            .args(["-passes=verify", "-disable-output"])
            .arg(&out_bc);
        run(&mut verify, "verify the output of enz-rs")?;
    }
    let out_o = dir.join("out.o");
    let mut codegen = Command::new(compiler);
    codegen
        .arg("-c")
        .arg(&out_bc)
        .args(fixture_cflags(source))
        .args(cflags)
        .arg("-o")
        .arg(&out_o);
    let compiled = run(&mut codegen, "verify and compile the output of enz-rs")?;
    // Debug information that does not verify is dropped with a warning
    // (by opt as well): a module enz-rs wrote must not need that.
    if compiled.stderr.contains("ignoring invalid debug info") {
        return Err(format!(
            "the output of enz-rs has debug information that does not verify\n\
             command: {}\n--- stderr ---\n{}",
            show(&codegen),
            tail(&compiled.stderr)
        ));
    }

    // 4. nothing of the API may be left: no __enzyme_* / enzyme_* symbol,
    // undefined (an entry point, a marker) or defined (a registration)
    no_api_symbol_in(tools, &out_bc, "the output of enz-rs", &enz)?;

    // 5. link
    let mut link_args = fixture_cflags(source);
    link_args.extend(cflags.iter().map(|s| s.to_string()));
    link_args.push("-lm".to_string());
    link_args.extend(fixture_libs(source));
    tools.toolchain.link(
        compiler,
        &out_o,
        &link_args,
        &exe,
        "link the output of enz-rs",
    )?;

    // 6. run the self-checking program
    run_program(&exe)
}

/// The plugin route: `clang -O<n> -fplugin=P -c X.c -o X.o`, linked with
/// the same flags and `-lm`; then the program must run and report its
/// checks; no API symbol may be left in the executable.
fn run_plugin_case(tools: &Tools, fixture: &Path, level: &str) -> Result<(), Failed> {
    in_temp_dir(fixture, |source, dir| {
        let cpp = fixture.extension().is_some_and(|e| e == "cpp");
        let compiler = if cpp { &tools.clangxx } else { &tools.clang };
        let (obj, exe) = (dir.join("x.o"), dir.join("exe"));
        let mut flags = vec![
            format!("-{level}"),
            format!("-fplugin={}", tools.plugin.display()),
        ];
        flags.extend(fixture_cflags(source));
        // No -I for enzyme.h: the plugin puts its headers on the path.
        for inc in tools
            .include_dirs
            .iter()
            .filter(|d| !d.ends_with("runtime/include"))
        {
            flags.push("-I".to_string());
            flags.push(inc.display().to_string());
        }
        let mut cc = Command::new(compiler);
        cc.args(&flags).arg("-c").arg(fixture).arg("-o").arg(&obj);
        plugin_env_of_args(&mut cc, &fixture_enz_args(source));
        run(&mut cc, "compile with the plugin")?;
        flags.push("-lm".to_string());
        flags.extend(fixture_libs(source));
        tools
            .toolchain
            .link(compiler, &obj, &flags, &exe, "link the program")?;
        no_api_symbol_in(tools, &exe, "the executable", &cc)?;
        run_program(&exe)
    })
}

/// The LTO route: the fixture compiled with `-flto` (and the plugin, which
/// keeps registrations alive for the link), split into two translation
/// units, `main` (with the `__enzyme_*` calls) and everything else (the
/// functions they differentiate: `llvm-extract`, which gives the internal
/// functions and globals the two share hidden external linkage), then
/// linked by lld with the plugin, which differentiates the merged module:
/// `clang -flto -fuse-ld=lld -Wl,--load-pass-plugin=P main.bc rest.bc`.
fn run_lto_case(tools: &Tools, fixture: &Path, level: &str) -> Result<(), Failed> {
    in_temp_dir(fixture, |source, dir| {
        let (whole, main_bc, rest_bc) = (
            dir.join("whole.bc"),
            dir.join("main.bc"),
            dir.join("rest.bc"),
        );
        let exe = dir.join("exe");
        let mut cc = Command::new(&tools.clang);
        cc.arg(format!("-{level}"))
            .args(["-flto", "-c"])
            .arg(format!("-fpass-plugin={}", tools.plugin.display()))
            .args(fixture_cflags(source));
        for inc in &tools.include_dirs {
            cc.arg("-I").arg(inc);
        }
        cc.arg(fixture).arg("-o").arg(&whole);
        run(&mut cc, "compile the fixture for LTO")?;
        let mut main_only = Command::new(&tools.llvm_extract);
        main_only
            .arg("--func=main")
            .arg(&whole)
            .arg("-o")
            .arg(&main_bc);
        run(&mut main_only, "extract main")?;
        let mut rest = Command::new(&tools.llvm_extract);
        rest.args(["--delete", "--func=main"])
            .arg(&whole)
            .arg("-o")
            .arg(&rest_bc);
        run(&mut rest, "extract everything but main")?;
        let mut link = Command::new(&tools.clang);
        link.arg(format!("-{level}"))
            .args(["-flto", "-fuse-ld=lld"])
            .arg(format!("-Wl,--load-pass-plugin={}", tools.plugin.display()))
            .arg(&main_bc)
            .arg(&rest_bc)
            .arg("-lm")
            .args(fixture_libs(source))
            .arg("-o")
            .arg(&exe);
        run(&mut link, "link with LTO, differentiating")?;
        no_api_symbol_in(tools, &exe, "the executable", &link)?;
        run_program(&exe)
    })
}

/// `file` (bitcode or an executable), which `built_by` made, must define
/// or reference no symbol of the API (`__enzyme_*`, `enzyme_*`).
/// Symbol names are stored verbatim (in bitcode's string table, in an ELF
/// file's string tables), so a file whose bytes nowhere hold `enzyme_`
/// has none: only the others are listed with llvm-nm.
fn no_api_symbol_in(
    tools: &Tools,
    file: &Path,
    subject: &str,
    built_by: &Command,
) -> Result<(), String> {
    let bytes = std::fs::read(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    if !bytes.windows(7).any(|w| w == b"enzyme_") {
        return Ok(());
    }
    let mut nm = Command::new(&tools.llvm_nm);
    nm.arg(file);
    let listing = run(&mut nm, "list symbols")?;
    match enz_fuzz::tools::leftover_api_symbol(&listing.stdout) {
        Some(left) => Err(format!(
            "{subject} still has the API symbol {left}\ncommand: {}\nlisted by: {}",
            show(built_by),
            show(&nm)
        )),
        None => Ok(()),
    }
}

/// Runs a self-checking program, which must exit 0 and print its
/// `N checks, 0 failed` line.
fn run_program(exe: &Path) -> Result<(), String> {
    let mut prog = Command::new(exe);
    let out = run(&mut prog, "run the differentiated program")?;
    // check_report() prints "N checks, M failed"; insist on it, so a fixture
    // that returns 0 without reporting cannot pass.
    let reported = out.stdout.lines().any(|l| {
        l.strip_suffix(" checks, 0 failed")
            .and_then(|n| n.trim().parse::<u32>().ok())
            .is_some_and(|n| n > 0)
    });
    if !reported {
        return Err(format!(
            "the program exited 0 but did not report 'N checks, 0 failed'\n\
             command: {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            show(&prog),
            tail(&out.stdout),
            tail(&out.stderr)
        ));
    }
    Ok(())
}
