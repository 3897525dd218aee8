//! `enz-rs --explain`: the plan of each derivative, per loop, on
//! `tests/inputs/explain/explain.c` compiled with `-g` at -O0..-O3. Each
//! function there has one kind of loop, and the test checks what the
//! explanation says about it: the loop's source line, its strategy, the
//! bytes it caches per iteration (the sum of the cached values it lists),
//! how its caches are allocated; and that the explanation moves to stderr
//! when the module goes to stdout.

mod common;

use common::{find_tool, run};
use std::path::{Path, PathBuf};
use std::process::Command;

fn source() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/explain/explain.c")
}

/// `explain.c` compiled with `-g -O<level>` to bitcode in `dir`.
fn compile(dir: &Path, level: u8) -> PathBuf {
    compile_with(dir, level, &[])
}

/// `explain.c` compiled with `-g -O<level>` and `flags` to bitcode in `dir`.
fn compile_with(dir: &Path, level: u8, flags: &[&str]) -> PathBuf {
    let bc = dir.join(format!("explain{level}{}.bc", flags.concat()));
    let mut cc = Command::new(find_tool("ENZ_CLANG", "clang-22", "clang"));
    cc.arg(format!("-O{level}"))
        .args(["-g", "-c", "-emit-llvm"])
        .args(flags)
        .arg(source())
        .arg("-o")
        .arg(&bc);
    run(&mut cc, "compile explain.c").expect("compiles");
    bc
}

/// The explanation of the derivative of `function` (of kind `made`, the
/// start of its description) in `text`.
fn section<'t>(text: &'t str, function: &str, made: &str) -> &'t str {
    let head = format!("plan of the derivative of `{function}`: {made}");
    let start = text
        .find(&head)
        .unwrap_or_else(|| panic!("no `{head}` in:\n{text}"));
    let rest = &text[start + head.len()..];
    let end = rest.find("plan of the derivative").unwrap_or(rest.len());
    &text[start..start + head.len() + end]
}

/// The loops of a section at `explain.c:<line>`: each loop's line and the
/// lines of the values it caches.
fn loops_at(section: &str, line: u32) -> Vec<(String, Vec<String>)> {
    let at = format!("explain.c:{line}:");
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut current: Option<usize> = None;
    for l in section.lines() {
        let t = l.trim_start();
        let note = t.contains(": mixed (")
            || t.contains(" is not checkpointed: ")
            || t.contains(": its tangent accumulations are skipped");
        if t.starts_with("loop ") && !note {
            current = None;
            if t.contains(&at) {
                out.push((t.to_string(), Vec::new()));
                current = Some(out.len() - 1);
            }
        } else if t.starts_with("cached: ") {
            if let Some(k) = current {
                out[k].1.push(t.to_string());
            }
        } else if t.starts_with("outside loops") {
            current = None;
        }
    }
    assert!(!out.is_empty(), "no loop at {at} in:\n{section}");
    out
}

/// `N bytes cached per iteration` of a loop line.
fn bytes_per_iteration(line: &str) -> u64 {
    let i = line
        .find(" bytes cached per iteration")
        .expect("bytes per iteration");
    let digits: String = line[..i]
        .chars()
        .rev()
        .take_while(char::is_ascii_digit)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    digits.parse().expect("a number")
}

/// The bytes a `cached: ... (N bytes)` line lists.
fn cached_bytes(line: &str) -> u64 {
    let open = line.rfind(" bytes)").expect("bytes");
    let start = line[..open].rfind('(').expect("(") + 1;
    line[start..open].parse().expect("a number")
}

/// Checks the bytes per iteration of each loop against the values listed.
fn consistent(loops: &[(String, Vec<String>)]) {
    for (head, cached) in loops {
        let listed: u64 = cached.iter().map(|c| cached_bytes(c)).sum();
        assert_eq!(bytes_per_iteration(head), listed, "{head}\n{cached:?}");
    }
}

fn explain(bc: &Path, extra: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_enz-rs"))
        .arg(bc)
        .arg("--explain")
        .args(extra)
        .output()
        .expect("enz-rs runs")
}

