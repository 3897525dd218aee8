//! Retargeting an NVPTX module to the host, for the CPU SIMT emulator.
//!
//! Every CUDA test runs without a GPU: the module enz-rs produced for
//! `nvptx64-nvidia-cuda` is rewritten into an ordinary x86-64 module whose
//! kernels are plain C functions, and linked with `runtime/emu/emu.c`, which
//! runs each block's threads as real OS threads (see `runtime/emu/emu.h`).
//!
//! The rewrite works on textual IR. With opaque pointers the only places a
//! GPU shows in IR text are a handful of tokens, so a token-level rewrite is
//! robust, and LLVM's own parser and verifier check the result:
//!
//! - the target triple and data layout become the host's
//!   ([`HOST_TRIPLE`], [`HOST_DATA_LAYOUT`]); NVPTX64 and x86-64 agree on the
//!   size and alignment of every integer, float and (generic) pointer type,
//!   so GEP offsets computed for the GPU stay right;
//! - every `addrspace(N)` annotation is dropped: all pointers become generic
//!   `ptr`. An `addrspacecast` (instruction or constant expression) is then a
//!   `ptr` to `ptr` cast and becomes a `bitcast`, which is a valid no-op
//!   (constant ones fold away when parsed). Intrinsics mangled with address
//!   spaces (`llvm.memcpy.p0.p3.i64`) are remangled by the parser;
//! - `__shared__` (`addrspace(3)`) and `__constant__` (`addrspace(4)`)
//!   globals become ordinary globals. One copy per program is right for
//!   shared memory because the emulator runs the blocks of a launch one at a
//!   time: only one block's shared memory is alive at any moment;
//! - the `ptx_kernel`/`ptx_device` calling conventions are dropped (kernels
//!   become C functions the host driver calls directly), and so are the
//!   NVPTX-only function attributes (`"target-cpu"`, `"target-features"`,
//!   `"nvvm.*"`) and the `!nvvm.annotations` named metadata;
//! - `syncscope("block")` and other GPU scopes on atomics are dropped (the
//!   host's atomics are system-wide, which is stronger); `atomicrmw` itself
//!   is kept: it is valid on x86;
//! - calls to `llvm.nvvm.*` intrinsics become calls to the emulator runtime
//!   (`llvm.nvvm.read.ptx.sreg.tid.x` → `i32 @__emu_tid_x()`, every
//!   `bar.sync` form → `@__emu_barrier_sync(i32)`, ...) or to the host
//!   equivalent (`llvm.nvvm.sqrt.rn.f` → `llvm.sqrt.f32`, ...), with the
//!   same arguments. An intrinsic without an equivalent (warp shuffles,
//!   cluster barriers, ...) is an error that names it.
//!
//! The result is parsed and verified before it is returned.

use crate::Diagnostic;
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;
use std::collections::{BTreeMap, BTreeSet};

/// The triple of retargeted modules.
pub const HOST_TRIPLE: &str = "x86_64-pc-linux-gnu";

/// The data layout of `x86_64-pc-linux-gnu` in LLVM 22.
pub const HOST_DATA_LAYOUT: &str =
    "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128";

/// What a call to an `llvm.nvvm.*` intrinsic becomes on the host.
#[derive(Clone, Debug, PartialEq, Eq)]
enum HostEquivalent {
    /// A function of the emulator runtime with the intrinsic's signature;
    /// the string is its full `declare` line.
    Runtime { name: String, declare: String },
    /// A target-independent LLVM intrinsic with the same signature (the
    /// parser declares intrinsics by itself).
    Intrinsic(String),
}

fn runtime(name: &str, ret: &str, params: &str, attrs: &str) -> HostEquivalent {
    HostEquivalent::Runtime {
        name: name.to_owned(),
        declare: format!("declare {ret} @{name}({params}) {attrs}"),
    }
}

