//! What the c_tests harness learns once per run about its compilers, so
//! that each trial starts fewer processes (each one that loads LLVM costs
//! some 20 ms before it does anything, and the suite starts thousands).
//!
//! - The linker command of a flag set. `clang X.o FLAGS -o exe` runs the
//!   driver (a process loading LLVM) only to run `ld` with a command line
//!   that depends on the compiler and FLAGS alone. The first link with
//!   them asks the driver for it (`-###`, on a placeholder object and
//!   output); every link with them runs that command with the placeholders
//!   replaced: the same linker with the same arguments, without the
//!   driver. Where the driver's answer is not one command naming each
//!   placeholder once, links with those flags go through the driver.
//! - Whether `compiler -c X.bc` rejects a module the IR verifier rejects.
//!   Clang 22 verifies every IR input it reads (`CodeGenAction`'s
//!   `loadModule`): the verifier `opt -passes=verify` runs, after the same
//!   bitcode reading, so the compile of out.bc is also its verification.
//!   Checked on a broken module; where it fails, the trials run `opt`.
//!
//! Nothing here outlives the run: answers live in memory, the placeholder
//! files in a temporary directory removed when the harness ends.

use crate::common::run;
use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

/// A flag set's linker command (program first), with `Toolchain::obj` and
/// `Toolchain::exe` where the object and the executable go; `None` where
/// links with those flags go through the driver.
type LinkCommand = Option<Vec<OsString>>;

pub struct Toolchain {
    dir: tempfile::TempDir,
    link_commands: Memo<(PathBuf, Vec<String>), LinkCommand>,
    verifies_ir: Memo<PathBuf, bool>,
}

/// Answers computed once per key, by the first trial that needs them
/// (others needing the same key meanwhile wait for it).
struct Memo<K, V>(Mutex<HashMap<K, Arc<OnceLock<V>>>>);

impl<K: std::hash::Hash + Eq + Clone, V: Clone> Memo<K, V> {
    fn new() -> Self {
        Memo(Mutex::new(HashMap::new()))
    }

    fn get(&self, key: &K, compute: impl FnOnce() -> V) -> V {
        let cell = {
            let mut map = self.0.lock().unwrap_or_else(|e| e.into_inner());
            map.entry(key.clone()).or_default().clone()
        };
        cell.get_or_init(compute).clone()
    }
}

impl Toolchain {
    pub fn new() -> Result<Self, String> {
        let dir = tempfile::Builder::new()
            .prefix("enz-c-tests-toolchain-")
            .tempdir()
            .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
        std::fs::write(dir.path().join("placeholder.o"), b"")
            .map_err(|e| format!("cannot write a placeholder object: {e}"))?;
        Ok(Toolchain {
            dir,
            link_commands: Memo::new(),
            verifies_ir: Memo::new(),
        })
    }

    fn obj(&self) -> PathBuf {
        self.dir.path().join("placeholder.o")
    }

    fn exe(&self) -> PathBuf {
        self.dir.path().join("placeholder-exe")
    }

    /// Links `obj` into `exe` as `compiler OBJ ARGS -o EXE` does.
    pub fn link(
        &self,
        compiler: &Path,
        obj: &Path,
        args: &[String],
        exe: &Path,
        what: &str,
    ) -> Result<(), String> {
        let key = (compiler.to_path_buf(), args.to_vec());
        let command = self
            .link_commands
            .get(&key, || self.link_command(compiler, args));
        let mut cmd = match command {
            Some(words) => {
                let (obj_ph, exe_ph) = (self.obj(), self.exe());
                let mut cmd = Command::new(&words[0]);
                for w in &words[1..] {
                    if w == obj_ph.as_os_str() {
                        cmd.arg(obj);
                    } else if w == exe_ph.as_os_str() {
                        cmd.arg(exe);
                    } else {
                        cmd.arg(w);
                    }
                }
                cmd
            }
            None => {
                let mut cmd = Command::new(compiler);
                cmd.arg(obj).args(args).arg("-o").arg(exe);
                cmd
            }
        };
        run(&mut cmd, what).map(drop)
    }

    /// The driver's linker command for `compiler OBJ ARGS -o EXE`, if it
    /// is one command naming each placeholder once as a whole word.
    fn link_command(&self, compiler: &Path, args: &[String]) -> LinkCommand {
        let (obj, exe) = (self.obj(), self.exe());
        let mut cmd = Command::new(compiler);
        cmd.arg("-###").arg(&obj).args(args).arg("-o").arg(&exe);
        let out = run(&mut cmd, "ask the driver for its linker command").ok()?;
        // The jobs are the lines that start with a quoted word.
        let mut jobs = out.stderr.lines().filter(|l| l.starts_with(" \""));
        let words = parse_quoted_words(jobs.next()?)?;
        if jobs.next().is_some() {
            return None;
        }
        let dir = self.dir.path().to_string_lossy().into_owned();
        let count = |p: &Path| words.iter().filter(|w| p.as_os_str() == w.as_str()).count();
        let mentions = words.iter().filter(|w| w.contains(dir.as_str())).count();
        (count(&obj) == 1 && count(&exe) == 1 && mentions == 2)
            .then(|| words.into_iter().map(OsString::from).collect())
    }

    /// Whether `compiler -c` rejects an IR input that does not verify, so
    /// that compiling the output of enz-rs verifies it.
    pub fn verifies_ir(&self, compiler: &Path) -> bool {
        self.verifies_ir.get(&compiler.to_path_buf(), || {
            let (ll, obj) = (
                self.dir.path().join("broken.ll"),
                self.dir.path().join("broken.o"),
            );
            // %z is used before it is defined: parses, does not verify.
            let broken = "define i32 @f(i32 %x) {\n  %y = add i32 %x, %z\n  \
                          %z = add i32 %x, 1\n  ret i32 %y\n}\n";
            if std::fs::write(&ll, broken).is_err() {
                return false;
            }
            let mut cmd = Command::new(compiler);
            cmd.args(["-c", "-x", "ir"]).arg(&ll).arg("-o").arg(&obj);
            match run(&mut cmd, "compile a module that does not verify") {
                Ok(_) => false,
                Err(msg) => msg.contains("does not dominate all uses"),
            }
        })
    }
}

/// The words of one command line as `clang -###` prints it: each in double
/// quotes, with `"`, `\` and `$` escaped by a backslash. `None` if the
/// line is not of that form.
fn parse_quoted_words(line: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut chars = line.chars();
    loop {
        match chars.next() {
            None => return (!words.is_empty()).then_some(words),
            Some(' ') => continue,
            Some('"') => {}
            Some(_) => return None,
        }
        let mut word = String::new();
        loop {
            match chars.next()? {
                '"' => break,
                '\\' => word.push(chars.next()?),
                c => word.push(c),
            }
        }
        words.push(word);
    }
}
