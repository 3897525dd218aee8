//! Error handling of the enz-rs command line: bad inputs must give exit code
//! 1, a message on stderr that names the problem, and no output file. A
//! positive control (the same invocation on a valid input) makes sure the
//! "no output file" checks are not passing only because nothing is written.
//!
//! Inputs are hand-written `.ll` files in `tests/inputs/`, assembled with
//! `llvm-as-22` (or `/usr/lib/llvm-22/bin/llvm-as`) where bitcode is needed.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn inputs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs")
}

/// `versioned` on PATH, else `/usr/lib/llvm-22/bin/<plain>`. (A plain `opt`
/// on PATH may be an older LLVM.)
fn tool(versioned: &str, plain: &str) -> PathBuf {
    enz_fuzz::tools::llvm_tool(versioned, plain)
}

fn tmpdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("enz-cli-test-")
        .tempdir()
        .unwrap()
}

/// Assembles `tests/inputs/<name>` into `<dir>/<stem>.bc`.
fn assemble(name: &str, dir: &Path) -> PathBuf {
    let src = inputs().join(name);
    let bc = dir.join(Path::new(name).with_extension("bc").file_name().unwrap());
    let out = Command::new(tool("llvm-as-22", "llvm-as"))
        .arg(&src)
        .arg("-o")
        .arg(&bc)
        .output()
        .expect("cannot run llvm-as");
    assert!(
        out.status.success(),
        "llvm-as {} failed: {}",
        src.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    bc
}

fn enz_rs(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_enz-rs"))
        .args(args)
        .output()
        .expect("cannot run enz-rs")
}

/// Runs `enz-rs input -o out` and checks: exit code 1, no `out`, and stderr
/// containing, for each group of `mentions`, at least one of its strings
/// (case-insensitive).
fn expect_error(input: &Path, out: &Path, mentions: &[&[&str]]) {
    let res = enz_rs(&[input.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    let stderr = String::from_utf8_lossy(&res.stderr);
    let context = format!(
        "enz-rs {} -o {}\nexit: {}\n--- stdout ---\n{}\n--- stderr ---\n{}",
        input.display(),
        out.display(),
        res.status,
        String::from_utf8_lossy(&res.stdout),
        stderr
    );
    assert_eq!(
        res.status.code(),
        Some(1),
        "expected exit code 1\n{context}"
    );
    assert!(
        !out.exists(),
        "an output file was created on error\n{context}"
    );
    let lower = stderr.to_lowercase();
    for group in mentions {
        assert!(
            group.iter().any(|m| lower.contains(&m.to_lowercase())),
            "stderr mentions none of {group:?}\n{context}"
        );
    }
}

#[test]
fn missing_input_file() {
    let dir = tmpdir();
    let input = dir.path().join("does_not_exist.bc");
    let out = dir.path().join("out.bc");
    let shown = input.display().to_string();
    expect_error(&input, &out, &[&[shown.as_str()]]);
}

#[test]
fn garbage_input() {
    let dir = tmpdir();
    let input = dir.path().join("garbage.bc");
    // Deterministic pseudo-random bytes (xorshift), never valid bitcode.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let bytes: Vec<u8> = (0..4096)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    std::fs::write(&input, bytes).unwrap();
    let out = dir.path().join("out.bc");
    expect_error(&input, &out, &[&["bitcode", "parse", "read"]]);
}

#[test]
fn truncated_bitcode() {
    let dir = tmpdir();
    let full = assemble("square.ll", dir.path());
    let bytes = std::fs::read(&full).unwrap();
    let input = dir.path().join("truncated.bc");
    std::fs::write(&input, &bytes[..bytes.len() / 2]).unwrap();
    let out = dir.path().join("out.bc");
    expect_error(&input, &out, &[&["bitcode", "parse", "read"]]);
}

/// Byte-flipped bitcode on which LLVM's own reader crashes (segfault) or
/// asks for unbounded memory (`LLVM ERROR: out of memory`): enz-rs reads
/// untrusted input in a limited child process, so both are a diagnostic
/// and exit 1 within 10 s, with no output, never a crash of enz-rs itself.
#[test]
fn hostile_bitcode_is_diagnosed() {
    let dir = tmpdir();
    for (name, why) in [
        ("hostile_reader_segv.bc", "crashed"),
        ("hostile_reader_oom.bc", "out of memory"),
    ] {
        let out = dir.path().join(format!("{name}.out.bc"));
        let start = std::time::Instant::now();
        expect_error(&inputs().join(name), &out, &[&["cannot be read"], &[why]]);
        // The child's limits (about 2 GiB, 10 s for a small file) bound it.
        let took = start.elapsed();
        assert!(took.as_secs() < 10, "{name} took {took:?}");
    }
}

#[test]
fn too_few_arguments() {
    let dir = tmpdir();
    let input = assemble("too_few_args.ll", dir.path());
    let out = dir.path().join("out.bc");
    expect_error(&input, &out, &[&["f_needs_two"], &["argument"]]);
}

#[test]
fn undefined_function() {
    let dir = tmpdir();
    let input = assemble("undefined_fn.ll", dir.path());
    let out = dir.path().join("out.bc");
    expect_error(&input, &out, &[&["ext_no_body"]]);
}

/// The output file gets mode 0666 less the umask, as compilers' outputs
/// do (it is written to a temporary file, 0600 by default, then renamed).
#[test]
fn output_file_follows_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tmpdir();
    let input = assemble("square.ll", dir.path());
    for (umask, mode) in [("022", 0o644), ("077", 0o600), ("002", 0o664)] {
        let out = dir.path().join(format!("out{umask}.bc"));
        let res = Command::new("sh")
            .arg("-c")
            .arg(format!("umask {umask} && exec \"$0\" \"$1\" -o \"$2\""))
            .arg(env!("CARGO_BIN_EXE_enz-rs"))
            .arg(&input)
            .arg(&out)
            .output()
            .expect("sh runs");
        assert!(
            res.status.success(),
            "{}",
            String::from_utf8_lossy(&res.stderr)
        );
        let got = std::fs::metadata(&out)
            .expect("written")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(got, mode, "umask {umask}: mode {got:o}");
    }
}

/// Positive control: the invocation used above works on a valid input.
#[test]
fn valid_input_writes_verified_output() {
    let dir = tmpdir();
    let input = assemble("square.ll", dir.path());
    let out = dir.path().join("out.bc");
    let res = enz_rs(&[input.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    assert!(
        res.status.success(),
        "enz-rs failed on a valid input: {}\n{}",
        res.status,
        String::from_utf8_lossy(&res.stderr)
    );
    assert!(
        out.is_file(),
        "enz-rs exited 0 but wrote no {}",
        out.display()
    );
    let verify = Command::new(tool("opt-22", "opt"))
        .args(["-passes=verify", "-disable-output"])
        .arg(&out)
        .output()
        .expect("cannot run opt");
    assert!(
        verify.status.success(),
        "the output does not verify:\n{}",
        String::from_utf8_lossy(&verify.stderr)
    );
    let nm = Command::new(tool("llvm-nm-22", "llvm-nm"))
        .arg("--undefined-only")
        .arg(&out)
        .output()
        .expect("cannot run llvm-nm");
    let listing = String::from_utf8_lossy(&nm.stdout);
    assert!(
        nm.status.success(),
        "llvm-nm failed: {}",
        String::from_utf8_lossy(&nm.stderr)
    );
    assert!(
        !listing.contains("__enzyme_"),
        "__enzyme_ symbol left:\n{listing}"
    );
}

/// Positive control for text IO: `.ll` input, `-S` output.
#[test]
fn text_input_and_output() {
    let dir = tmpdir();
    let input = inputs().join("square.ll");
    let out = dir.path().join("out.ll");
    let res = enz_rs(&[
        input.as_os_str(),
        "-S".as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert!(
        res.status.success(),
        "enz-rs -S failed on a valid .ll input: {}\n{}",
        res.status,
        String::from_utf8_lossy(&res.stderr)
    );
    let text = std::fs::read_to_string(&out).expect("no readable text output");
    assert!(
        text.contains("define") && text.contains("@dsquare("),
        "unexpected output:\n{text}"
    );
    assert!(
        !text.contains("@__enzyme_autodiff("),
        "call left in output:\n{text}"
    );
}

/// `-o -` writes the module to standard output (text with `-S`, else
/// bitcode) and no file named `-`. Fails if stdout is empty, is not the
/// differentiated module, or a file `-` appears.
#[test]
fn dash_output_is_standard_output() {
    let dir = tmpdir();
    let input = inputs().join("square.ll");
    let res = Command::new(env!("CARGO_BIN_EXE_enz-rs"))
        .current_dir(dir.path())
        .args([
            input.as_os_str(),
            "-S".as_ref(),
            "-o".as_ref(),
            "-".as_ref(),
        ])
        .output()
        .expect("cannot run enz-rs");
    assert!(
        res.status.success(),
        "enz-rs -o - failed: {}",
        String::from_utf8_lossy(&res.stderr)
    );
    let text = String::from_utf8_lossy(&res.stdout);
    assert!(
        text.contains("@dsquare(") && !text.contains("@__enzyme_autodiff("),
        "stdout is not the differentiated module:\n{text}"
    );
    assert!(
        !dir.path().join("-").exists(),
        "a file named `-` was written"
    );
    let res = Command::new(env!("CARGO_BIN_EXE_enz-rs"))
        .current_dir(dir.path())
        .args([input.as_os_str(), "-o".as_ref(), "-".as_ref()])
        .output()
        .expect("cannot run enz-rs");
    assert!(res.status.success(), "enz-rs -o - (bitcode) failed");
    assert!(
        res.stdout.starts_with(b"BC\xc0\xde"),
        "stdout is not bitcode ({} bytes)",
        res.stdout.len()
    );
}

/// An output that is not a regular file (here a FIFO; in practice
/// `-o /dev/null`) is written in place, never replaced by a renamed
/// temporary file. Fails if the FIFO is gone or became a regular file.
#[test]
fn special_output_file_is_written_in_place() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tmpdir();
    let input = assemble("square.ll", dir.path());
    let fifo = dir.path().join("out.fifo");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("cannot run mkfifo");
    assert!(made.success(), "mkfifo failed");
    let reader_path = fifo.clone();
    let reader = std::thread::spawn(move || std::fs::read(reader_path).map(|b| b.len()));
    let res = enz_rs(&[
        input.as_os_str(),
        "-S".as_ref(),
        "-o".as_ref(),
        fifo.as_os_str(),
    ]);
    // Checked before joining: a replaced FIFO would leave the reader blocked.
    let meta = std::fs::symlink_metadata(&fifo).expect("the FIFO is gone");
    assert!(
        meta.file_type().is_fifo(),
        "the FIFO was replaced by a regular file"
    );
    assert!(
        res.status.success(),
        "enz-rs failed: {}",
        String::from_utf8_lossy(&res.stderr)
    );
    let read = reader
        .join()
        .expect("reader thread")
        .expect("cannot read the FIFO");
    assert!(read > 0, "nothing was written into the FIFO");
}

/// Bad call sites and declarations get a diagnostic that says what is
/// wrong, exit 1 and no output (they used to exit 0 with a wrong result, a
/// module that fails to link, or exit 2).
#[test]
fn bad_call_sites_are_diagnosed() {
    let dir = tmpdir();
    let cases: &[(&str, &[&[&str]])] = &[
        (
            "wrong_return_int.ll",
            &[&["declared to return i64"], &["double"]],
        ),
        ("wrong_return_ptr.ll", &[&["declared to return ptr"]]),
        (
            "shadow_not_pointer.ll",
            &[&["shadow of parameter 0"], &["sum2"]],
        ),
        (
            "batch_without_width.ll",
            &[&["__enzyme_batch"], &["enzyme_width, N"]],
        ),
        (
            "fixed_point_no_state.ll",
            &[&["__enzyme_fixed_point"], &["no state"], &["`solve`"]],
        ),
        (
            "fixed_point_step_not_function.ll",
            &[
                &["__enzyme_fixed_point"],
                &["function defined in the module"],
                &["`solve`"],
            ],
        ),
        (
            "fixed_point_set_marker.ll",
            &[
                &["__enzyme_set_fixed_point"],
                &["not supported"],
                &["`solve`"],
            ],
        ),
        (
            "checkpoint_for_no_scheme.ll",
            &[&["__enzyme_checkpoint_for"], &["no scheme"], &["`run`"]],
        ),
        (
            "checkpoint_while_void_step.ll",
            &[
                &["__enzyme_checkpoint_while"],
                &["must be `int step"],
                &["`run`"],
            ],
        ),
        (
            "checkpoint_for_arg_count.ll",
            &[
                &["__enzyme_checkpoint_for"],
                &["takes 2 argument(s) after its counter, the call passes 1"],
                &["`run`"],
            ],
        ),
        (
            "vector_reverse_recursive_call.ll",
            &[&["enzyme_width in reverse mode"], &["`pw`"], &["inlined"]],
        ),
        (
            "batch_activity_marker.ll",
            &[&["enzyme_dup"], &["__enzyme_batch"], &["enzyme_vector"]],
        ),
        (
            "annotation_unknown_like.ll",
            &[&["enzyme_function_like"], &["approx"], &["my_magic"]],
        ),
        (
            "fwdsplit_in_place.ll",
            &[
                &["forward split mode"],
                &["square_in_place"],
                &["load"],
                &["__enzyme_fwddiff"],
            ],
        ),
        (
            "fwdsplit_without_tape.ll",
            &[&["__enzyme_fwdsplit"], &["tape"], &["last argument"]],
        ),
        (
            "vector_split_mode.ll",
            &[&["enzyme_width"], &["__enzyme_autodiff"], &["sq"]],
        ),
        (
            "autodiff_through_pointer.ll",
            &[&["__enzyme_autodiff"], &["still referenced"], &["table"]],
        ),
        ("scalable_vector.ll", &[&["scalable vector"], &["vscale"]]),
        ("scalable_alloca.ll", &[&["scalable vector"], &["alloca"]]),
        (
            "unknown_triple.ll",
            &[&["qwerty-unknown-linux"], &["architecture"]],
        ),
        (
            "reverse_extra_argument.ll",
            &[&["adjoint of the return value"], &["i32"]],
        ),
        ("reverse_tape_not_pointer.ll", &[&["tape"], &["i64"]]),
        (
            "stream_read_float.ll",
            &[&["_ZNSirsERd"], &["stream"], &["__enzyme_inactivefn"]],
        ),
        (
            "reverse_too_many.ll",
            &[&["too many arguments"], &["1 more"]],
        ),
        (
            "call_type_mismatch_reverse.ll",
            &[&["`g`"], &["ptr (double)"], &["undefined"]],
        ),
        (
            "call_type_mismatch_forward.ll",
            &[&["`pw`"], &["double (double, i16)"], &["prototype"]],
        ),
        (
            "markers_width_twice.ll",
            &[&["enzyme_width"], &["twice"], &["caller"]],
        ),
        (
            "marker_after_last.ll",
            &[&["enzyme_const"], &["after the last parameter"], &["`sq`"]],
        ),
        (
            "marker_width_without_value.ll",
            &[&["enzyme_width"], &["last argument"], &["caller"]],
        ),
        (
            "return_markers_contradict.ll",
            &[
                &["enzyme_primal_return"],
                &["enzyme_noret"],
                &["contradict"],
            ],
        ),
        (
            "dup_return_reverse.ll",
            &[&["enzyme_dup_return"], &["__enzyme_fwddiff"], &["`sq`"]],
        ),
        (
            "function_like_unknown.ll",
            &[
                &["__enzyme_function_like_g"],
                &["nextafter"],
                &["my_nextafter"],
            ],
        ),
        (
            "iter_not_integer.ll",
            &[&["__enzyme_iter"], &["integer"], &["series"]],
        ),
        (
            "allocation_like_bad.ll",
            &[
                &["__enzyme_allocation_like_pool"],
                &["-1"],
                &["exactly once"],
            ],
        ),
        (
            "marker_unsupported.ll",
            &[
                &["enzyme_runtime_activity"],
                &["not supported"],
                &["caller"],
            ],
        ),
        (
            "primal_return_void.ll",
            &[&["enzyme_primal_return"], &["returns void"], &["`sq`"]],
        ),
        (
            "inline_asm_active.ll",
            &[&["inline assembly"], &["sqrtsd"], &["`f`"], &["in c"]],
        ),
        (
            "blas_no_rule.ll",
            &[
                &["`cblas_zgemm`"],
                &["blas routine"],
                &["no derivative rule"],
            ],
        ),
        (
            "blas_active_alpha.ll",
            &[&["`cblas_daxpy`"], &["alpha or beta is active"]],
        ),
        (
            "blas_fwdsplit_in_place.ll",
            &[
                &["forward split mode"],
                &["scale_in_place"],
                &["cblas_dscal"],
                &["in place"],
            ],
        ),
        (
            "blas_unreadable.ll",
            &[&["`cblas_ddot`"], &["3 arguments"], &["cannot read"]],
        ),
        (
            "blas_no_rule_fortran.ll",
            &[&["`dsyr2k_`"], &["blas routine"], &["no derivative rule"]],
        ),
        (
            "lapack_no_rule.ll",
            &[
                &["`dgetri_`"],
                &["lapack routine"],
                &["no derivative rule"],
                &["?potrf"],
            ],
        ),
        (
            "lapack_getrf_nonsquare.ll",
            &[&["`lapacke_dgetrf`"], &["non-square"]],
        ),
        (
            "lapack_getrf_unseen_square.ll",
            &[&["`dgetrf_`"], &["square matrices only"], &["M and N"]],
        ),
    ];
    for (name, mentions) in cases {
        let out = dir.path().join(format!("{name}.out.bc"));
        expect_error(&inputs().join(name), &out, mentions);
    }
}

/// Accepted inputs that once gave broken modules: enz-rs exits 0 with a
/// module that verifies and holds nothing of the API.
/// - `invoke @__enzyme_autodiff` (C++ with exceptions): lowered, the
///   unwind edge removed;
/// - loads and stores aligned to 2^32: shadow accesses used to get an
///   alignment of 2^63;
/// - a sized `operator delete` moved to the end of the reverse sweep: it
///   used to be called with the pointer alone;
/// - registrations listed in `llvm.used` / `llvm.compiler.used`: taken
///   out of the lists and deleted (nothing named `__enzyme_` is left).
#[test]
fn accepted_inputs_give_complete_modules() {
    let dir = tmpdir();
    for name in [
        "invoke_callsite.ll",
        "huge_alignment.ll",
        "sized_delete.ll",
        "should_recompute.ll",
        "registration_used.ll",
    ] {
        let out = dir.path().join(format!("{name}.out.ll"));
        let res = enz_rs(&[
            inputs().join(name).as_os_str(),
            "-S".as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
        ]);
        assert!(
            res.status.success(),
            "enz-rs {name} failed: {}",
            String::from_utf8_lossy(&res.stderr)
        );
        let ir = std::fs::read_to_string(&out).unwrap();
        assert!(!ir.contains("__enzyme_"), "API reference left:\n{ir}");
        let verify = Command::new(tool("opt-22", "opt"))
            .args(["-passes=verify", "-disable-output"])
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            verify.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&verify.stderr)
        );
    }
}

/// The same from C++ source, compiled with exceptions (invoke) and
/// without, at every level: the program checks its own gradient.
#[test]
fn cxx_invoke_call_site_runs() {
    let dir = tmpdir();
    let clangxx = tool("clang++-22", "clang++");
    for level in ["-O0", "-O1", "-O2", "-O3"] {
        for eh in ["-fexceptions", "-fno-exceptions"] {
            let tag = format!("inv{level}{eh}");
            let bc = dir.path().join(format!("{tag}.bc"));
            let out = dir.path().join(format!("{tag}.out.bc"));
            let exe = dir.path().join(&tag);
            let ok = |c: &mut Command| {
                let o = c.output().unwrap();
                assert!(
                    o.status.success(),
                    "{c:?}: {}{}",
                    String::from_utf8_lossy(&o.stdout),
                    String::from_utf8_lossy(&o.stderr)
                );
            };
            ok(Command::new(&clangxx)
                .args([level, eh, "-c", "-emit-llvm"])
                .arg(inputs().join("invoke_callsite.cpp"))
                .arg("-o")
                .arg(&bc));
            ok(Command::new(env!("CARGO_BIN_EXE_enz-rs"))
                .arg(&bc)
                .arg("-o")
                .arg(&out));
            ok(Command::new(&clangxx).arg(&out).arg("-o").arg(&exe));
            ok(&mut Command::new(&exe));
        }
    }
}

/// Writing to a closed stderr or stdout (`enz-rs ... 2>&1 | head`) is not
/// an error of its own: the exit status stays that of the work (1 for a
/// bad input, 0 for a printed analysis), never a panic's 101.
#[test]
fn closed_pipes_do_not_panic() {
    use std::process::Stdio;
    let dir = tmpdir();
    let bad = dir.path().join("bad.bc");
    std::fs::write(&bad, b"BC\xC0\xDEgarbage").unwrap();
    let good = assemble("square.ll", dir.path());
    // A pipe whose reader is gone: every write to it fails with EPIPE.
    let closed = || {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        Stdio::from(writer)
    };
    let out = dir.path().join("x.bc");
    let status = Command::new(env!("CARGO_BIN_EXE_enz-rs"))
        .arg(&bad)
        .arg("-o")
        .arg(&out)
        .stderr(closed())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(1), "bad input, stderr closed");
    let status = Command::new(env!("CARGO_BIN_EXE_enz-rs"))
        .arg(&good)
        .args(["--print-activity", "square"])
        .stdout(closed())
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(0), "printed analysis, stdout closed");
}

/// A float passed inside an integer argument, or returned inside an
/// integer (`struct { float; int }` by value), across a call enz-rs does
/// not inline: refused, where the gradient used to be silently 0.
#[test]
fn floats_inside_integers_across_calls_are_refused() {
    let dir = tmpdir();
    for (name, says) in [
        (
            "float_in_integer_argument.ll",
            "argument 0 of this call carries",
        ),
        (
            "float_in_integer_return.ll",
            "returns floating-point values inside",
        ),
    ] {
        let out = dir.path().join(format!("{name}.out.bc"));
        let res = enz_rs(&[
            inputs().join(name).as_os_str(),
            "--no-inline".as_ref(),
            "-o".as_ref(),
            out.as_os_str(),
        ]);
        let stderr = String::from_utf8_lossy(&res.stderr);
        assert_eq!(res.status.code(), Some(1), "{name}: {stderr}");
        assert!(!out.exists(), "{name}");
        assert!(
            stderr.contains(says) && stderr.contains("i64"),
            "{name}: {stderr}"
        );
    }
}

/// `--print-abi FN` prints the canonical derivative signatures of FN: the
/// shadow follows each pointer, the split reverse takes the return's
/// adjoint and then the tape.
#[test]
fn print_abi_shows_the_canonical_signatures() {
    let dir = tmpdir();
    let good = assemble("square.ll", dir.path());
    let res = enz_rs(&[good.as_os_str(), "--print-abi".as_ref(), "square".as_ref()]);
    assert_eq!(res.status.code(), Some(0));
    let text = String::from_utf8_lossy(&res.stdout);
    for line in [
        "diffe_square(double p0) -> { double d_p0 }",
        "augmented_square(double p0) -> { ptr tape, double ret }",
        "reverse_square(double p0, double d_ret, ptr tape) -> { double d_p0 }",
        "fwddiffe_square(double p0, double d_p0) -> { double ret, double d_ret }",
    ] {
        assert!(text.contains(line), "missing `{line}` in:\n{text}");
    }
    let res = enz_rs(&[good.as_os_str(), "--print-abi".as_ref(), "nope".as_ref()]);
    assert_eq!(res.status.code(), Some(1));
}

/// `--print-plan FN` prints, before any IR is emitted, how each value of
/// FN's gradient reaches the reverse sweep: a value after the loop is used
/// directly, the induction variable is recomputed from the reverse
/// iteration, the load of unchanged memory is re-read, and the running sum
/// (a phi carried across iterations) is cached per iteration.
#[test]
fn print_plan_shows_how_each_value_reaches_the_reverse_sweep() {
    let dir = tmpdir();
    let input = assemble("plan.ll", dir.path());
    let res = enz_rs(&[input.as_os_str(), "--print-plan".as_ref(), "f".as_ref()]);
    assert_eq!(
        res.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&res.stderr)
    );
    let text = String::from_utf8_lossy(&res.stdout);
    for line in [
        "%8 = load double, ptr %0, align 8: direct",
        "%13 = phi i64 [ 0, %4 ], [ %20, %12 ]: recompute (affine in loop 0)",
        "%16 = load double, ptr %15, align 8: re-read",
        "%14 = phi double [ 0.000000e+00, %4 ], [ %19, %12 ]: cache (buffer of loop 0)",
        "%18 = fmul double %16, %17: recompute",
    ] {
        assert!(text.contains(line), "missing `{line}` in:\n{text}");
    }
}