/// The host equivalent of `llvm.nvvm.<rest>`, if there is one.
fn host_equivalent(full: &str) -> Option<HostEquivalent> {
    let rest = full.strip_prefix("llvm.nvvm.")?;
    // Thread and block coordinates: read-only for the life of a thread.
    const ID: &str = "nounwind memory(none)";
    // Barriers and fences order memory: the compiler must treat them as
    // reading and writing everything.
    const SYNC: &str = "convergent nounwind";
    if let Some(reg) = rest.strip_prefix("read.ptx.sreg.") {
        let name = match reg {
            "warpsize" => "__emu_warpsize".to_owned(),
            "laneid" => "__emu_laneid".to_owned(),
            "warpid" => "__emu_warpid".to_owned(),
            "nwarpid" => "__emu_nwarpid".to_owned(),
            _ => {
                let (kind, dim) = reg.split_once('.')?;
                if !matches!(kind, "tid" | "ntid" | "ctaid" | "nctaid")
                    || !matches!(dim, "x" | "y" | "z")
                {
                    return None;
                }
                format!("__emu_{kind}_{dim}")
            }
        };
        return Some(runtime(&name, "i32", "", ID));
    }
    match rest {
        "barrier0" => return Some(runtime("__emu_syncthreads", "void", "", SYNC)),
        "barrier.cta.sync.aligned.all" | "barrier.cta.sync.all" => {
            return Some(runtime("__emu_barrier_sync", "void", "i32", SYNC))
        }
        "barrier.cta.sync.aligned.count" | "barrier.cta.sync.count" => {
            return Some(runtime(
                "__emu_barrier_sync_count",
                "void",
                "i32, i32",
                SYNC,
            ))
        }
        "barrier.cta.red.popc.aligned.all" | "barrier.cta.red.popc.all" => {
            return Some(runtime("__emu_barrier_red_popc", "i32", "i32, i1", SYNC))
        }
        "barrier.cta.red.and.aligned.all" | "barrier.cta.red.and.all" => {
            return Some(runtime("__emu_barrier_red_and", "i1", "i32, i1", SYNC))
        }
        "barrier.cta.red.or.aligned.all" | "barrier.cta.red.or.all" => {
            return Some(runtime("__emu_barrier_red_or", "i1", "i32, i1", SYNC))
        }
        "membar.cta" | "membar.gl" | "membar.sys" => {
            return Some(runtime("__emu_threadfence", "void", "", SYNC))
        }
        "div.full" | "div.full.ftz" => {
            return Some(runtime("__emu_divf", "float", "float, float", ID))
        }
        _ => {}
    }
    math_equivalent(rest)
}

/// `sqrt.rn.f`, `fabs.ftz.f32`, `fmin.d`, `ex2.approx.f32`, `rcp.rn.d`, ...:
/// rounding modes and flush-to-zero are dropped (the host rounds to
/// nearest and keeps subnormals).
fn math_equivalent(rest: &str) -> Option<HostEquivalent> {
    let mut parts: Vec<&str> = rest.split('.').collect();
    let ty = match parts.pop()? {
        "f" | "f32" => "float",
        "d" | "f64" => "double",
        _ => return None,
    };
    let op = parts.first().copied()?;
    let mut nan = false;
    for p in &parts[1..] {
        match *p {
            "ftz" | "approx" | "rn" | "rm" | "rp" | "rz" => {}
            "nan" => nan = true,
            _ => return None, // sat, relu, xorsign, ...
        }
    }
    let suffix = if ty == "float" { "f32" } else { "f64" };
    let intrinsic = |base: &str| Some(HostEquivalent::Intrinsic(format!("llvm.{base}.{suffix}")));
    let c = if ty == "float" { "f" } else { "" };
    match (op, nan) {
        ("sqrt", false) => intrinsic("sqrt"),
        ("fabs", false) => intrinsic("fabs"),
        ("fmin", false) => intrinsic("minnum"),
        ("fmax", false) => intrinsic("maxnum"),
        ("fmin", true) => intrinsic("minimum"),
        ("fmax", true) => intrinsic("maximum"),
        ("ex2", false) => intrinsic("exp2"),
        ("lg2", false) => intrinsic("log2"),
        ("sin", false) => intrinsic("sin"),
        ("cos", false) => intrinsic("cos"),
        ("fma", false) => intrinsic("fma"),
        ("floor", false) => intrinsic("floor"),
        ("ceil", false) => intrinsic("ceil"),
        ("trunc", false) => intrinsic("trunc"),
        ("round", false) => intrinsic("roundeven"),
        ("rcp", false) => Some(runtime(
            &format!("__emu_rcp{c}"),
            ty,
            ty,
            "nounwind memory(none)",
        )),
        ("div", false) => Some(runtime(
            &format!("__emu_div{c}"),
            ty,
            &format!("{ty}, {ty}"),
            "nounwind memory(none)",
        )),
        ("saturate", false) => Some(runtime(
            &format!("__emu_saturate{c}"),
            ty,
            ty,
            "nounwind memory(none)",
        )),
        _ => None,
    }
}