#[test]
fn explain_names_each_loop_its_line_strategy_and_bytes() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for level in 0..=3u8 {
        let bc = compile(dir.path(), level);
        // Under the machine's budget (the default) the time loop of `heat`
        // is checkpointed and kept, chosen before it by a bound on its
        // caches; the triangular nest, whose inner trip count is not
        // known before it, is not checkpointed, and says why. Mode per
        // loop: auto, the default.
        let machine = explain(&bc, &["--cache-budget", "auto"]);
        let text = String::from_utf8_lossy(&machine.stdout).into_owned();
        assert!(
            machine.status.success()
                && text.contains(
                    "under the machine's cache budget (half its physical memory, read at run time), when a bound computed before it on what running it plainly caches, its trip count × (64 + "
                ),
            "-O{level}: heat's loop is checkpointed under --cache-budget auto:\n{text}{}",
            String::from_utf8_lossy(&machine.stderr)
        );
        // `relax` runs until it converges: the choice is made from one
        // iteration's bound. (At -O3 clang reshapes its loops so that the
        // inner trip counts are no longer known before the time loop,
        // which the explanation then says.)
        if level < 3 {
            let relax = section(
                &text,
                "relax",
                "augmented primal `augmented_relax.checkpoint0.driver`",
            );
            assert!(
                relax.contains("when a bound computed before it on what one iteration caches running plainly, 64 + ")
                    && relax.contains("is more than 64 KiB (its trip count is known only as it runs)"),
                "-O{level}:\n{relax}"
            );
        } else {
            let relax = section(&text, "relax", "gradient `diffe_relax`");
            assert!(
                relax.contains("is not checkpointed: "),
                "-O{level}:\n{relax}"
            );
        }
        let nest = section(&text, "nest", "gradient `diffe_nest`");
        assert!(
            nest.lines().any(|l| l.contains("explain.c:26:")
                && l.contains("is not checkpointed: no bound on its caches is known before it")),
            "-O{level}:\n{nest}"
        );
        let out = explain(&bc, &[]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "-O{level}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let ctx = |what: &str| format!("-O{level}: {what}\n{text}");

        // The elementwise chain is in mixed mode: its one partial (dy/dx)
        // is cached, 8 bytes per iteration, instead of exp(x[i]).
        let chain = section(&text, "chain", "gradient `diffe_chain`");
        let loops = loops_at(chain, 10);
        consistent(&loops);
        for (head, _) in &loops {
            assert!(
                head.contains(": cache, 8 bytes cached per iteration (1 value)"),
                "{}",
                ctx(head)
            );
            assert!(
                head.contains("caches allocated once before the loop nest"),
                "{}",
                ctx(head)
            );
            assert!(head.contains("recomputation factor 1"), "{}", ctx(head));
        }
        assert!(
            chain.lines().any(|l| l.contains("explain.c:10:")
                && l.contains(": mixed (forward mode inside the iteration): 1 partial cached per iteration (1 output by 1 input)")),
            "{}",
            ctx(chain)
        );

        // The sum of squares caches nothing and re-reads x[i].
        let sumsq = section(&text, "sumsq", "gradient `diffe_sumsq`");
        let loops = loops_at(sumsq, 17);
        consistent(&loops);
        assert!(
            loops
                .iter()
                .all(|(h, _)| h.contains(": recompute, 0 bytes cached per iteration (0 values)")),
            "{}",
            ctx(sumsq)
        );
        assert!(
            loops.iter().any(|(h, _)| !h.contains(", 0 re-read")),
            "{}",
            ctx(sumsq)
        );

        // The nest: the inner loop (in loop 0) caches the sin argument's
        // running value; the triangular bound is known before the nest.
        let nest = section(&text, "nest", "gradient `diffe_nest`");
        consistent(&loops_at(nest, 26));
        let inner = loops_at(nest, 27);
        consistent(&inner);
        for (head, cached) in &inner {
            assert!(head.contains("(in loop 0): cache, "), "{}", ctx(head));
            assert!(bytes_per_iteration(head) >= 8, "{}", ctx(head));
            assert!(
                head.contains("caches allocated once before the loop nest"),
                "{}",
                ctx(head)
            );
            assert!(
                cached.iter().all(|c| c.contains("explain.c:28:")),
                "{}",
                ctx(head)
            );
        }

        // A data-dependent trip count: caches grow.
        let until = section(&text, "until", "gradient `diffe_until`");
        let loops = loops_at(until, 36);
        consistent(&loops);
        for (head, cached) in &loops {
            assert!(head.contains(": cache, "), "{}", ctx(head));
            assert!(head.contains("caches grown by doubling"), "{}", ctx(head));
            assert!(cached.iter().any(|c| c.contains("@cos(")), "{}", ctx(head));
        }

        // Forward mode: `blend`'s loop only accumulates tangents from m's,
        // and runs without that work when they are zero (from -O1: at
        // -O0 the loop leaves from its header).
        let blend = section(&text, "blend", "forward derivative `fwddiffe_blend`");
        let skipped = blend.lines().any(|l| {
            l.contains("explain.c:102:")
                && l.contains(": its tangent accumulations are skipped in a call where the tangents it reads are all zero (checked before it: ")
        });
        assert_eq!(skipped, level > 0, "-O{level}:\n{blend}");

        // Forward mode caches nothing.
        let fwd = section(&text, "sumsq", "forward derivative `fwddiffe_sumsq`");
        for (head, _) in loops_at(fwd, 17) {
            assert!(
                head.contains(": forward, tangents alongside the primal; nothing cached"),
                "{}",
                ctx(&head)
            );
        }
    }
}

