//! Checks on the shape of the IR enz-rs writes, where the numbers alone
//! cannot tell a good gradient from a wasteful or racy one.
//!
//! Each test compiles an input from `tests/inputs/ir_checks/` with
//! `clang-22` (on PATH, else `/usr/lib/llvm-22/bin/clang`; `ENZ_CLANG`
//! overrides), runs `enz-rs IN.bc -O0 -S -o OUT.ll` (no post-AD
//! optimisation, so what synthesis emitted is what is inspected) and looks
//! at the text of one gradient function:
//!
//! - loops: a value the reverse sweep needs that does not change in the
//!   loop gets no per-iteration cache (no heap array, no cache slots, no
//!   variable-sized stack array); a value that changes every iteration
//!   does (the positive control);
//! - debug information: with -g, derivatives have subprograms of their own
//!   and their code the source lines of the primal code it comes from;
//! - GPU (NVPTX) accumulation into shadow memory: thread-private adjoints
//!   are plain loads and stores, a block-uniform address is one block
//!   reduction plus one atomic after a barrier, a data-dependent (possibly
//!   shared) address is `atomicrmw fadd`.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root")
}

fn input(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/inputs/ir_checks")
        .join(name)
}

/// `ENZ_CLANG`, else `clang-22` on PATH, else `/usr/lib/llvm-22/bin/clang`.
fn clang() -> PathBuf {
    match std::env::var_os("ENZ_CLANG") {
        Some(p) => PathBuf::from(p),
        None => enz_fuzz::tools::llvm_tool("clang-22", "clang"),
    }
}

fn tmpdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("enz-ir-checks-")
        .tempdir()
        .unwrap()
}