fn is_name_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'-' | b'$' | b'.' | b'_')
}

/// A keyword may start at `i` only if the previous byte cannot be part of a
/// name (`%addrspace` is a value, `@ptx_kernel` a function).
fn at_word_start(b: &[u8], i: usize) -> bool {
    i == 0 || !(is_name_char(b[i - 1]) || matches!(b[i - 1], b'%' | b'@' | b'!' | b'#'))
}

/// `b[i..]` starts with the whole word `w`.
fn word_at(b: &[u8], i: usize, w: &str) -> bool {
    b[i..].starts_with(w.as_bytes())
        && at_word_start(b, i)
        && b.get(i + w.len()).is_none_or(|&c| !is_name_char(c))
}

/// Index just past a `"..."` string starting at `i` (IR strings escape `"`
/// as `\22`, so the next quote ends it).
fn skip_string(b: &[u8], i: usize) -> usize {
    match b[i + 1..].iter().position(|&c| c == b'"') {
        Some(p) => i + 1 + p + 1,
        None => b.len(),
    }
}

/// Skips a space after a removed token, so `ptr addrspace(3) @s` becomes
/// `ptr @s`.
fn skip_space(b: &[u8], i: usize) -> usize {
    if b.get(i) == Some(&b' ') {
        i + 1
    } else {
        i
    }
}

struct Rewriter {
    /// Runtime functions referenced, by name, with their `declare` line.
    runtime: BTreeMap<String, String>,
    /// `llvm.nvvm.*` names without a host equivalent, with their use counts.
    unsupported: BTreeMap<String, usize>,
}