#[test]
fn explain_goes_to_stderr_when_the_module_goes_to_stdout() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let bc = compile(dir.path(), 1);
    let out = explain(&bc, &["-o", "-"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.starts_with(b"BC"), "stdout is not bitcode");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("plan of the derivative of `chain`"), "{err}");
    // With a file: the explanation on stdout, the module in the file.
    let file = dir.path().join("out.bc");
    let out = explain(&bc, &["-o", file.to_str().unwrap()]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("plan of the derivative of `until`"));
    assert!(std::fs::read(&file).unwrap().starts_with(b"BC"));
}

/// With `--cache-budget 1`: the time loop of `heat` is checkpointed (its
/// line, the budget, recomputation factor 1 or 2 as documented), its
/// body's derivative follows with the inner loops' caches, and the loop of
/// `scattered`, which writes through an index array, is said not to be,
/// and why; at -O0..-O3.
#[test]
fn explain_says_which_loops_are_checkpointed_and_why_not() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for level in 0..=3u8 {
        let bc = compile(dir.path(), level);
        let out = explain(&bc, &["--cache-budget", "1"]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "-O{level}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let ctx = |what: &str| format!("-O{level}: {what}\n{text}");
        let driver = section(
            &text,
            "heat",
            "augmented primal `augmented_heat.checkpoint0.driver` and reverse `reverse_heat.checkpoint0.driver`",
        );
        let (head, _) = &loops_at(driver, 57)[0];
        for words in [
            ": checkpoint, under a cache budget of 1 MiB",
            "the first k iterations are recorded",
            "recomputation factor 1 when the loop fits in one segment, else 2",
            "when a bound computed before it on what running it plainly caches",
            "·(trips of a loop inside)",
        ] {
            assert!(head.contains(words), "{}", ctx(head));
        }
        let body = section(&text, "heat.checkpoint0.body", "augmented primal");
        assert!(body.contains("bytes cached per iteration"), "{}", ctx(body));
        let scattered = section(&text, "scattered", "gradient `diffe_scattered`");
        assert!(
            scattered.lines().any(|l| l.contains("explain.c:66:")
                && l.contains("is not checkpointed: the bytes this store writes are not known before the loop")),
            "{}",
            ctx(scattered)
        );
    }
}