fn run(cmd: &mut Command) {
    let shown = format!("{cmd:?}");
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {shown}: {e}"));
    assert!(
        out.status.success(),
        "{shown} failed ({})\n--- stdout ---\n{}\n--- stderr ---\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Compiles `tests/inputs/ir_checks/<name>` to bitcode with `flags`, runs
/// `enz-rs -O0 -S` on it and returns the output IR.
fn differentiate(name: &str, flags: &[&str], dir: &Path, tag: &str) -> String {
    let bc = dir.join(format!("{tag}.bc"));
    let ll = dir.join(format!("{tag}.grad.ll"));
    let include = root().join("runtime/include");
    run(Command::new(clang())
        .args(flags)
        .arg("-emit-llvm")
        .arg("-c")
        .arg("-I")
        .arg(&include)
        .arg(input(name))
        .arg("-o")
        .arg(&bc));
    run(Command::new(env!("CARGO_BIN_EXE_enz-rs"))
        .arg(&bc)
        .args(["-O0", "-S", "-o"])
        .arg(&ll));
    std::fs::read_to_string(&ll).unwrap()
}

/// The CUDA device compile of enz_cuda.h's documentation, at -O2.
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
    "-O2",
];

/// One function of a textual module, split into basic blocks.
struct Func {
    name: String,
    text: String,
    params: Vec<String>,
    /// Blocks in layout order: label and the lines after it.
    blocks: Vec<(String, Vec<String>)>,
}

impl Func {
    /// The definition whose name satisfies `pick`; exactly one must.
    fn find(ir: &str, what: &str, pick: impl Fn(&str) -> bool) -> Func {
        let mut found = Vec::new();
        let mut lines = ir.lines();
        while let Some(line) = lines.next() {
            if !line.starts_with("define ") {
                continue;
            }
            let at = line.find('@').expect("a function name");
            let open = at + line[at..].find('(').expect("a parameter list");
            let name = line[at + 1..open].to_string();
            if !pick(&name) {
                continue;
            }
            let mut text = format!("{line}\n");
            let mut body = Vec::new();
            for l in lines.by_ref() {
                text.push_str(l);
                text.push('\n');
                if l == "}" {
                    break;
                }
                body.push(l.to_string());
            }
            found.push(Func {
                params: params(&line[open..]),
                blocks: blocks(&body),
                name,
                text,
            });
        }
        assert_eq!(
            found.len(),
            1,
            "expected exactly one definition of {what}, found {:?}\n{ir}",
            found.iter().map(|f| &f.name).collect::<Vec<_>>()
        );
        found.pop().unwrap()
    }

    /// Body lines (no `define`, labels or comments) containing `needle`.
    fn lines_with(&self, needle: &str) -> Vec<&str> {
        self.blocks
            .iter()
            .flat_map(|(_, ls)| ls.iter())
            .map(|l| l.trim())
            .filter(|l| l.contains(needle))
            .collect()
    }

    /// The instruction defining `%v`, if any.
    fn def(&self, v: &str) -> Option<&str> {
        let prefix = format!("{v} = ");
        self.blocks
            .iter()
            .flat_map(|(_, ls)| ls.iter())
            .map(|l| l.trim())
            .find(|l| l.starts_with(&prefix))
    }

    /// The object `p` points into: follows GEPs back to their base.
    fn base_of(&self, p: &str) -> String {
        let mut p = p.to_string();
        for _ in 0..32 {
            let Some(d) = self.def(&p) else { break };
            let rhs = &d[d.find(" = ").unwrap() + 3..];
            if !rhs.starts_with("getelementptr ") {
                break;
            }
            // `getelementptr [inbounds] T, ptr BASE, ...`
            p = operand_after(rhs, ", ptr ").expect("a pointer operand");
        }
        p
    }

    /// Labels of the blocks reachable from the entry block without passing
    /// through a block that has a line satisfying `stop` (such a block is
    /// included, its successors are not).
    fn reachable_until(&self, stop: impl Fn(&str) -> bool) -> HashSet<String> {
        let succs: HashMap<&str, Vec<String>> = self
            .blocks
            .iter()
            .map(|(label, ls)| {
                let s = ls.iter().flat_map(|l| labels_in(l)).collect();
                (label.as_str(), s)
            })
            .collect();
        let mut seen = HashSet::new();
        let mut work = vec![self.blocks[0].0.clone()];
        while let Some(b) = work.pop() {
            if !seen.insert(b.clone()) {
                continue;
            }
            let (_, ls) = self.blocks.iter().find(|(l, _)| *l == b).unwrap();
            if ls.iter().any(|l| stop(l)) {
                continue;
            }
            work.extend(succs[b.as_str()].iter().cloned());
        }
        seen
    }

    /// The block holding the line that is exactly `line` (trimmed).
    fn block_of(&self, line: &str) -> &(String, Vec<String>) {
        self.blocks
            .iter()
            .find(|(_, ls)| ls.iter().any(|l| l.trim() == line))
            .unwrap()
    }
}

/// Parameter names of `(ty %a, ty %b) ...`.
fn params(list: &str) -> Vec<String> {
    let close = list.find(')').expect("end of the parameter list");
    list[1..close]
        .split(", ")
        .filter(|p| !p.is_empty())
        .map(|p| p.rsplit(' ').next().unwrap().to_string())
        .collect()
}

/// Splits body lines into labelled blocks (the entry block may be
/// unlabelled).
fn blocks(body: &[String]) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    for l in body {
        let is_label = !l.starts_with(' ') && !l.starts_with(';') && !l.is_empty();
        if is_label {
            let label = l.split(':').next().unwrap().trim().to_string();
            out.push((label, Vec::new()));
        } else if !l.trim().is_empty() && !l.trim_start().starts_with(';') {
            if out.is_empty() {
                out.push(("<entry>".into(), Vec::new()));
            }
            out.last_mut().unwrap().1.push(l.clone());
        }
    }
    out
}

/// The token following the first `prefix` in `s` (up to `,`, space or `)`).
fn operand_after(s: &str, prefix: &str) -> Option<String> {
    let at = s.find(prefix)? + prefix.len();
    let tok: String = s[at..]
        .chars()
        .take_while(|c| !matches!(c, ',' | ' ' | ')'))
        .collect();
    (!tok.is_empty()).then_some(tok)
}

