//! Turning an llvm-stress module into an enz-rs input: optional
//! floating-point retyping (llvm-stress 22 only emits `float` and `double`;
//! its old `--generate-fp128` style options are gone), and a driver
//! function that calls `__enzyme_autodiff` / `__enzyme_fwddiff` on the
//! generated function with a randomly shaped argument list, in the exact
//! shape clang emits for `__enzyme_autodiff((void *)f, enzyme_dup, x, dx, ...)`.

use super::common::Rng;
use std::fmt::Write as _;

/// Which entry point the driver calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Reverse,
    Forward,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Reverse => "rev",
            Mode::Forward => "fwd",
        }
    }

    fn entry(self) -> &'static str {
        match self {
            Mode::Reverse => "__enzyme_autodiff",
            Mode::Forward => "__enzyme_fwddiff",
        }
    }
}

/// The generated function: its name, return type and parameter types.
#[derive(Clone, Debug)]
pub struct Signature {
    pub name: String,
    pub ret: String,
    pub params: Vec<String>,
}

/// Finds the first `define` in `module` and reads its signature
/// (`define void @autogen_SD5(ptr %0, ptr %1, ptr %2, i32 %3, i64 %4, i8 %5)`).
pub fn signature(module: &str) -> Option<Signature> {
    let line = module.lines().find(|l| l.starts_with("define "))?;
    let at = line.find('@')?;
    let open = at + line[at..].find('(')?;
    let close = line.rfind(')')?;
    let ret = line["define ".len()..at]
        .split_whitespace()
        .last()?
        .to_string();
    let name = line[at + 1..open].to_string();
    let inner = &line[open + 1..close];
    let params = split_top(inner)
        .into_iter()
        .map(|p| leading_type(p.trim()))
        .collect::<Option<Vec<_>>>()?;
    Some(Signature { name, ret, params })
}