/// `--mode-per-loop reverse`: the elementwise chain is differentiated in
/// reverse mode, caching exp(x[i]) (log's derivative
/// needs 1 + exp(x[i]), recomputed from it), and no loop is said to be
/// mixed.
#[test]
fn mode_per_loop_reverse_keeps_reverse_mode() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for level in 0..=3u8 {
        let bc = compile(dir.path(), level);
        let out = explain(&bc, &["--mode-per-loop", "reverse"]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "-O{level}");
        assert!(!text.contains(": mixed ("), "-O{level}:\n{text}");
        let chain = section(&text, "chain", "gradient `diffe_chain`");
        for (head, cached) in &loops_at(chain, 10) {
            assert!(
                head.contains(": cache, 8 bytes cached per iteration (1 value)")
                    && cached[0].contains("@exp(")
                    && cached[0].contains("explain.c:11:"),
                "-O{level}: {head}\n{text}"
            );
        }
    }
}

/// GPU kernels: the explanation says how big each thread's cache array is
/// and, per loop, its bytes per iteration and what happens beyond the
/// array: `cuda_tests/loop.cu`'s loop (no memory written) is recomputed,
/// `hmlstm_chunk_reverse.cu`'s (writes `c`, reads what may alias it) cannot be
/// and traps, which is also a warning.
#[test]
fn explain_says_what_each_gpu_thread_keeps() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cases = [
        ("loop", "recomputed from saved states"),
        ("hmlstm_chunk_reverse", "cannot be recomputed (it "),
    ];
    for (kernel, says) in cases {
        let bc = compile_cuda(dir.path(), &root, kernel);
        let out = explain(
            &bc,
            &["--mode-per-loop", "reverse", "--gpu-thread-cache", "1024"],
        );
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "{kernel}:\n{text}");
        assert!(
            text.contains("a 1024-byte stack array (--gpu-thread-cache)"),
            "{kernel}:\n{text}"
        );
        let note = text
            .lines()
            .find(|l| l.contains("GPU: loop"))
            .unwrap_or_else(|| panic!("{kernel}: no GPU loop note in:\n{text}"));
        assert!(
            note.contains("bytes per iteration per thread"),
            "{kernel}: {note}"
        );
        assert!(note.contains(says), "{kernel}: {note}");
        // A loop that may trap is also a warning, with or without --explain.
        let stderr = String::from_utf8_lossy(&out.stderr);
        let warned = stderr.contains("warning:")
            && stderr.contains("cannot be recomputed")
            && stderr.contains("--gpu-thread-cache");
        assert_eq!(warned, kernel != "loop", "{kernel}: {stderr}");
    }
}

/// `cuda_tests/KERNEL.cu` compiled for NVPTX at -O2 to bitcode in `dir`.
fn compile_cuda(dir: &Path, root: &Path, kernel: &str) -> PathBuf {
    let bc = dir.join(format!("{kernel}.bc"));
    let mut cc = Command::new(find_tool("ENZ_CLANG", "clang-22", "clang"));
    cc.args(["-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_80"])
        .args(["-nocudainc", "-nocudalib", "-Xclang", "-target-feature"])
        .args(["-Xclang", "+ptx80", "-O2", "-emit-llvm", "-c", "-I"])
        .arg(root.join("runtime/include"))
        .arg(root.join(format!("cuda_tests/{kernel}.cu")))
        .arg("-o")
        .arg(&bc);
    run(&mut cc, "compile a CUDA kernel").expect("compiles");
    bc
}

/// A GPU kernel body without a loop (`hmlstm`: one element a thread, a
/// data-dependent branch) is differentiated in mixed mode by default (the
/// partials in the forward sweep's branches, one lane per address loaded),
/// and not with `--mode-per-loop reverse`.
#[test]
fn explain_says_a_gpu_body_is_differentiated_in_mixed_mode() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let bc = compile_cuda(dir.path(), &root, "hmlstm");
    let body = "the kernel's body (one element a thread, a loop of one iteration): mixed";
    let text = String::from_utf8_lossy(&explain(&bc, &[]).stdout).into_owned();
    assert!(text.contains(body), "{text}");
    // c_prev, ig and g are each loaded in two branches: one lane each.
    assert!(text.contains("(1 output by 4 inputs)"), "{text}");
    let out = explain(&bc, &["--mode-per-loop", "reverse"]);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success() && !text.contains(body), "{text}");
}