/// Block labels a terminator line names (`label %x`).
fn labels_in(line: &str) -> Vec<String> {
    line.match_indices("label %")
        .map(|(i, _)| operand_after(&line[i..], "label %").unwrap())
        .collect()
}

/// The pointer operand of `atomicrmw OP ptr P, ...` or `store T V, ptr P, ...`.
fn address_of(inst: &str) -> String {
    let prefix = if inst.starts_with("store ") {
        ", ptr "
    } else {
        " ptr "
    };
    operand_after(inst, prefix).expect("a pointer operand")
}

/// Calls to functions that allocate a per-iteration cache, and
/// variable-sized stack arrays.
fn cache_allocations(f: &Func) -> Vec<&str> {
    let mut found: Vec<&str> = [
        "@malloc(",
        "@calloc(",
        "@realloc(",
        "@__enz_cache_slot(",
        "@__enz_cache_take(",
    ]
    .iter()
    .flat_map(|callee| f.lines_with(callee))
    .collect();
    found.extend(
        f.lines_with(" = alloca ")
            .into_iter()
            .filter(|l| l.contains(", i64 %") || l.contains(", i32 %")),
    );
    found
}

/// `sin(x)` inside the loop of `f` is loop-invariant: the reverse sweep
/// needs it (times `a[i]`) in every iteration but it is the same value, so
/// `diffe_f` must not allocate a cache array for it, at -O0 (where sin(x)
/// is computed inside the loop body) and at -O2.
///
/// Fails if enz-rs caches a loop-invariant value per iteration (a `malloc`,
/// `calloc`, `realloc`, `__enz_cache_slot` or `__enz_cache_take` call, or a variable-sized
/// `alloca`, in `diffe_f`); the control fails if `diffe_g`, whose loop
/// needs a different `s` every iteration, has none of those (then the
/// check could not see a cache at all).
#[test]
fn loop_invariant_values_need_no_cache_array() {
    let dir = tmpdir();
    for level in ["-O0", "-O2"] {
        let ir = differentiate("loop_cache.c", &[level], dir.path(), &level[1..]);
        let f = Func::find(&ir, "diffe_f", |n| n == "diffe_f");
        let found = cache_allocations(&f);
        assert!(
            found.is_empty(),
            "{level}: diffe_f caches a loop-invariant value: {found:?}\n{}",
            f.text
        );
        let g = Func::find(&ir, "diffe_g", |n| n == "diffe_g");
        assert!(
            !cache_allocations(&g).is_empty(),
            "{level}: diffe_g (Horner's scheme) needs a per-iteration cache of s, \
             but allocates none\n{}",
            g.text
        );
    }
}

/// The gradient of the CUDA body function `body` (`diffe_<mangled name>`).
fn gpu_gradient(body: &str) -> Func {
    let dir = tmpdir();
    let ir = differentiate("gpu_accumulate.cu", &CUDA_FLAGS, dir.path(), "k");
    assert!(
        ir.contains("target triple = \"nvptx64"),
        "not an NVPTX module"
    );
    Func::find(&ir, &format!("diffe_ of {body}"), |n| {
        n.starts_with("diffe_") && n.contains(body)
    })
}

/// `square_body`: thread i reads x[i] and updates y[i] only, so dx[i] and
/// dy[i] have one writer each and need no atomics.
///
/// Fails if the gradient has any `atomicrmw` (needlessly slow), or if no
/// plain store accumulates into the shadow of x (the accumulation went
/// somewhere else, or the function inspected is not the gradient).
#[test]
fn gpu_thread_private_adjoints_use_no_atomics() {
    let f = gpu_gradient("square_body");
    // diffe_ parameters: x, dx, y, dy, n.
    assert_eq!(f.params.len(), 5, "{}", f.text);
    let dx = &f.params[1];
    let atomics = f.lines_with("atomicrmw");
    assert!(
        atomics.is_empty(),
        "thread-private adjoints accumulated with atomics: {atomics:?}\n{}",
        f.text
    );
    let into_dx: Vec<&str> = f
        .lines_with("store float")
        .into_iter()
        .filter(|s| f.base_of(&address_of(s)) == *dx)
        .collect();
    assert!(
        !into_dx.is_empty(),
        "no plain accumulation into dx ({dx})\n{}",
        f.text
    );
}

