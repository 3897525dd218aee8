//! The pass plugin (`libenz_plugin.so`, built next to this test binary as
//! a dev-dependency) through opt and lld; the clang route runs over every
//! fixture in `c_tests` (`::plugin` trials).
//!
//! - opt: `-passes=enz-rs` and `enz-rs<no-inline;O1>` on a fixture's IR,
//!   then the program runs and reports its checks; `enz-rs<explain>`
//!   reports each derivative's plan as a remark; an unknown parameter is
//!   an error (exit 1) naming it;
//! - full LTO with lld (`-Wl,--load-pass-plugin=`): a function defined in
//!   another translation unit is differentiated at link time;
//! - ThinLTO: each module alone, so the same program is refused with a
//!   note saying why and what to use;
//! - CMake: examples/cmake configures, builds with the plugin (one target
//!   with `-fplugin`, one across translation units with LTO) and runs.

mod common;

use common::{find_tool, run};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn plugin() -> PathBuf {
    let p = std::env::current_exe()
        .expect("the test binary")
        .parent()
        .expect("its directory")
        .join("libenz_plugin.so");
    assert!(p.is_file(), "{} was not built", p.display());
    p
}

fn clang() -> PathBuf {
    find_tool("ENZ_CLANG", "clang-22", "clang")
}

fn includes(cmd: &mut Command) -> &mut Command {
    cmd.arg("-I")
        .arg(root().join("runtime/include"))
        .arg("-I")
        .arg(root().join("c_tests"))
}

/// Runs `exe`, which must print `N checks, 0 failed` with N > 0.
fn checks_pass(exe: &Path) {
    let out = run(&mut Command::new(exe), "run the program").expect("the program passes");
    assert!(
        out.stdout
            .lines()
            .any(|l| l.ends_with(" checks, 0 failed") && !l.starts_with("0 ")),
        "{}",
        out.stdout
    );
}

#[test]
fn opt_runs_the_pass_with_its_parameters() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let ll = dir.path().join("in.ll");
    let mut cc = Command::new(clang());
    includes(cc.args(["-O2", "-S", "-emit-llvm"]))
        .arg(root().join("c_tests/call_nested.c"))
        .arg("-o")
        .arg(&ll);
    run(&mut cc, "compile").expect("compiles");
    let opt = find_tool("ENZ_OPT", "opt-22", "opt");
    for passes in ["enz-rs", "enz-rs<no-inline;O1>"] {
        let bc = dir.path().join("out.bc");
        let mut o = Command::new(&opt);
        o.arg(format!("-load-pass-plugin={}", plugin().display()))
            .arg(format!("-passes={passes}"))
            .arg(&ll)
            .arg("-o")
            .arg(&bc);
        run(&mut o, "run opt with the plugin").expect("opt succeeds");
        let exe = dir.path().join("exe");
        let mut link = Command::new(clang());
        link.arg(&bc).arg("-lm").arg("-o").arg(&exe);
        run(&mut link, "link").expect("links");
        checks_pass(&exe);
    }
    // `explain`: the plan of each derivative as a remark.
    let mut o = Command::new(&opt);
    o.arg(format!("-load-pass-plugin={}", plugin().display()))
        .arg("-passes=enz-rs<explain>")
        .arg(&ll)
        .arg("-o")
        .arg(dir.path().join("explained.bc"));
    let out = run(&mut o, "run opt with explain").expect("opt succeeds");
    assert!(
        out.stderr
            .contains("remark: enz-rs: plan of the derivative of `")
            && out.stderr.contains("gradient `diffe_call_nested_h`"),
        "{}",
        out.stderr
    );
    let out = Command::new(&opt)
        .arg(format!("-load-pass-plugin={}", plugin().display()))
        .arg("-passes=enz-rs<fast>")
        .arg(&ll)
        .arg("-o")
        .arg(dir.path().join("bad.bc"))
        .output()
        .expect("opt runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("unknown pass parameter `fast`"), "{err}");
}

fn lto(kind: &str, dir: &Path) -> std::process::Output {
    let exe = dir.join(format!("prog_{kind}"));
    let mut cc = Command::new(clang());
    includes(
        cc.arg("-O2")
            .arg(format!("-flto={kind}"))
            .arg("-fuse-ld=lld")
            .arg(format!("-Wl,--load-pass-plugin={}", plugin().display())),
    )
    .arg(root().join("crates/enz-rs/tests/inputs/lto/main.c"))
    .arg(root().join("crates/enz-rs/tests/inputs/lto/other.c"))
    .arg("-lm")
    .arg("-o")
    .arg(&exe);
    cc.output().expect("clang runs")
}

#[test]
fn full_lto_differentiates_across_translation_units() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = lto("full", dir.path());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    checks_pass(&dir.path().join("prog_full"));
}

#[test]
fn thin_lto_says_why_it_cannot() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = lto("thin", dir.path());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("external function with no body"), "{err}");
    assert!(
        err.contains("-flto=thin") && err.contains("full LTO"),
        "{err}"
    );
}