/// Splits `s` at the commas outside any brackets (parameter lists of
/// optimised IR carry attributes such as `initializes((0, 4))`).
fn split_top(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' | '[' | '<' | '{' => depth += 1,
            ')' | ']' | '>' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !s[start..].trim().is_empty() {
        out.push(&s[start..]);
    }
    out
}

/// The type a parameter starts with: one word, or a bracketed aggregate or
/// vector type (`<vscale x 4 x i32>`).
fn leading_type(p: &str) -> Option<String> {
    let close = match p.chars().next()? {
        '<' => '>',
        '[' => ']',
        '{' => '}',
        _ => return p.split_whitespace().next().map(str::to_string),
    };
    let mut depth = 0;
    for (i, c) in p.char_indices() {
        if "<[{".contains(c) {
            depth += 1;
        } else if "}]>".contains(c) {
            depth -= 1;
            if depth == 0 && c == close {
                return Some(p[..=i].to_string());
            }
        }
    }
    None
}

/// A floating-point type llvm-stress does not generate, with the prefix and
/// hex width of its constants.
pub const RETYPES: [(&str, &str, usize); 5] = [
    ("half", "0xH", 4),
    ("bfloat", "0xR", 4),
    ("fp128", "0xL", 32),
    ("x86_fp80", "0xK", 20),
    ("ppc_fp128", "0xM", 32),
];

/// Replaces the type `from` (`double` or `float`) by `to` on every line
/// that mentions `from` and not the other IR float type, rewriting the
/// 16-digit hex constants on those lines to `to`'s constant syntax. The
/// result may not assemble (mixed lines, casts); the caller checks.
pub fn retype(module: &str, from: &str, to: (&str, &str, usize)) -> String {
    let other = if from == "double" { "float" } else { "double" };
    let mut out = String::with_capacity(module.len());
    for line in module.lines() {
        let has = |t: &str| {
            line.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .any(|w| w == t)
        };
        if has(from) && !has(other) && !line.starts_with("define") {
            let replaced = replace_word(line, from, to.0);
            out.push_str(&rewrite_hex(&replaced, to.1, to.2));
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

fn replace_word(line: &str, from: &str, to: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(i) = rest.find(from) {
        let before_ok = i == 0 || !is_word(rest.as_bytes()[i - 1]);
        let after = i + from.len();
        let after_ok = after >= rest.len() || !is_word(rest.as_bytes()[after]);
        out.push_str(&rest[..i]);
        out.push_str(if before_ok && after_ok { to } else { from });
        rest = &rest[after..];
    }
    out.push_str(rest);
    out
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// `0x0123456789ABCDEF` (exactly 16 hex digits) -> `prefix` + `width`
/// digits (the low digits kept, padded or cut).
fn rewrite_hex(line: &str, prefix: &str, width: usize) -> String {
    let b = line.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'0' && i + 1 < b.len() && b[i + 1] == b'x' && (i == 0 || !is_word(b[i - 1])) {
            let start = i + 2;
            let mut end = start;
            while end < b.len() && b[end].is_ascii_hexdigit() {
                end += 1;
            }
            if end - start == 16 && (end == b.len() || !is_word(b[end])) {
                let digits = &line[start..end];
                let fitted = if width >= 16 {
                    format!("{}{}", "0".repeat(width - 16), digits)
                } else {
                    digits[16 - width..].to_string()
                };
                out.push_str(prefix);
                out.push_str(&fitted);
                i = end;
                continue;
            }
        }
        out.push(b[i] as char);
        i += 1;
    }
    out
}

fn is_float_ty(t: &str) -> bool {
    matches!(
        t,
        "half" | "bfloat" | "float" | "double" | "fp128" | "x86_fp80" | "ppc_fp128"
    )
}

/// `define void @enz_stress_wrap(<sig's params>)` calling `sig` `calls`
/// times with the same arguments (the function returns void or a value
/// that is dropped).
pub fn wrapper(sig: &Signature, calls: usize) -> String {
    let params: Vec<String> = sig
        .params
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{t} %w{i}"))
        .collect();
    let mut body = String::new();
    for _ in 0..calls {
        let _ = writeln!(
            body,
            "  call {} @{}({})",
            sig.ret,
            sig.name,
            params.join(", ")
        );
    }
    format!(
        "\ndefine void @enz_stress_wrap({}) {{\nentry:\n{body}  ret void\n}}\n",
        params.join(", ")
    )
}

/// How one call site passes the function's arguments.
#[derive(Clone, Copy, Debug)]
pub enum Shape {
    /// Every pointer `enzyme_dup p, dp`; integers plain.
    AllDup,
    /// No markers at all: the defaults (pointers dup).
    Defaults,
    /// A random marker per argument (dup, dupnoneed, const, none).
    Mixed,
    /// Every pointer `enzyme_const`, integers `enzyme_const` too.
    AllConst,
}

pub const SHAPES: [Shape; 4] = [
    Shape::AllDup,
    Shape::Defaults,
    Shape::Mixed,
    Shape::AllConst,
];

/// The driver to append to the generated module, and a description of it
/// for notes. `calls` call sites, each with its own shape; `promote_i8`
/// passes i8/i16 arguments promoted to i32, as C varargs would.
pub fn driver(sig: &Signature, mode: Mode, rng: &mut Rng) -> (String, String) {
    let calls = if rng.chance(0.2) { 2 } else { 1 };
    let promote = rng.chance(0.2);
    let mut desc = format!("{} promote={}", mode.name(), promote);
    let mut params = Vec::new();
    for (i, t) in sig.params.iter().enumerate() {
        params.push(format!("{t} %p{i}"));
        if t == "ptr" || (mode == Mode::Forward && is_float_ty(t)) {
            params.push(format!("{t} %d{i}"));
        }
    }
    let ret = if mode == Mode::Forward && is_float_ty(&sig.ret) {
        sig.ret.clone()
    } else if mode == Mode::Reverse {
        // One `out` float param at most gets returned; llvm-stress functions
        // have none, so void. Retyped modules keep ptr/int params only.
        "void".to_string()
    } else {
        "void".to_string()
    };
    let mut body = String::new();
    let mut markers_used = std::collections::BTreeSet::new();
    let mut tmp = 0;
    for c in 0..calls {
        let shape = *rng.pick(&SHAPES);
        let _ = write!(desc, " call{c}={shape:?}");
        let mut args = vec![format!("ptr @{}", sig.name)];
        for (i, t) in sig.params.iter().enumerate() {
            let marker = |m: &str,
                          body: &mut String,
                          tmp: &mut usize,
                          used: &mut std::collections::BTreeSet<String>| {
                used.insert(m.to_string());
                let _ = writeln!(body, "  %m{} = load i32, ptr @{m}, align 4", *tmp);
                *tmp += 1;
                format!("i32 %m{}", *tmp - 1)
            };
            if t == "ptr" {
                let choice = match shape {
                    Shape::AllDup => 0,
                    Shape::Defaults => 3,
                    Shape::AllConst => 2,
                    Shape::Mixed => rng.below(4),
                };
                match choice {
                    0 | 1 => {
                        let m = if choice == 0 {
                            "enzyme_dup"
                        } else {
                            "enzyme_dupnoneed"
                        };
                        args.push(marker(m, &mut body, &mut tmp, &mut markers_used));
                        args.push(format!("ptr %p{i}"));
                        args.push(format!("ptr %d{i}"));
                    }
                    2 => {
                        args.push(marker(
                            "enzyme_const",
                            &mut body,
                            &mut tmp,
                            &mut markers_used,
                        ));
                        args.push(format!("ptr %p{i}"));
                    }
                    _ => {
                        args.push(format!("ptr %p{i}"));
                        args.push(format!("ptr %d{i}"));
                    }
                }
            } else if is_float_ty(t) {
                if mode == Mode::Forward {
                    args.push(format!("{t} %p{i}"));
                    args.push(format!("{t} %d{i}"));
                } else {
                    args.push(format!("{t} %p{i}"));
                }
            } else {
                let const_marker = match shape {
                    Shape::AllConst => true,
                    Shape::Mixed => rng.chance(0.3),
                    _ => false,
                };
                if const_marker {
                    args.push(marker(
                        "enzyme_const",
                        &mut body,
                        &mut tmp,
                        &mut markers_used,
                    ));
                }
                if promote && (t == "i8" || t == "i16") {
                    let _ = writeln!(body, "  %x{tmp} = sext {t} %p{i} to i32");
                    args.push(format!("i32 %x{tmp}"));
                    tmp += 1;
                } else {
                    args.push(format!("{t} %p{i}"));
                }
            }
        }
        let _ = writeln!(
            body,
            "  {}call {ret} (ptr, ...) @{}({})",
            if ret == "void" {
                String::new()
            } else {
                format!("%r{c} = ")
            },
            mode.entry(),
            args.join(", ")
        );
    }
    let mut text = String::from("\n; enz-fuzz stress driver\n");
    for m in &markers_used {
        let _ = writeln!(text, "@{m} = external global i32, align 4");
    }
    let _ = writeln!(text, "declare {ret} @{}(ptr, ...)", mode.entry());
    let _ = writeln!(
        text,
        "define void @enz_stress_driver({}) {{\nentry:\n{body}  ret void\n}}",
        params.join(", ")
    );
    (text, desc)
}