impl Rewriter {
    /// Rewrites one line of code (not an `attributes` line): address
    /// spaces, casts, calling conventions, sync scopes, intrinsic names.
    fn code_line(&mut self, line: &str) -> String {
        let b = line.as_bytes();
        let mut out = String::with_capacity(line.len());
        let mut i = 0;
        let mut copied = 0;
        macro_rules! flush {
            ($upto:expr) => {
                out.push_str(&line[copied..$upto]);
            };
        }
        while i < b.len() {
            match b[i] {
                b';' => break, // a comment: keep as is
                b'"' => i = skip_string(b, i),
                b'a' if word_at(b, i, "addrspacecast") => {
                    flush!(i);
                    out.push_str("bitcast");
                    i += "addrspacecast".len();
                    copied = i;
                }
                b'a' if at_word_start(b, i) && b[i..].starts_with(b"addrspace(") => {
                    let close = b[i..].iter().position(|&c| c == b')').map(|p| i + p);
                    match close {
                        Some(close)
                            if b[i + "addrspace(".len()..close]
                                .iter()
                                .all(u8::is_ascii_digit) =>
                        {
                            flush!(i);
                            i = skip_space(b, close + 1);
                            copied = i;
                        }
                        _ => i += 1,
                    }
                }
                b'p' if word_at(b, i, "ptx_kernel") || word_at(b, i, "ptx_device") => {
                    flush!(i);
                    i = skip_space(b, i + "ptx_kernel".len());
                    copied = i;
                }
                b's' if at_word_start(b, i) && b[i..].starts_with(b"syncscope(\"") => {
                    let open = i + "syncscope(".len();
                    let end = skip_string(b, open);
                    let scope = line.get(open + 1..end.saturating_sub(1)).unwrap_or("");
                    if scope != "singlethread" && b.get(end) == Some(&b')') {
                        flush!(i);
                        i = skip_space(b, end + 1);
                        copied = i;
                    } else {
                        i = end;
                    }
                }
                b'@' if b[i + 1..].starts_with(b"llvm.nvvm.") => {
                    let start = i + 1;
                    let mut end = start;
                    while end < b.len() && is_name_char(b[end]) {
                        end += 1;
                    }
                    let name = &line[start..end];
                    match host_equivalent(name) {
                        Some(HostEquivalent::Intrinsic(new)) => {
                            flush!(start);
                            out.push_str(&new);
                            copied = end;
                        }
                        Some(HostEquivalent::Runtime { name: new, declare }) => {
                            flush!(start);
                            out.push_str(&new);
                            copied = end;
                            self.runtime.insert(new, declare);
                        }
                        None => *self.unsupported.entry(name.to_owned()).or_default() += 1,
                    }
                    i = end;
                }
                _ => i += 1,
            }
        }
        flush!(b.len());
        out
    }
}

/// Drops the NVPTX-only string attributes of an `attributes #N = { ... }`
/// line.
fn attributes_line(line: &str) -> String {
    let b = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut i = 0;
    let mut copied = 0;
    while i < b.len() {
        if b[i] != b'"' {
            i += 1;
            continue;
        }
        let key_end = skip_string(b, i);
        let key = line.get(i + 1..key_end.saturating_sub(1)).unwrap_or("");
        let mut end = key_end;
        if b.get(end) == Some(&b'=') && b.get(end + 1) == Some(&b'"') {
            end = skip_string(b, end + 1);
        }
        if matches!(key, "target-cpu" | "target-features") || key.starts_with("nvvm.") {
            out.push_str(&line[copied..i]);
            i = skip_space(b, end);
            copied = i;
        } else {
            i = end;
        }
    }
    out.push_str(&line[copied..]);
    out
}

/// The function a `declare`/`define` line is about (its first `@name`
/// outside strings).
fn declared_name(line: &str) -> Option<&str> {
    let b = line.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'"' => i = skip_string(b, i),
            b';' => return None,
            b'@' => {
                let start = i + 1;
                if b.get(start) == Some(&b'"') {
                    let end = skip_string(b, start);
                    return line.get(start + 1..end.saturating_sub(1));
                }
                let mut end = start;
                while end < b.len() && is_name_char(b[end]) {
                    end += 1;
                }
                return Some(&line[start..end]);
            }
            _ => i += 1,
        }
    }
    None
}