/// examples/cmake, as its README says to build it: configured with clang
/// and the plugin, built, and both programs run and pass their checks.
#[test]
fn cmake_example_configures_builds_and_runs() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let build = dir.path().join("build");
    let clangxx = find_tool("ENZ_CLANGXX", "clang++-22", "clang++");
    let mut configure = Command::new("cmake");
    configure
        .arg("-S")
        .arg(root().join("examples/cmake"))
        .arg("-B")
        .arg(&build)
        .arg(format!("-DCMAKE_C_COMPILER={}", clang().display()))
        .arg(format!("-DCMAKE_CXX_COMPILER={}", clangxx.display()))
        .arg(format!("-DENZ_PLUGIN={}", plugin().display()));
    run(&mut configure, "configure examples/cmake").expect("cmake configures");
    let mut make = Command::new("cmake");
    make.arg("--build").arg(&build).args(["-j", "2"]);
    run(&mut make, "build examples/cmake").expect("cmake builds");
    checks_pass(&build.join("spring"));
    checks_pass(&build.join("fit"));
}

/// `-fplugin` alone runs the pass (registered through clang's pass-builder
/// callbacks), `-fpass-plugin` alone too (given `-I` for the headers), and
/// both together differentiate once.
#[test]
fn clang_flags_alone_and_together() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let p = plugin().display().to_string();
    let routes: [(&str, Vec<String>); 3] = [
        ("fplugin", vec![format!("-fplugin={p}")]),
        (
            "fpass_plugin",
            vec![
                format!("-fpass-plugin={p}"),
                "-I".into(),
                root().join("runtime/include").display().to_string(),
            ],
        ),
        (
            "both",
            vec![format!("-fplugin={p}"), format!("-fpass-plugin={p}")],
        ),
    ];
    for (name, flags) in routes {
        let exe = dir.path().join(name);
        let mut cc = Command::new(clang());
        cc.arg("-O2")
            .args(&flags)
            .arg("-I")
            .arg(root().join("c_tests"))
            .arg(root().join("c_tests/call_nested.c"))
            .arg("-lm")
            .arg("-o")
            .arg(&exe);
        run(&mut cc, "compile with the plugin").expect("compiles");
        checks_pass(&exe);
        let mut passes = Command::new(clang());
        passes
            .args(["-O2", "-c", "-o", "/dev/null"])
            .args(&flags)
            .arg("-I")
            .arg(root().join("c_tests"))
            .arg(root().join("c_tests/call_nested.c"))
            .args(["-mllvm", "-print-pipeline-passes"]);
        let out = run(&mut passes, "print the pipeline").expect("compiles");
        let pipeline = format!("{}{}", out.stdout, out.stderr);
        let runs = pipeline.matches("EnzPass").count();
        assert_eq!(runs, 1, "{name}: the pass is in the pipeline {runs} times");
    }
}

/// A diagnostic through clang's plugin stops the compilation cleanly: a
/// custom gradient with the wrong signature is reported (exit 1), and
/// clang does not crash on what enz-rs began for it (the adapter
/// `reverse_f`, left without a terminator, crashed instcombine at -O2 and
/// instruction selection at -O0).
#[test]
fn plugin_diagnostic_leaves_nothing_half_built() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let src = root().join("crates/enz-rs/tests/inputs/plugin/custom_rule_mismatch.c");
    for level in ["-O0", "-O2"] {
        let out = includes(Command::new(clang()).arg(level))
            .arg(format!("-fplugin={}", plugin().display()))
            .arg("-c")
            .arg(&src)
            .arg("-o")
            .arg(dir.path().join("out.o"))
            .output()
            .expect("clang runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{level}: {stderr}");
        assert!(
            stderr.contains("`rev_f` of `f` does not have the expected signature"),
            "{level}: {stderr}"
        );
        assert!(
            !stderr.contains("Stack dump") && !stderr.contains("PLEASE submit"),
            "{level}: clang crashed after the diagnostic:\n{stderr}"
        );
    }
}

/// A warning through clang's plugin is a warning: a GPU loop that may
/// trap (hmlstm_chunk in reverse mode, 326 bytes an iteration, writes
/// memory) compiles, with `warning: enz-rs: ...` naming
/// `--gpu-thread-cache`.
#[test]
fn plugin_warnings_are_clang_warnings() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let out = Command::new(clang())
        .args(["-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_80"])
        .args(["-nocudainc", "-nocudalib", "-Xclang", "-target-feature"])
        .args(["-Xclang", "+ptx80", "-O2", "-emit-llvm", "-c"])
        .arg(format!("-fplugin={}", plugin().display()))
        .arg(root().join("cuda_tests/hmlstm_chunk_reverse.cu"))
        .arg("-o")
        .arg(dir.path().join("k.bc"))
        .env("ENZ_RS_MODE_PER_LOOP", "reverse")
        .env_remove("ENZ_RS_GPU_THREAD_CACHE")
        .output()
        .expect("clang runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("warning: enz-rs:")
            && stderr.contains("cannot be recomputed")
            && stderr.contains("--gpu-thread-cache"),
        "{stderr}"
    );
}
