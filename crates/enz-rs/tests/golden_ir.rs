//! Golden IR tests: what synthesis emits, compared line by line with a
//! committed expectation.
//!
//! Every `tests/inputs/golden/NAME.ll` is one trial, `NAME`: a small
//! module with `__enzyme_*` call sites (generated once from the C source
//! quoted in its header comment), differentiated by `enz-rs NAME.ll -O0 -S`
//! plus the arguments of its `; enz-args: ...` lines (no re-optimisation,
//! so the output is what synthesis wrote). The trial
//!
//! 1. checks that the input verifies (`opt -passes=verify`);
//! 2. runs enz-rs twice and requires byte-identical output (determinism);
//! 3. checks that the output verifies;
//! 4. normalises the output (below) and compares it with
//!    `NAME.expected`; a mismatch prints a diff.
//!
//! The normalised print keeps only what enz-rs made or rewrote: function
//! definitions and global variables absent from the input (derivatives,
//! their helpers, shadow globals) and the input's functions that held an
//! `__enzyme_*` call (the rewritten call sites), in module order; it drops
//! the header, declarations, comments, attribute-group references
//! (`#N`), and writes every metadata reference as `!N`, so that
//! renumbering alone changes nothing.
//!
//! `ENZ_RS_BLESS=1 cargo test -p enz-rs --test golden_ir` rewrites the
//! expected files from the current output instead of comparing (review the
//! result with `git diff`). `ENZ_OPT` chooses `opt` (default `opt-22`).

mod common;

use common::{find_tool, run};
use libtest_mimic::{Arguments, Failed, Trial};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The variable that turns comparison into rewriting the expectation.
const BLESS: &str = "ENZ_RS_BLESS";

fn main() {
    let args = Arguments::from_args();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/inputs/golden");
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ll"))
        .collect();
    inputs.sort();
    assert!(!inputs.is_empty(), "no inputs in {}", dir.display());
    let mut trials: Vec<Trial> = inputs
        .iter()
        .map(|input| {
            let name = input.file_stem().unwrap().to_string_lossy().into_owned();
            let input = input.clone();
            Trial::test(name, move || run_case(&input))
        })
        .collect();
    trials.push(Trial::test("every_expectation_has_an_input", move || {
        orphans(&dir)
    }));
    trials.push(Trial::test("normalising_print", self_check));
    libtest_mimic::run(&args, trials).exit();
}

fn blessing() -> bool {
    std::env::var_os(BLESS).is_some_and(|v| !v.is_empty() && v != "0")
}

fn run_case(input: &Path) -> Result<(), Failed> {
    let name = input.file_stem().unwrap().to_string_lossy().into_owned();
    let source = std::fs::read_to_string(input)
        .map_err(|e| format!("cannot read {}: {e}", input.display()))?;
    let enz_args = enz_args_of(&source);
    let opt = find_tool("ENZ_OPT", "opt-22", "opt");
    verify(&opt, input, "verify the input")?;

    let dir = tempfile::Builder::new()
        .prefix("enz-golden-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    let mut outputs = Vec::new();
    for k in 0..2 {
        let out = dir.path().join(format!("{name}.{k}.ll"));
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_enz-rs"));
        cmd.arg(input)
            .args(["-O0", "-S"])
            .args(&enz_args)
            .arg("-o")
            .arg(&out);
        run(&mut cmd, "differentiate")?;
        outputs.push(
            std::fs::read_to_string(&out)
                .map_err(|e| format!("cannot read {}: {e}", out.display()))?,
        );
    }
    if outputs[0] != outputs[1] {
        return Err(format!(
            "enz-rs is not deterministic: two runs on {} differ\n{}",
            input.display(),
            diff(&outputs[0], &outputs[1], "first run", "second run")
        )
        .into());
    }
    verify(
        &opt,
        &dir.path().join(format!("{name}.0.ll")),
        "verify the output",
    )?;

    let mut got = format!(
        "; enz-rs -O0 -S{}{} on {name}.ll, normalised (tests/golden_ir.rs)\n",
        if enz_args.is_empty() { "" } else { " " },
        enz_args.join(" ")
    );
    got.push_str(&normalise(&source, &outputs[0]));
    let expected_path = input.with_extension("expected");
    if blessing() {
        std::fs::write(&expected_path, &got)
            .map_err(|e| format!("cannot write {}: {e}", expected_path.display()))?;
        return Ok(());
    }
    let bless = format!("{BLESS}=1 cargo test -p enz-rs --test golden_ir -- {name} --exact");
    let expected = match std::fs::read_to_string(&expected_path) {
        Ok(s) => s,
        Err(e) => {
            return Err(format!(
                "cannot read {}: {e}\nto create it from the current output: {bless}",
                expected_path.display()
            )
            .into())
        }
    };
    if expected == got {
        return Ok(());
    }
    Err(format!(
        "the derivative IR of {} differs from {}\n{}\nif the new output is intended: {bless}",
        input.display(),
        expected_path.display(),
        diff(&expected, &got, "expected", "actual")
    )
    .into())
}

/// The words of the input's `; enz-args: ...` lines, in order.
fn enz_args_of(source: &str) -> Vec<String> {
    source
        .lines()
        .filter_map(|l| l.trim().strip_prefix("; enz-args:"))
        .flat_map(|rest| rest.split_whitespace().map(str::to_owned))
        .collect()
}

fn verify(opt: &Path, file: &Path, what: &str) -> Result<(), String> {
    run(
        Command::new(opt)
            .arg("-passes=verify")
            .arg("-disable-output")
            .arg(file),
        what,
    )
    .map(|_| ())
}

/// An expected file whose input is gone is a stale golden.
fn orphans(dir: &Path) -> Result<(), Failed> {
    let stale: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "expected"))
        .filter(|p| !p.with_extension("ll").is_file())
        .map(|p| p.display().to_string())
        .collect();
    if stale.is_empty() {
        Ok(())
    } else {
        Err(format!("expected files without an input .ll: {stale:?}").into())
    }
}

