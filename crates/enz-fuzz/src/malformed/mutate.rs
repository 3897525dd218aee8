//! Mutations of valid seed inputs: truncated bitcode, byte-flipped
//! bitcode (recording each change so a failing case can be minimised),
//! and edits of textual IR.

use crate::stress::common::Rng;

/// One byte change of a flipped input: at `pos`, `old` became `new`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flip {
    pub pos: usize,
    pub old: u8,
    pub new: u8,
}

/// Truncates `bc` to a random length: anywhere, but the very start, the
/// end, and (for 32-bit-aligned bitstreams) word boundaries more often.
pub fn truncate(bc: &[u8], rng: &mut Rng) -> (Vec<u8>, String) {
    let n = bc.len();
    let len = match rng.below(4) {
        0 => rng.below(64.min(n)),
        1 => n - 1 - rng.below(64.min(n)),
        2 => rng.below(n / 4) * 4,
        _ => rng.below(n),
    };
    (bc[..len].to_vec(), format!("truncate {len}/{n}"))
}

/// Changes 1..=8 bytes of `bc`: a random new value, or one flipped bit.
/// The 4-byte magic is left alone most of the time (otherwise the input is
/// simply not bitcode), and the changes cluster on some seeds.
pub fn flip(bc: &[u8], rng: &mut Rng) -> (Vec<u8>, Vec<Flip>) {
    let mut out = bc.to_vec();
    let n = out.len();
    let k = rng.range(1, 8);
    let lo = if rng.chance(0.95) { 4.min(n) } else { 0 };
    let cluster = rng.chance(0.3).then(|| lo + rng.below(n - lo));
    let mut flips: Vec<Flip> = Vec::new();
    for _ in 0..k {
        let pos = match cluster {
            Some(c) => (c + rng.below(16)).min(n - 1),
            None => lo + rng.below(n - lo),
        };
        let old = out[pos];
        let new = if rng.chance(0.5) {
            old ^ (1 << rng.below(8))
        } else {
            rng.next_u64() as u8
        };
        if new == old || flips.iter().any(|f| f.pos == pos) {
            continue;
        }
        out[pos] = new;
        flips.push(Flip { pos, old, new });
    }
    if flips.is_empty() {
        let pos = lo + rng.below(n - lo);
        let old = out[pos];
        out[pos] = old ^ 0x80;
        flips.push(Flip {
            pos,
            old,
            new: old ^ 0x80,
        });
    }
    (out, flips)
}

/// `bc` with only `flips` applied.
pub fn apply(bc: &[u8], flips: &[Flip]) -> Vec<u8> {
    let mut out = bc.to_vec();
    for f in flips {
        out[f.pos] = f.new;
    }
    out
}

/// How a flip list reads in a note: `@pos:old->new`.
pub fn describe(flips: &[Flip]) -> String {
    let parts: Vec<String> = flips
        .iter()
        .map(|f| format!("@{}:{:02x}->{:02x}", f.pos, f.old, f.new))
        .collect();
    format!("flip {}", parts.join(","))
}

const TYPES: [&str; 14] = [
    "double",
    "float",
    "half",
    "fp128",
    "x86_fp80",
    "i1",
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "ptr",
    "void",
    "<2 x double>",
];

const MARKERS: [&str; 9] = [
    "@enzyme_dup",
    "@enzyme_const",
    "@enzyme_out",
    "@enzyme_dupnoneed",
    "@enzyme_width",
    "@enzyme_allocated",
    "@enzyme_tape",
    "@enzyme_scalar",
    "@enzyme_bogus",
];

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

/// Byte offsets of whole-word occurrences of `w` in `s`.
fn word_positions(s: &str, w: &str) -> Vec<usize> {
    s.match_indices(w)
        .filter(|(i, _)| {
            let before = s[..*i].chars().next_back().is_none_or(|c| !is_word(c));
            let after = s[i + w.len()..].chars().next().is_none_or(|c| !is_word(c));
            before && after
        })
        .map(|(i, _)| i)
        .collect()
}