/// A value that does not change inside an inner loop is cached once per
/// iteration of the loop where it does change: in `trisq` the row loop
/// (line 121) caches nothing, and at -O0, where clang leaves the load of
/// `xc[col]` (line 122) inside it, the column loop (line 120) caches it,
/// 8 bytes per column instead of 8 bytes per (column, row); the point
/// loop's per-iteration figure, its inner loops included, has no term in
/// the column loop's trips times the row loop's.
#[test]
fn explain_caches_an_inner_invariant_once_per_outer_iteration() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for level in 0..=3u8 {
        let bc = compile(dir.path(), level);
        let out = explain(&bc, &[]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "-O{level}");
        let tri = section(&text, "trisq", "gradient `diffe_trisq`");
        for (head, cached) in &loops_at(tri, 121) {
            assert_eq!(
                bytes_per_iteration(head),
                0,
                "-O{level}: {head}\n{cached:?}"
            );
        }
        // Per point (an iteration of the loop at line 117), the nest
        // caches O(d) values: no term grows with the trips of the column
        // loop times those of the row loop (`8·n1·n3`).
        for l in tri.lines() {
            let Some(formula) = l
                .trim_start()
                .strip_prefix("per iteration of loop ")
                .and_then(|r| r.split_once(", its inner loops included: "))
                .map(|(_, f)| f.split(" bytes").next().unwrap_or(""))
            else {
                continue;
            };
            assert!(
                formula.split(" + ").all(|t| t.matches("·n").count() <= 1),
                "-O{level}: {l}"
            );
        }
        if level == 0 {
            assert!(
                tri.contains("per iteration of loop 0, its inner loops included: "),
                "-O0: no per-point figure:\n{tri}"
            );
            let columns = loops_at(tri, 120);
            let (head, cached) = &columns[0];
            assert!(
                cached.iter().any(|c| c.starts_with("cached: ")
                    && c.contains("= load double")
                    && c.contains("explain.c:122:")
                    && c.contains("(8 bytes)")),
                "-O0: the column loop does not cache xc[col]: {head}\n{cached:?}"
            );
        }
    }
}

/// A scratch array the point loop overwrites, read back at the index it
/// was written (trisq's `xc[col]`, line 122, written at line 118), is read
/// as the expression stored there, recomputed (`x[p * d + col] - mu[col]`,
/// memory nothing writes): the column loop caches no double, only the
/// row counter it carries, where without the forwarding it caches xc[col]
/// (as at -O0, whose loops are not rotated: the existing test above). With
/// ADBench's flags (no vectorising or unrolling), at -O1..-O3.
#[test]
fn explain_reads_a_scratch_array_back_as_the_expression_stored() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let flags = ["-fno-vectorize", "-fno-slp-vectorize", "-fno-unroll-loops"];
    for level in 1..=3u8 {
        let bc = compile_with(dir.path(), level, &flags);
        let out = explain(&bc, &[]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "-O{level}");
        let tri = section(&text, "trisq", "gradient `diffe_trisq`");
        let columns = loops_at(tri, 120);
        for (head, cached) in &columns {
            assert!(
                !cached.iter().any(|c| c.contains("= load double")),
                "-O{level}: the column loop caches xc[col]: {head}\n{cached:?}"
            );
            assert!(
                bytes_per_iteration(head) <= 4,
                "-O{level}: {head}\n{cached:?}"
            );
        }
    }
}