/// `enzyme_shouldrecompute` on a function: a call to it that survives
/// inlining is called again in the reverse sweep instead of cached (the
/// same call without the attribute is cached), and the derivative is a
/// verified module with the call made once in each sweep.
#[test]
fn should_recompute_calls_are_called_again() {
    let dir = tmpdir();
    let input = inputs().join("should_recompute.ll");
    let res = enz_rs(&[
        input.as_os_str(),
        "--no-inline".as_ref(),
        "--print-plan".as_ref(),
        "f".as_ref(),
    ]);
    assert_eq!(
        res.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&res.stderr)
    );
    let text = String::from_utf8_lossy(&res.stdout);
    for line in [
        "%w = call double @weight(i32 %i): recompute",
        "%u = call double @cached_weight(i32 %i): cache (buffer of loop 0)",
    ] {
        assert!(text.contains(line), "missing `{line}` in:\n{text}");
    }
    let out = dir.path().join("out.ll");
    let res = enz_rs(&[
        input.as_os_str(),
        "--no-inline".as_ref(),
        "-O0".as_ref(),
        "-S".as_ref(),
        "-o".as_ref(),
        out.as_os_str(),
    ]);
    assert!(
        res.status.success(),
        "{}",
        String::from_utf8_lossy(&res.stderr)
    );
    let ir = std::fs::read_to_string(&out).unwrap();
    let body: String = ir
        .split("\ndefine ")
        .filter(|f| f.contains("@diffe_f("))
        .collect();
    assert_eq!(body.matches("call double @weight(").count(), 2, "{body}");
    assert_eq!(
        body.matches("call double @cached_weight(").count(),
        1,
        "{body}"
    );
    let verify = Command::new(tool("opt-22", "opt"))
        .args(["-passes=verify", "-disable-output"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        verify.status.success(),
        "{}",
        String::from_utf8_lossy(&verify.stderr)
    );
}