/// `scale_body`: every thread reads a[0], so da[0] gets one contribution
/// per thread. Expected: each thread sums its contribution privately, the
/// block reduces the sums through shared memory, and after a barrier one
/// `atomicrmw fadd` adds the block's total to da.
///
/// Fails if there is not exactly one `atomicrmw fadd` into da (one per
/// contribution on the per-thread path, or none at all), if that atomic
/// can be reached from the entry without passing a barrier, if da is also
/// written with a plain (racy) store, or if there is no shared-memory
/// reduction buffer.
#[test]
fn gpu_block_uniform_adjoint_uses_one_atomic_after_a_block_reduction() {
    let f = gpu_gradient("scale_body");
    // diffe_ parameters: a, da, x (const, no shadow), y, dy, n.
    assert_eq!(f.params.len(), 6, "{}", f.text);
    let da = &f.params[1];
    let atomics = f.lines_with("atomicrmw");
    assert_eq!(
        atomics.len(),
        1,
        "expected one atomic (the block's total), got {atomics:?}\n{}",
        f.text
    );
    let atomic = atomics[0];
    assert!(atomic.contains("atomicrmw fadd"), "{atomic}");
    assert_eq!(
        f.base_of(&address_of(atomic)),
        *da,
        "the atomic does not add into da: {atomic}\n{}",
        f.text
    );
    let is_barrier = |l: &str| l.contains("call void @llvm.nvvm.barrier");
    assert!(
        !f.lines_with("@llvm.nvvm.barrier").is_empty(),
        "no barrier\n{}",
        f.text
    );
    let (label, lines) = f.block_of(atomic);
    let before_barrier = f.reachable_until(is_barrier);
    let barrier_first_in_block = lines
        .iter()
        .map(|l| l.trim())
        .take_while(|l| *l != atomic)
        .any(is_barrier);
    assert!(
        !before_barrier.contains(label) || barrier_first_in_block,
        "the atomic (block {label}) is reachable without a barrier: {before_barrier:?}\n{}",
        f.text
    );
    let plain: Vec<&str> = f
        .lines_with("store ")
        .into_iter()
        .filter(|s| s.starts_with("store ") && f.base_of(&address_of(s)) == *da)
        .collect();
    assert!(
        plain.is_empty(),
        "da also updated with plain stores: {plain:?}\n{}",
        f.text
    );
    assert!(
        f.text.contains("addrspace(3)"),
        "no shared-memory reduction buffer\n{}",
        f.text
    );
}

/// `lookup_body`: thread i reads tab[idx[i]], and different threads may
/// hit the same entry, so dtab must be updated atomically.
///
/// Fails if dtab is updated without `atomicrmw fadd` (a data race when two
/// threads share an entry), e.g. if the address were wrongly classified as
/// thread-private or block-uniform.
#[test]
fn gpu_aliasing_adjoints_use_atomics() {
    let f = gpu_gradient("lookup_body");
    // diffe_ parameters: tab, dtab, idx, w, out, dout, n.
    assert_eq!(f.params.len(), 7, "{}", f.text);
    let dtab = &f.params[1];
    let into_dtab: Vec<&str> = f
        .lines_with("atomicrmw fadd")
        .into_iter()
        .filter(|a| f.base_of(&address_of(a)) == *dtab)
        .collect();
    assert!(
        !into_dtab.is_empty(),
        "no atomicrmw fadd into dtab ({dtab})\n{}",
        f.text
    );
    let plain: Vec<&str> = f
        .lines_with("store ")
        .into_iter()
        .filter(|s| s.starts_with("store ") && f.base_of(&address_of(s)) == *dtab)
        .collect();
    assert!(
        plain.is_empty(),
        "dtab updated with plain (racy) stores: {plain:?}\n{}",
        f.text
    );
    assert!(
        !f.text.contains("__enz_block_sum"),
        "a data-dependent address was block-reduced\n{}",
        f.text
    );
}