/// A top-level item of a textual module that the comparison may keep.
enum Item {
    Function { name: String, lines: Vec<String> },
    Global { name: String, line: String },
}

/// The name after the first `@` of `line`, up to `(`, ` ` or `=`
/// (quoted names whole).
fn symbol(line: &str) -> Option<String> {
    let at = line.find('@')? + 1;
    let rest = &line[at..];
    if let Some(q) = rest.strip_prefix('"') {
        return q.find('"').map(|end| format!("\"{}\"", &q[..end]));
    }
    let end = rest.find(['(', ' ', '=']).unwrap_or(rest.len());
    Some(rest[..end].to_string())
}

/// Function definitions and global variables of a textual module, in order.
fn items(ir: &str) -> Vec<Item> {
    let mut out = Vec::new();
    let mut lines = ir.lines();
    while let Some(line) = lines.next() {
        if line.starts_with("define ") {
            let name = symbol(line).unwrap_or_default();
            let mut body = vec![line.to_string()];
            for l in lines.by_ref() {
                body.push(l.to_string());
                if l == "}" {
                    break;
                }
            }
            out.push(Item::Function { name, lines: body });
        } else if line.starts_with('@') {
            let name = symbol(line).unwrap_or_default();
            out.push(Item::Global {
                name,
                line: line.to_string(),
            });
        }
    }
    out
}

/// The part of `output` enz-rs made or rewrote, printed without numbering
/// noise (see the module's documentation).
fn normalise(input: &str, output: &str) -> String {
    let mut known = HashSet::new();
    let mut call_sites = HashSet::new();
    for item in items(input) {
        match item {
            Item::Function { name, lines } => {
                if lines.iter().any(|l| l.contains("@__enzyme_")) {
                    call_sites.insert(name.clone());
                }
                known.insert(name);
            }
            Item::Global { name, .. } => {
                known.insert(name);
            }
        }
    }
    let mut out = String::new();
    for item in items(output) {
        match item {
            Item::Global { name, line } if !known.contains(&name) => {
                out.push('\n');
                out.push_str(&clean_line(&line));
                out.push('\n');
            }
            Item::Function { name, lines }
                if !known.contains(&name) || call_sites.contains(&name) =>
            {
                out.push('\n');
                for l in lines {
                    if l.trim_start().starts_with(';') {
                        continue;
                    }
                    out.push_str(&clean_line(&l));
                    out.push('\n');
                }
            }
            _ => {}
        }
    }
    out
}