/// `--cache-budget` is never ignored silently: under an explicit budget, a
/// time loop that cannot be checkpointed (in `scattered`, line 66, the
/// bytes a store writes are not known before the loop) gets a
/// compile-time warning naming the function, the loop, its line and the
/// reason; under the machine's budget (the default) it does not. A time
/// loop whose result leaves through a pointer that may alias its state
/// (`heat_out`, line 138) is checkpointed: the gradient makes that final
/// store after its reverse sweep, so it cannot change what the segments
/// run again read (`analysis/deferred_stores.rs`).
#[test]
fn an_explicit_budget_a_loop_may_exceed_is_warned_of() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for level in 0..=3u8 {
        let bc = compile(dir.path(), level);
        let out = explain(&bc, &["--cache-budget", "256"]);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "-O{level}: {stderr}");
        let warning = stderr
            .lines()
            .find(|l| l.contains("`scattered`"))
            .unwrap_or_else(|| panic!("-O{level}: no warning about scattered in:\n{stderr}"));
        assert!(
            warning.starts_with(
                "warning: --cache-budget 256 (MB) may be exceeded: in `scattered`, loop "
            ) && warning.contains("explain.c:66:")
                && warning.contains("is not checkpointed: ")
                && warning.ends_with("its caches grow with its trip count"),
            "-O{level}: {warning}"
        );
        assert!(!stderr.contains("`heat_out`"), "-O{level}: {stderr}");
        assert!(
            stdout.contains("`augmented_heat_out.checkpoint0.driver`"),
            "-O{level}: heat_out's time loop is not checkpointed:\n{stdout}"
        );
        let default = explain(&bc, &[]);
        let stderr = String::from_utf8_lossy(&default.stderr).into_owned();
        assert!(!stderr.contains("may be exceeded"), "-O{level}: {stderr}");
    }
}

/// When a loop an explicit `--cache-budget` could not bound does pass it at
/// run time, the gradient writes one line to stderr naming the function,
/// the loop and why it was not checkpointed: once per process (the input
/// calls the gradient twice), not at all with `ENZ_RS_QUIET_BUDGET` set,
/// nor when there is no budget.
#[test]
fn a_gradient_past_an_explicit_budget_says_so_once() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/budget_report.c");
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../runtime/include");
    let clang = find_tool("ENZ_CLANG", "clang-22", "clang");
    let bc = dir.path().join("in.bc");
    let mut cc = Command::new(&clang);
    cc.args(["-O2", "-c", "-emit-llvm", "-I"])
        .arg(&include)
        .arg(&src)
        .arg("-o")
        .arg(&bc);
    run(&mut cc, "compile budget_report.c").expect("compiles");
    let build = |budget: &str| build_with_budget(dir.path(), &clang, &bc, "", budget);
    let line = "enz-rs: one call of the gradient of `scattered` cached more than --cache-budget 1 (MB): loop 0";
    let exe = build("1");
    let out = Command::new(&exe).output().expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        stderr.lines().filter(|l| l.starts_with(line)).count(),
        1,
        "not one line starting `{line}` in:\n{stderr}"
    );
    assert!(stderr.contains("is not checkpointed: "), "{stderr}");
    assert!(stderr.contains("ENZ_RS_QUIET_BUDGET"), "{stderr}");
    let quiet = Command::new(&exe)
        .env("ENZ_RS_QUIET_BUDGET", "1")
        .output()
        .expect("runs");
    assert!(quiet.status.success());
    assert!(
        quiet.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&quiet.stderr)
    );
    let off = Command::new(build("off")).output().expect("runs");
    assert!(off.status.success());
    assert!(
        off.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&off.stderr)
    );
}