/// Compiles a `c_tests/` fixture at `level` and differentiates it with
/// `enz-rs -O0 -S`; returns the output IR.
fn differentiate_fixture(name: &str, level: &str, dir: &Path) -> String {
    let bc = dir.join(format!("{name}.{level}.bc"));
    let ll = dir.join(format!("{name}.{level}.grad.ll"));
    run(Command::new(clang())
        .arg(level)
        .args(["-emit-llvm", "-c", "-I"])
        .arg(root().join("runtime/include"))
        .arg("-I")
        .arg(root().join("c_tests"))
        .arg(root().join("c_tests").join(name))
        .arg("-o")
        .arg(&bc));
    run(Command::new(env!("CARGO_BIN_EXE_enz-rs"))
        .arg(&bc)
        .args(["-O0", "-S", "-o"])
        .arg(&ll));
    std::fs::read_to_string(&ll).unwrap()
}

/// An undefined vector lane of the primal (a shuffle mask lane of -1, an
/// insertelement into poison) would meet a zero adjoint lane in the reverse
/// sweep, and `0 * poison` is poison: whether the program then prints the
/// right number depends on the code generator's mood, so the IR itself is
/// checked. The primal input has such lanes; the gradient has none.
#[test]
fn gradients_carry_no_undefined_vector_lanes() {
    let dir = tmpdir();
    for level in ["-O2", "-O3"] {
        let ir = differentiate_fixture("rev_vector_poison_lane.c", level, dir.path());
        let primal = Func::find(&ir, "the primal", |n| n == "f");
        assert!(
            primal.text.contains("poison"),
            "the input no longer has undefined lanes (test would prove nothing):\n{}",
            primal.text
        );
        let grad = Func::find(&ir, "the gradient", |n| n.starts_with("diffe_f"));
        let bad: Vec<&str> = grad
            .text
            .lines()
            .filter(|l| {
                l.split(|c: char| !c.is_alphanumeric())
                    .any(|t| t == "poison" || t == "undef")
            })
            .collect();
        assert!(
            bad.is_empty(),
            "{level}: undefined values in the gradient:\n{}",
            bad.join("\n")
        );
    }
}

/// The reverse sweep re-reads the primal's stack arrays: a lifetime.end of
/// the primal before it would make those reads reads of dead memory.
#[test]
fn gradients_do_not_end_lifetimes_the_reverse_sweep_reads() {
    let dir = tmpdir();
    for level in ["-O1", "-O2"] {
        let ir = differentiate_fixture("mem_lifetime_reread.c", level, dir.path());
        let grad = Func::find(&ir, "the gradient", |n| n.starts_with("diffe_f"));
        assert!(
            !grad.text.contains("llvm.lifetime.end"),
            "{level}: the gradient ends a lifetime:\n{}",
            grad.text
        );
    }
}