/// A registration whose function nothing calls (clang inlined it before
/// enz-rs ran) cannot take effect: enz-rs succeeds, with a warning naming
/// the function.
#[test]
fn uncalled_registration_is_a_warning() {
    let dir = tmpdir();
    let input = assemble("registration_inlined.ll", dir.path());
    let out = dir.path().join("out.bc");
    let res = enz_rs(&[input.as_os_str(), "-o".as_ref(), out.as_os_str()]);
    let stderr = String::from_utf8_lossy(&res.stderr);
    assert!(res.status.success(), "enz-rs failed: {stderr}");
    assert!(out.exists(), "no output written");
    assert!(
        stderr.contains("warning:") && stderr.contains("log1p_like") && stderr.contains("inlined"),
        "no warning about the uncalled registration: {stderr}"
    );
}

/// An ordered region in a parallel loop differentiated in reverse mode:
/// refused with the ordered call named (its reverse would need the
/// opposite order; it used to give a wrong gradient silently).
#[test]
fn openmp_ordered_region_in_reverse_mode() {
    let dir = tmpdir();
    let input = assemble("omp_ordered.ll", dir.path());
    let out = dir.path().join("out.bc");
    expect_error(
        &input,
        &out,
        &[
            &["ordered region"],
            &["ord.omp_outlined"],
            &["__kmpc_ordered", "__kmpc_end_ordered"],
        ],
    );
}

/// A critical section that multiplies shared memory, in reverse mode:
/// refused at the store (the threads' reverses would need the opposite
/// lock order).
#[test]
fn openmp_critical_product_in_reverse_mode() {
    let dir = tmpdir();
    let input = assemble("omp_critical_product.ll", dir.path());
    let out = dir.path().join("out.bc");
    expect_error(
        &input,
        &out,
        &[
            &["critical section"],
            &["crit.omp_outlined"],
            &["store double"],
        ],
    );
}