/// A time loop whose reads a store after it may overwrite, the store not
/// the gradient's last (`tests/inputs/budget_overlap.c`: `*out = s`, then
/// a loop reading tmp): under `--cache-budget 1` it is versioned on a
/// run-time overlap check, which `--explain` and the compile-time warning
/// say (at -O0 and -O2). Run with a separate `out`, the checkpointed form
/// runs: nothing on stderr; with `out = &u[0]`, which the loop reads, the
/// plain loop runs and its caches pass the budget: one line saying the
/// check found an overlap. Both gradients equal the unbounded one's. The
/// same through a split pair (`heat_to`, the line written by its augmented
/// forward call).
#[test]
fn a_loop_versioned_on_an_overlap_check_says_which_ran() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/budget_overlap.c");
    let include = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../runtime/include");
    let clang = find_tool("ENZ_CLANG", "clang-22", "clang");
    for level in [0u8, 2] {
        let bc = dir.path().join(format!("in{level}.bc"));
        let mut cc = Command::new(&clang);
        cc.arg(format!("-O{level}"))
            .args(["-g", "-c", "-emit-llvm", "-I"])
            .arg(&include)
            .arg(&src)
            .arg("-o")
            .arg(&bc);
        run(&mut cc, "compile budget_overlap.c").expect("compiles");
        let out = explain(&bc, &["--cache-budget", "1"]);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "-O{level}: {stderr}");
        let note = stdout
            .lines()
            .find(|l| l.contains("is versioned on a run-time overlap check of the bytes "))
            .unwrap_or_else(|| panic!("-O{level}: no versioned loop in:\n{stdout}"));
        assert!(
            note.trim_start().starts_with("loop 0 at ")
                && note.contains("budget_overlap.c:19:")
                && note.contains("written after it by `store double ")
                && note.ends_with("checkpointed when they are disjoint, else it runs plainly, its caches growing with its trip count"),
            "-O{level}: {note}"
        );
        assert!(
            stdout.contains("`augmented_heat.checkpoint0.driver`"),
            "-O{level}: heat's time loop is not checkpointed:\n{stdout}"
        );
        let warning = stderr
            .lines()
            .find(|l| l.contains("`heat`"))
            .unwrap_or_else(|| panic!("-O{level}: no warning about heat in:\n{stderr}"));
        assert!(
            warning.starts_with("warning: --cache-budget 1 (MB) may be exceeded: in `heat`, loop 0 at ")
                && warning.contains(" is checkpointed unless a run-time check of the bytes ")
                && warning.ends_with("finds that they overlap; then it runs plainly and its caches grow with its trip count"),
            "-O{level}: {warning}"
        );
        let tag = level.to_string();
        let build = |budget: &str| build_with_budget(dir.path(), &clang, &bc, &tag, budget);
        let (bounded, unbounded) = (build("1"), build("off"));
        for (arg, overlaps, function) in [
            ("separate", false, "heat"),
            ("aliased", true, "heat"),
            ("split-separate", false, "heat_to"),
            ("split-aliased", true, "heat_to"),
        ] {
            let line = format!(
                "enz-rs: one call of the gradient of `{function}` cached more than --cache-budget 1 (MB): loop 0 at "
            );
            let got = Command::new(&bounded).arg(arg).output().expect("runs");
            let want = Command::new(&unbounded).arg(arg).output().expect("runs");
            let stderr = String::from_utf8_lossy(&got.stderr).into_owned();
            assert!(got.status.success() && want.status.success(), "{stderr}");
            assert!(want.stderr.is_empty());
            // du[1] and du[N/2], to 17 digits; the two forms sum the same
            // terms in the same order.
            let (g, w) = (
                String::from_utf8_lossy(&got.stdout).into_owned(),
                String::from_utf8_lossy(&want.stdout).into_owned(),
            );
            let values = |s: &str| -> Vec<f64> {
                s.split_whitespace()
                    .filter_map(|t| t.parse::<f64>().ok())
                    .collect()
            };
            let (gv, wv) = (values(&g), values(&w));
            assert_eq!(gv.len(), 2, "-O{level} {arg}: {g}");
            assert_eq!(wv.len(), 2, "-O{level} {arg}: {w}");
            for (a, b) in gv.iter().zip(&wv) {
                assert!(
                    a.is_finite() && *a != 0.0 && (a - b).abs() <= 1e-12 * (1.0 + b.abs()),
                    "-O{level} {arg}: {g} vs unbounded {w}"
                );
            }
            if overlaps {
                assert_eq!(
                    stderr.lines().filter(|l| l.starts_with(&line)).count(),
                    1,
                    "-O{level}: not one line starting `{line}` in:\n{stderr}"
                );
                assert!(
                    stderr.contains(" ran plainly: a run-time check of the bytes ")
                        && stderr.contains("found that they overlap"),
                    "-O{level}: {stderr}"
                );
            } else {
                assert!(stderr.is_empty(), "-O{level} {arg}: {stderr}");
            }
        }
    }
}