/// rustc's `"enzyme_type"` attributes seed type analysis: a copy between
/// pointers that carry no type in the module is refused without them
/// (enz-rs cannot tell whether it moves floats) and differentiated with
/// them: the source's adjoint gains the destination's, which is zeroed.
#[test]
fn declared_types_decide_an_untyped_copy() {
    let dir = tmpdir();
    let with = input("declared_types.ll");
    let text = std::fs::read_to_string(&with).unwrap();
    let without = dir.path().join("untyped.ll");
    let stripped = text.replace(
        " \"enzyme_type\"=\"{[-1]:Pointer, [-1,-1]:Float@double}\"",
        "",
    );
    assert_ne!(stripped, text, "the input has its attributes");
    std::fs::write(&without, stripped).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_enz-rs"))
        .arg(&without)
        .args(["-S", "-o"])
        .arg(dir.path().join("refused.ll"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot tell whether this copy moves floats"),
        "{err}"
    );
    let ll = dir.path().join("typed.ll");
    run(Command::new(env!("CARGO_BIN_EXE_enz-rs"))
        .arg(&with)
        .args(["-O1", "-S", "-o"])
        .arg(&ll));
    let out = std::fs::read_to_string(&ll).unwrap();
    let grad: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("define void @grad"))
        .take_while(|l| *l != "}")
        .collect();
    let has = |pat: &str| grad.iter().any(|l| l.contains(pat));
    // The copy becomes a load and a store of a double before synthesis
    // (preprocessing retypes the integer copy instcombine makes of it).
    let adds = grad
        .iter()
        .any(|l| l.contains(" = fadd ") && l.contains(" double "));
    assert!(
        adds && has("store double 0.000000e+00, ptr %dd"),
        "{}",
        grad.join("\n")
    );
}

/// Doubles moved only as integers, through a `<2 x i64>` shuffle: where
/// nothing says what the memory holds, the move is refused (before, the
/// integers were taken as data without derivatives and the gradient was
/// silently zero); where rustc's `"enzyme_type"` says doubles, the
/// shuffle is rebuilt over `<2 x double>` and differentiated.
#[test]
fn integer_shuffles_of_untyped_memory_are_refused_not_dropped() {
    let dir = tmpdir();
    let module = |attr: &str| {
        format!(
            r#"target triple = "x86_64-pc-linux-gnu"
@enzyme_dup = external global i32
define void @swap2(ptr {attr} %x) {{
  %v = load <2 x i64>, ptr %x, align 8
  %s = shufflevector <2 x i64> %v, <2 x i64> zeroinitializer, <2 x i32> <i32 1, i32 0>
  store <2 x i64> %s, ptr %x, align 8
  ret void
}}
define void @grad(ptr %x, ptr %dx) {{
  call void (ptr, ...) @__enzyme_autodiff(ptr @swap2, ptr @enzyme_dup, ptr %x, ptr %dx)
  ret void
}}
declare void @__enzyme_autodiff(ptr, ...)
"#
        )
    };
    let untyped = dir.path().join("untyped.ll");
    std::fs::write(&untyped, module("")).unwrap();
    let refused = dir.path().join("refused.ll");
    let out = Command::new(env!("CARGO_BIN_EXE_enz-rs"))
        .arg(&untyped)
        .args(["-S", "-o"])
        .arg(&refused)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot tell whether this copy moves floats"),
        "{err}"
    );
    assert!(!refused.exists(), "no partial output");
    let typed = dir.path().join("typed.ll");
    std::fs::write(
        &typed,
        module(r#""enzyme_type"="{[-1]:Pointer, [-1,-1]:Float@double}""#),
    )
    .unwrap();
    let ll = dir.path().join("typed_out.ll");
    run(Command::new(env!("CARGO_BIN_EXE_enz-rs"))
        .arg(&typed)
        .args(["-O1", "-S", "-o"])
        .arg(&ll));
    let out = std::fs::read_to_string(&ll).unwrap();
    let grad: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("define void @grad"))
        .take_while(|l| *l != "}")
        .collect();
    // The adjoints of the two doubles are swapped back: loads of the
    // shadow as doubles (or a <2 x double>), and a shuffle or two stores.
    assert!(
        grad.iter().any(|l| l.contains("load <2 x double>, ptr %dx")
            || l.contains("load double, ptr %dx")),
        "{}",
        grad.join("\n")
    );
}

/// The metadata node `!id` of textual module `ir` (its line after `= `).
fn metadata<'a>(ir: &'a str, id: &str) -> &'a str {
    let prefix = format!("{id} = ");
    ir.lines()
        .find_map(|l| l.strip_prefix(&prefix))
        .unwrap_or_else(|| panic!("no metadata {id} in\n{ir}"))
}