/// Rewrites a module compiled for `nvptx64-nvidia-cuda` (as textual IR) into
/// one for the host whose kernels run on the CPU SIMT emulator
/// (`runtime/emu/`): host triple and data layout, no address spaces, no
/// `ptx_kernel` calling convention, no NVPTX attributes or annotations,
/// thread ids and barriers as calls to the emulator runtime (`__emu_*`),
/// NVPTX math intrinsics as their generic equivalents. `atomicrmw` is kept.
///
/// The result is parsed and verified by LLVM and returned as printed by it.
/// A module that is not NVPTX passes through with only its triple and data
/// layout changed.
///
/// # Errors
///
/// A [`Diagnostic`] if the module uses an `llvm.nvvm.*` intrinsic the
/// emulator has no equivalent for, or if the rewritten module does not
/// parse or verify.
pub fn retarget_to_host(ir_text: &str) -> Result<String, Diagnostic> {
    let mut rw = Rewriter {
        runtime: BTreeMap::new(),
        unsupported: BTreeMap::new(),
    };
    let mut out = String::with_capacity(ir_text.len() + 1024);
    let mut defined: BTreeSet<String> = BTreeSet::new();
    let mut saw_layout = false;
    let mut saw_triple = false;
    for line in ir_text.lines() {
        let t = line.trim_start();
        if t.starts_with("target datalayout") {
            out.push_str(&format!("target datalayout = \"{HOST_DATA_LAYOUT}\"\n"));
            saw_layout = true;
            continue;
        }
        if t.starts_with("target triple") {
            out.push_str(&format!("target triple = \"{HOST_TRIPLE}\"\n"));
            saw_triple = true;
            continue;
        }
        if t.starts_with("!nvvm.annotations") {
            continue;
        }
        if t.starts_with("attributes #") {
            out.push_str(&attributes_line(line));
            out.push('\n');
            continue;
        }
        let is_decl = t.starts_with("declare ");
        if is_decl || t.starts_with("define ") {
            if let Some(name) = declared_name(t) {
                // The intrinsics' own declarations go: calls are renamed,
                // and the new callees are declared below.
                if is_decl && name.starts_with("llvm.nvvm.") {
                    continue;
                }
                defined.insert(name.to_owned());
            }
        }
        out.push_str(&rw.code_line(line));
        out.push('\n');
    }
    if !rw.unsupported.is_empty() {
        let list: Vec<String> = rw
            .unsupported
            .iter()
            .map(|(n, k)| format!("`{n}` ({k} use{})", if *k == 1 { "" } else { "s" }))
            .collect();
        return Err(Diagnostic::new(format!(
            "cannot retarget the module to the host: the CPU SIMT emulator has no equivalent for {}",
            list.join(", ")
        ))
        .help(
            "the emulator supports thread/block ids and dimensions, lane/warp ids, \
             __syncthreads and __syncthreads_count/_and/_or, __threadfence, atomics \
             (atomicrmw/cmpxchg), and the NVVM sqrt/fabs/fmin/fmax/ex2/lg2/sin/cos/fma/\
             floor/ceil/trunc/round/rcp/div/saturate intrinsics",
        ));
    }
    let mut text = String::new();
    if !saw_layout {
        text.push_str(&format!("target datalayout = \"{HOST_DATA_LAYOUT}\"\n"));
    }
    if !saw_triple {
        text.push_str(&format!("target triple = \"{HOST_TRIPLE}\"\n"));
    }
    text.push_str(&out);
    let new_decls: Vec<&String> = rw
        .runtime
        .iter()
        .filter(|(name, _)| !defined.contains(*name))
        .map(|(_, decl)| decl)
        .collect();
    if !new_decls.is_empty() {
        text.push_str("\n; CPU SIMT emulator runtime (runtime/emu/emu.c)\n");
        for d in new_decls {
            text.push_str(d);
            text.push('\n');
        }
    }
    parse_and_verify(&text)
}

/// Parses `text` with LLVM, verifies it, and prints it back.
fn parse_and_verify(text: &str) -> Result<String, Diagnostic> {
    let context = Context::create();
    let mut bytes = text.as_bytes().to_vec();
    bytes.push(0);
    let buf = MemoryBuffer::create_from_memory_range_copy(&bytes[..bytes.len() - 1], "retargeted");
    let module = context.create_module_from_ir(buf).map_err(|e| {
        let msg = e.to_string();
        Diagnostic::new(format!(
            "the module retargeted to the host does not parse: {}",
            msg.trim()
        ))
        .help("this is a bug in enz-rs's retargeting for the CPU emulator (gpu/emulate.rs)")
    })?;
    module.verify().map_err(|e| {
        Diagnostic::new(format!(
            "the module retargeted to the host is not valid: {}",
            e.to_string().trim()
        ))
        .help("this is a bug in enz-rs's retargeting for the CPU emulator (gpu/emulate.rs)")
    })?;
    Ok(module.print_to_string().to_string())
}

#[cfg(test)]
mod tests;