/// Applies 1..=3 random edits to textual IR; returns the text and what was
/// done (`delete-line 12; swap-tokens 30`).
pub fn edit_text(text: &str, rng: &mut Rng) -> (String, String) {
    let mut t = text.to_string();
    let mut what = Vec::new();
    for _ in 0..rng.range(1, 3) {
        let (nt, w) = edit_once(&t, rng);
        t = nt;
        what.push(w);
    }
    (t, what.join("; "))
}

/// Index of a random line that is neither empty nor a comment, preferring
/// lines inside function bodies (indented), where edits are subtler.
fn pick_line(lines: &[&str], rng: &mut Rng) -> usize {
    let body: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with("  ") && !lines[i].trim_start().starts_with(';'))
        .collect();
    if !body.is_empty() && rng.chance(0.8) {
        *rng.pick(&body)
    } else {
        rng.below(lines.len())
    }
}

fn edit_once(text: &str, rng: &mut Rng) -> (String, String) {
    let lines: Vec<&str> = text.lines().collect();
    if lines.is_empty() {
        return (text.to_string(), "empty".into());
    }
    let join = |ls: Vec<String>| ls.join("\n") + "\n";
    let owned = || lines.iter().map(|l| l.to_string()).collect::<Vec<String>>();
    match rng.below(10) {
        0 => {
            let i = pick_line(&lines, rng);
            let mut ls = owned();
            ls.remove(i);
            (join(ls), format!("delete-line {}", i + 1))
        }
        1 => {
            let i = pick_line(&lines, rng);
            let mut ls = owned();
            let dup = ls[i].clone();
            ls.insert(i, dup);
            (join(ls), format!("duplicate-line {}", i + 1))
        }
        2 => {
            // Swap two tokens of one line.
            let i = pick_line(&lines, rng);
            let mut toks: Vec<String> = lines[i].split(' ').map(str::to_string).collect();
            if toks.len() < 2 {
                return (text.to_string(), "swap-tokens (none)".into());
            }
            let a = rng.below(toks.len());
            let b = rng.below(toks.len());
            toks.swap(a, b);
            let mut ls = owned();
            ls[i] = toks.join(" ");
            (join(ls), format!("swap-tokens {}:{a},{b}", i + 1))
        }
        3 | 4 => {
            // Change one occurrence of a type name.
            let from = *rng.pick(&TYPES);
            let pos = word_positions(text, from);
            if pos.is_empty() {
                return (text.to_string(), format!("retype (no {from})"));
            }
            let p = *rng.pick(&pos);
            let to = *rng.pick(&TYPES);
            let t = format!("{}{}{}", &text[..p], to, &text[p + from.len()..]);
            let line = text[..p].matches('\n').count() + 1;
            (t, format!("retype {from}->{to} line {line}"))
        }
        5 => {
            let pos: Vec<usize> = text.match_indices('}').map(|(i, _)| i).collect();
            if pos.is_empty() {
                return (text.to_string(), "drop-brace (none)".into());
            }
            let p = *rng.pick(&pos);
            let line = text[..p].matches('\n').count() + 1;
            (
                format!("{}{}", &text[..p], &text[p + 1..]),
                format!("drop-brace line {line}"),
            )
        }
        6 => {
            // Replace one activity marker global by another (valid IR,
            // wrong call site).
            let present: Vec<&str> = MARKERS
                .iter()
                .copied()
                .filter(|m| !word_positions(text, m).is_empty())
                .collect();
            if present.is_empty() {
                return (text.to_string(), "swap-marker (none)".into());
            }
            let from = *rng.pick(&present);
            let pos = word_positions(text, from);
            let p = *rng.pick(&pos);
            let to = *rng.pick(&MARKERS);
            let mut t = format!("{}{}{}", &text[..p], to, &text[p + from.len()..]);
            if word_positions(&t, &format!("{to} =")).is_empty() && !t.contains(&format!("{to} ="))
            {
                t.push_str(&format!("{to} = external global i32, align 4\n"));
            }
            (t, format!("swap-marker {from}->{to}"))
        }
        7 => {
            // Replace a reference to one global by another (callee of the
            // entry point becomes a marker, the caller itself, ...).
            let mut names: Vec<&str> = Vec::new();
            for l in &lines {
                if let Some(rest) = l
                    .strip_prefix("define ")
                    .or_else(|| l.strip_prefix("declare "))
                {
                    if let Some(a) = rest.find('@') {
                        let n = &rest[a..];
                        let end = n.find('(').unwrap_or(n.len());
                        names.push(&n[..end]);
                    }
                } else if l.starts_with('@') {
                    let end = l.find(' ').unwrap_or(l.len());
                    names.push(&l[..end]);
                }
            }
            if names.len() < 2 {
                return (text.to_string(), "swap-global (none)".into());
            }
            let from = *rng.pick(&names);
            let to = *rng.pick(&names);
            let uses: Vec<usize> = word_positions(text, from)
                .into_iter()
                .filter(|&p| {
                    let ls = text[..p].rfind('\n').map_or(0, |i| i + 1);
                    let line = &text[ls..];
                    !line.starts_with("define")
                        && !line.starts_with("declare")
                        && !line.starts_with('@')
                })
                .collect();
            if uses.is_empty() {
                return (text.to_string(), format!("swap-global (no use of {from})"));
            }
            let p = *rng.pick(&uses);
            (
                format!("{}{}{}", &text[..p], to, &text[p + from.len()..]),
                format!("swap-global {from}->{to}"),
            )
        }
        8 => {
            // Drop or duplicate one argument of an __enzyme_* call.
            let calls: Vec<usize> = (0..lines.len())
                .filter(|&i| lines[i].contains("@__enzyme_") && lines[i].contains("call"))
                .collect();
            if calls.is_empty() {
                return (text.to_string(), "call-arg (no call)".into());
            }
            let i = *rng.pick(&calls);
            let l = lines[i];
            let Some(open) = l
                .find("@__enzyme_")
                .and_then(|s| l[s..].find('(').map(|o| s + o))
            else {
                return (text.to_string(), "call-arg (unparsed)".into());
            };
            let Some(close) = l.rfind(')') else {
                return (text.to_string(), "call-arg (unparsed)".into());
            };
            let mut args: Vec<String> =
                l[open + 1..close].split(", ").map(str::to_string).collect();
            let a = rng.below(args.len());
            let what = if rng.chance(0.5) && args.len() > 1 {
                args.remove(a);
                format!("call-arg drop #{a} line {}", i + 1)
            } else {
                let d = args[a].clone();
                args.insert(a, d);
                format!("call-arg dup #{a} line {}", i + 1)
            };
            let mut ls = owned();
            ls[i] = format!("{}{}{}", &l[..=open], args.join(", "), &l[close..]);
            (join(ls), what)
        }
        _ => {
            // Change a number (an alignment, a constant, a GEP index).
            let nums: Vec<(usize, usize)> = {
                let b = text.as_bytes();
                let mut v = Vec::new();
                let mut i = 0;
                while i < b.len() {
                    if b[i].is_ascii_digit() && (i == 0 || b[i - 1] == b' ') {
                        let s = i;
                        while i < b.len() && b[i].is_ascii_digit() {
                            i += 1;
                        }
                        v.push((s, i));
                    } else {
                        i += 1;
                    }
                }
                v
            };
            if nums.is_empty() {
                return (text.to_string(), "renumber (none)".into());
            }
            let (s, e) = *rng.pick(&nums);
            let new = *rng.pick(&[
                "0",
                "1",
                "3",
                "-1",
                "4294967296",
                "65536",
                "1024",
                "999999999",
            ]);
            let line = text[..s].matches('\n').count() + 1;
            (
                format!("{}{}{}", &text[..s], new, &text[e..]),
                format!("renumber {}->{new} line {line}", &text[s..e]),
            )
        }
    }
}