/// `bc` differentiated by enz-rs under `--cache-budget budget` and linked
/// by `clang` into an executable in `dir` (named after `tag` and `budget`).
fn build_with_budget(dir: &Path, clang: &Path, bc: &Path, tag: &str, budget: &str) -> PathBuf {
    let out = dir.join(format!("out{tag}-{budget}.bc"));
    let exe = dir.join(format!("exe{tag}-{budget}"));
    let status = Command::new(env!("CARGO_BIN_EXE_enz-rs"))
        .arg(bc)
        .args(["--cache-budget", budget, "-o"])
        .arg(&out)
        .output()
        .expect("enz-rs runs");
    assert!(status.status.success(), "{status:?}");
    let mut link = Command::new(clang);
    link.arg(&out).arg("-o").arg(&exe);
    run(&mut link, "link").expect("links");
    exe
}

/// An OpenMP chunk loop (`for (i = lb; i <= ub; i++)` from the bounds the
/// runtime wrote, an i64 variable compared as an i32) has a trip count
/// known before it: its caches are allocated once, not grown by
/// reallocation (which cost 27,000 page faults a call at 2^22 elements).
#[test]
fn explain_allocates_an_openmp_chunks_caches_once() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/explain/omp_chunk.c");
    for level in 1..=3u8 {
        let bc = dir.path().join(format!("omp{level}.bc"));
        let mut cc = Command::new(find_tool("ENZ_CLANG", "clang-22", "clang"));
        cc.arg(format!("-O{level}"))
            .args(["-fopenmp", "-c", "-emit-llvm"])
            .arg(&src)
            .arg("-o")
            .arg(&bc);
        run(&mut cc, "compile omp_chunk.c").expect("compiles");
        let out = explain(&bc, &[]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "-O{level}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let task = section(&text, "elementwise.omp_outlined", "augmented primal");
        let head = task
            .lines()
            .find(|l| l.trim_start().starts_with("loop 0:"))
            .unwrap_or_else(|| panic!("-O{level}: no loop\n{text}"));
        assert!(
            head.contains("caches allocated once before the loop nest"),
            "-O{level}: {head}\n{text}"
        );
    }
}

/// A loop repeating one computation (`eos_rep`, line 160) is not
/// differentiated as a loop: the explanation says its earlier iterations
/// run as primal code and names its line, and no loop of the plan is at
/// that line, while the element loop inside it that is left (line 163:
/// the one at line 161 is forwarded into it as a scratch array) is, caching
/// per element. At -O0 (no clean-up of the loop's scalars) it stays a loop.
#[test]
fn explain_says_a_repeated_computation_is_differentiated_once() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let flags = ["-fno-vectorize", "-fno-slp-vectorize", "-fno-unroll-loops"];
    for level in 1..=3u8 {
        let bc = compile_with(dir.path(), level, &flags);
        let out = explain(&bc, &[]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "-O{level}");
        let eos = section(&text, "eos_rep", "gradient `diffe_eos_rep`");
        assert!(
            eos.contains("explain.c:160:")
                && eos.contains("repeats one computation")
                && eos.contains("`__enz_repeat_eos_rep.0`"),
            "-O{level}: no note on the repeated loop:\n{eos}"
        );
        let at_rep = eos
            .lines()
            .filter(|l| l.trim_start().starts_with("loop ") && l.contains("explain.c:160:"))
            .count();
        assert_eq!(at_rep, 0, "-O{level}: the rep loop is still a loop:\n{eos}");
        for (head, cached) in loops_at(eos, 163) {
            assert!(
                bytes_per_iteration(&head) <= 24,
                "-O{level}: {head}\n{cached:?}"
            );
        }
    }
}

/// A product a derivative rule reads (`g = fma(x[i], 2, y[i])` in
/// `at_hand`, line 182) is recomputed rather than cached when its operands
/// are cached anyway, here because the recomputed difference `x[i] - y[i]`
/// that another rule reads needs them: the loop caches the loads only.
#[test]
fn explain_recomputes_what_cached_loads_give_anyway() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for level in 0..=3u8 {
        let bc = compile(dir.path(), level);
        let out = explain(&bc, &[]);
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(out.status.success(), "-O{level}");
        let sec = section(&text, "at_hand", "gradient `diffe_at_hand`");
        for (head, cached) in loops_at(sec, 182) {
            assert!(
                !cached.is_empty() && cached.iter().all(|c| c.contains("= load double")),
                "-O{level}: {head}\n{cached:?}"
            );
        }
    }
}