/// The `!N` after `key` in `text` (`!dbg !12`, `inlinedAt: !7`).
fn metadata_ref(text: &str, key: &str) -> Option<String> {
    let at = text.find(key)? + key.len();
    let rest = &text[at..];
    let end = rest
        .find(|c: char| c != '!' && !c.is_ascii_digit())
        .unwrap_or(rest.len());
    Some(rest[..end].to_string())
}

#[test]
fn derivatives_carry_the_source_lines_of_their_primal() {
    // Built with -g: each derivative has a subprogram of its own, and
    // the derivative of `sin` (a call of cos) sits at the line of the
    // `sin`, as code inlined from the primal into the derivative.
    let source = std::fs::read_to_string(input("debug_locations.c")).unwrap();
    let sin_line = 1 + source
        .lines()
        .position(|l| l.contains("LINE_SIN"))
        .expect("the marked line");
    let dir = tmpdir();
    let ir = differentiate("debug_locations.c", &["-O1", "-g"], dir.path(), "dbg");
    for name in ["diffe_f", "fwddiffe_f"] {
        let f = Func::find(&ir, name, |n| n == name);
        let define = f.text.lines().next().unwrap();
        let sp = metadata_ref(define, "!dbg ").unwrap_or_else(|| {
            panic!("{name} has no subprogram:\n{}", f.text);
        });
        let sp_text = metadata(&ir, &sp);
        assert!(
            sp_text.starts_with(&format!("distinct !DISubprogram(name: \"{name}\""))
                && sp_text.contains("DIFlagArtificial")
                && sp_text.contains("unit: !"),
            "{name}'s subprogram: {sp_text}"
        );
        let cos = f.lines_with("@llvm.cos.f64(");
        assert!(!cos.is_empty(), "{name} computes no cos:\n{}", f.text);
        for call in cos {
            let loc = metadata_ref(call, "!dbg ")
                .unwrap_or_else(|| panic!("{name}: `{call}` has no location"));
            let loc_text = metadata(&ir, &loc);
            assert!(
                loc_text.starts_with(&format!("!DILocation(line: {sin_line},")),
                "{name}: `{call}` is at {loc_text}, not at line {sin_line}"
            );
            let at = metadata_ref(loc_text, "inlinedAt: ")
                .unwrap_or_else(|| panic!("{name}: {loc_text} is not inlined"));
            let at_text = metadata(&ir, &at);
            assert!(
                at_text.ends_with(&format!("scope: {sp})")),
                "{name}: {loc_text} is inlined at {at_text}, not into {sp}"
            );
        }
    }
}

/// A derivative reading through a global the program pointed to its own
/// heap memory outside differentiated code has no shadow memory there: the
/// program stops with a message naming the global (the previous binary's
/// gradient faulted on the null shadow), at -O0 and -O2.
#[test]
fn a_null_shadow_behind_a_global_stops_with_a_message() {
    let dir = tmpdir();
    for level in ["-O0", "-O2"] {
        let ll = differentiate("null_global_shadow.c", &[level], dir.path(), level);
        let ll_path = dir.path().join(format!("{level}.out.ll"));
        std::fs::write(&ll_path, ll).unwrap();
        let exe = dir.path().join(format!("{level}.exe"));
        run(Command::new(clang()).arg(&ll_path).arg("-o").arg(&exe));
        let out = Command::new(&exe).output().expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{level}: ran to the end");
        assert!(
            stderr.contains("the pointer held in the global `a`") && stderr.contains("no shadow"),
            "{level}: {stderr}"
        );
        use std::os::unix::process::ExitStatusExt;
        assert_ne!(
            out.status.signal(),
            Some(11),
            "{level}: a segmentation fault"
        );
        let control = Command::new(&exe).arg("skip").output().expect("runs");
        assert!(
            control.status.success(),
            "{level}: the program itself fails"
        );
    }
}