/// One line without its trailing comment, attribute-group references, or
/// metadata numbers (`!12` becomes `!N`).
fn clean_line(line: &str) -> String {
    // A `;` outside a string starts a comment (`; preds = ...`).
    let mut in_string = false;
    let mut cut = line.len();
    for (i, c) in line.char_indices() {
        match c {
            '"' => in_string = !in_string,
            ';' if !in_string => {
                cut = i;
                break;
            }
            _ => {}
        }
    }
    let line: Vec<char> = line[..cut].trim_end().chars().collect();
    let digits_from = |k: usize| {
        line[k.min(line.len())..]
            .iter()
            .take_while(|d| d.is_ascii_digit())
            .count()
    };
    let mut out = String::with_capacity(line.len());
    let mut in_string = false;
    let mut k = 0;
    while k < line.len() {
        let c = line[k];
        if c == '"' {
            in_string = !in_string;
        }
        if !in_string && c == ' ' && line.get(k + 1) == Some(&'#') && digits_from(k + 2) > 0 {
            // ` #3`: an attribute group.
            k += 2 + digits_from(k + 2);
            continue;
        }
        out.push(c);
        k += 1;
        if !in_string && c == '!' && digits_from(k) > 0 {
            out.push('N');
            k += digits_from(k);
        }
    }
    out
}

/// A line diff of `a` and `b` (longest common subsequence), hunks with
/// three lines of context, `-` for lines only in `a`, `+` only in `b`.
fn diff(a: &str, b: &str, a_name: &str, b_name: &str) -> String {
    let a: Vec<&str> = a.lines().collect();
    let b: Vec<&str> = b.lines().collect();
    let (n, m) = (a.len(), b.len());
    // lcs[i][j]: length of the LCS of a[i..] and b[j..].
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    // The edit script: (' ' | '-' | '+', line).
    let mut script = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            script.push((' ', a[i], i, j));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            script.push(('-', a[i], i, j));
            i += 1;
        } else {
            script.push(('+', b[j], i, j));
            j += 1;
        }
    }
    const CONTEXT: usize = 3;
    let changed: Vec<usize> = (0..script.len()).filter(|&k| script[k].0 != ' ').collect();
    let mut out = format!("--- {a_name}\n+++ {b_name}\n");
    let mut k = 0;
    while k < changed.len() {
        let start = changed[k].saturating_sub(CONTEXT);
        let mut end = changed[k];
        while k < changed.len() && changed[k] <= end + 2 * CONTEXT + 1 {
            end = changed[k];
            k += 1;
        }
        let end = (end + CONTEXT + 1).min(script.len());
        let (_, _, ai, bj) = script[start];
        out.push_str(&format!("@@ -{} +{} @@\n", ai + 1, bj + 1));
        for (tag, line, _, _) in &script[start..end] {
            out.push_str(&format!("{tag}{line}\n"));
        }
    }
    out
}

/// The harness's own helpers on small cases.
fn self_check() -> Result<(), Failed> {
    let cleaned =
        clean_line("  %8 = call double @sin(double %7) #4, !tbaa !5, !alias.scope !11 ; note");
    if cleaned != "  %8 = call double @sin(double %7), !tbaa !N, !alias.scope !N" {
        return Err(format!("clean_line: {cleaned:?}").into());
    }
    let kept = clean_line("  %s = call ptr @g(ptr @\"a #1 !2\")");
    if kept != "  %s = call ptr @g(ptr @\"a #1 !2\")" {
        return Err(format!("clean_line changed a string: {kept:?}").into());
    }
    let input = "@g = global i32 0\ndefine void @f() #0 {\n  ret void\n}\n\
                 define void @c() {\n  call void @__enzyme_autodiff(ptr @f)\n  ret void\n}\n";
    let output = "@g = global i32 0\n@d_g = global i32 0\ndefine void @f() #0 {\n  ret void\n}\n\
                  define void @c() {\n  call void @diffe_f()\n  ret void\n}\n\
                  declare void @h()\n; Function Attrs: x\ndefine internal void @diffe_f() #1 {\n\
                  \n\
                  entry:                ; preds = %x\n  ret void, !dbg !7\n}\n!7 = !{}\n";
    let want =
        "\n@d_g = global i32 0\n\ndefine void @c() {\n  call void @diffe_f()\n  ret void\n}\n\
                \ndefine internal void @diffe_f() {\n\nentry:\n  ret void, !dbg !N\n}\n";
    let got = normalise(input, output);
    if got != want {
        return Err(format!("normalise:\n{}", diff(want, &got, "want", "got")).into());
    }
    let d = diff("a\nb\nc\n", "a\nx\nc\n", "one", "two");
    if d != "--- one\n+++ two\n@@ -1 +1 @@\n a\n-b\n+x\n c\n" {
        return Err(format!("diff: {d:?}").into());
    }
    Ok(())
}
