//! End-to-end tests of MPI programs: the self-checking C programs in
//! `c_tests/mpi/`, each compiled at -O0..-O3 against Open MPI and against
//! MPICH (its own include directory and library, no `mpicc` wrapper),
//! through the CLI (`clang -c -emit-llvm` → `enz-rs` → `clang out.bc
//! -l<mpi>`, with `-g` at -O1 and -O3) and through the plugin (`clang -fplugin=libenz_plugin.so`),
//! and run with 1, 2 and 4 ranks. To keep the suite's time on 2 cores,
//! the plugin route runs at -O2 and MPICH's CLI route at -O0 and -O2 (Open
//! MPI's CLI route at every level). One trial per (fixture, level,
//! library, route), named like `heat_ring::O2::mpich::plugin`; at -O0
//! `heat_ring` also goes through `enz-rs --no-inline` (its halo exchange
//! a callee differentiated as a call: `heat_ring::O0::mpich::no-inline`).
//!
//! A run passes when `mpirun` exits 0 and every rank printed its line
//! `rank R: N checks, 0 failed` with N > 0 (the fixtures compare reverse
//! mode with finite differences of the whole distributed primal and
//! forward mode with the reverse gradient; `c_tests/mpi/mpi_check.h`).
//! A missing `mpirun` or MPI library fails the trial (scripts/setup.sh
//! installs them). Set `ENZ_KEEP_TMP=1` to keep a failing trial's files.
//!
//! The programs in `c_tests/mpi/refused/` pass differentiable data to an
//! MPI call enz-rs refuses (`MPI_MAX`, a wildcard source, a datatype it
//! cannot read, a call without a rule): at -O0 and -O2 with each
//! library, `enz-rs` must exit 1 with the diagnostic of the fixture's
//! `enz-expect:` line (`refused::any_source::O2::mpich`).

mod common;

use common::{find_tool, run};
use libtest_mimic::{Arguments, Failed, Trial};
use std::path::{Path, PathBuf};
use std::process::Command;

const OPT_LEVELS: [&str; 4] = ["O0", "O1", "O2", "O3"];
const RANKS: [u32; 3] = [1, 2, 4];

/// One MPI library: where its header and library are, how it is run.
#[derive(Clone, Copy)]
struct Mpi {
    name: &'static str,
    include: &'static str,
    lib_dir: Option<&'static str>,
    lib: &'static str,
    mpirun: &'static str,
    mpirun_args: &'static [&'static str],
}

const LIBRARIES: [Mpi; 2] = [
    Mpi {
        name: "openmpi",
        include: "/usr/lib/x86_64-linux-gnu/openmpi/include",
        lib_dir: Some("/usr/lib/x86_64-linux-gnu/openmpi/lib"),
        lib: "-lmpi",
        mpirun: "mpirun.openmpi",
        mpirun_args: &["--allow-run-as-root", "--oversubscribe"],
    },
    Mpi {
        name: "mpich",
        include: "/usr/include/x86_64-linux-gnu/mpich",
        lib_dir: None,
        lib: "-lmpich",
        mpirun: "mpirun.mpich",
        mpirun_args: &[],
    },
];

/// How a fixture is differentiated.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Route {
    /// `enz-rs in.bc -o out.bc`.
    Cli,
    /// `enz-rs --no-inline in.bc -o out.bc`: callees stay calls.
    NoInline,
    /// `clang -fplugin=libenz_plugin.so`.
    Plugin,
}

impl Route {
    fn name(self) -> &'static str {
        match self {
            Route::Cli => "cli",
            Route::NoInline => "no-inline",
            Route::Plugin => "plugin",
        }
    }
}

#[derive(Clone)]
struct Tools {
    clang: PathBuf,
    enz_rs: PathBuf,
    plugin: PathBuf,
    runtime_include: PathBuf,
}

fn main() {
    let args = Arguments::from_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = root.join("c_tests/mpi");
    let tools = Tools {
        clang: find_tool("ENZ_CLANG", "clang-22", "clang"),
        enz_rs: PathBuf::from(env!("CARGO_BIN_EXE_enz-rs")),
        plugin: std::env::current_exe()
            .ok()
            .and_then(|e| e.parent().map(|d| d.join("libenz_plugin.so")))
            .unwrap_or_default(),
        runtime_include: root.join("runtime/include"),
    };
    let mut fixtures: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|ext| ext == "c"))
        .collect();
    fixtures.sort();
    assert!(
        fixtures.len() >= 4,
        "MPI fixtures missing in {}",
        dir.display()
    );
    let mut trials = Vec::new();
    for fixture in &fixtures {
        let stem = fixture.file_stem().unwrap().to_string_lossy().into_owned();
        for level in OPT_LEVELS {
            for mpi in LIBRARIES {
                for route in [Route::Cli, Route::Plugin] {
                    // The suite's time (2 cores): the plugin route at -O2,
                    // MPICH through the CLI at -O0 and -O2; Open MPI through
                    // the CLI at every level.
                    let takes = match route {
                        Route::Plugin => level == "O2",
                        _ => mpi.name == "openmpi" || matches!(level, "O0" | "O2"),
                    };
                    if !takes {
                        continue;
                    }
                    let (t, f) = (tools.clone(), fixture.clone());
                    let name = format!("{stem}::{level}::{}::{}", mpi.name, route.name());
                    trials.push(Trial::test(name, move || {
                        run_case(&t, &f, level, mpi, route)
                    }));
                }
                // MPI calls in a callee differentiated as a call (the
                // halo exchange is a function of its own at -O0).
                if stem == "heat_ring" && level == "O0" {
                    let (t, f) = (tools.clone(), fixture.clone());
                    let name = format!("{stem}::{level}::{}::no-inline", mpi.name);
                    trials.push(Trial::test(name, move || {
                        run_case(&t, &f, level, mpi, Route::NoInline)
                    }));
                }
            }
        }
    }
    let refused_dir = dir.join("refused");
    let mut refused: Vec<PathBuf> = std::fs::read_dir(&refused_dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", refused_dir.display()))
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|ext| ext == "c"))
        .collect();
    refused.sort();
    assert!(
        !refused.is_empty(),
        "no fixtures in {}",
        refused_dir.display()
    );
    for fixture in &refused {
        let stem = fixture.file_stem().unwrap().to_string_lossy().into_owned();
        for level in ["O0", "O2"] {
            for mpi in LIBRARIES {
                let (t, f) = (tools.clone(), fixture.clone());
                let name = format!("refused::{stem}::{level}::{}", mpi.name);
                trials.push(Trial::test(name, move || refused_case(&t, &f, level, mpi)));
            }
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

/// A refused program: enz-rs exits 1 with the expected diagnostic.
fn refused_case(tools: &Tools, fixture: &Path, level: &str, mpi: Mpi) -> Result<(), Failed> {
    let source = std::fs::read_to_string(fixture)
        .map_err(|e| format!("cannot read {}: {e}", fixture.display()))?;
    let expect = source
        .lines()
        .find_map(|l| {
            l.split_once("enz-expect: ")
                .map(|(_, e)| e.trim().trim_end_matches("*/").trim().to_string())
        })
        .ok_or("the fixture has no enz-expect: line")?;
    let dir = tempfile::Builder::new()
        .prefix("enz-mpi-test-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    let (inb, outb) = (dir.path().join("in.bc"), dir.path().join("out.bc"));
    let mut cc = Command::new(&tools.clang);
    cc.arg(format!("-{level}"))
        .args(["-c", "-emit-llvm", "-I"])
        .arg(mpi.include)
        .arg(fixture)
        .arg("-o")
        .arg(&inb);
    run(&mut cc, "compile to bitcode")?;
    let out = Command::new(&tools.enz_rs)
        .arg(&inb)
        .arg("-o")
        .arg(&outb)
        .output()
        .map_err(|e| format!("cannot run enz-rs: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.code() != Some(1) || !stderr.contains(&expect) {
        return Err(format!(
            "enz-rs should refuse with `{expect}` (exit 1); exit {:?}, stderr:\n{stderr}",
            out.status.code()
        )
        .into());
    }
    Ok(())
}

fn run_case(
    tools: &Tools,
    fixture: &Path,
    level: &str,
    mpi: Mpi,
    route: Route,
) -> Result<(), Failed> {
    let dir = tempfile::Builder::new()
        .prefix("enz-mpi-test-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    match steps(tools, fixture, level, mpi, route, dir.path()) {
        Ok(()) => Ok(()),
        Err(msg) if std::env::var_os("ENZ_KEEP_TMP").is_some() => {
            let kept = dir.keep();
            Err(format!("{msg}\n(files kept in {})", kept.display()).into())
        }
        Err(msg) => Err(msg.into()),
    }
}

fn link_args(cmd: &mut Command, mpi: Mpi) {
    if let Some(d) = mpi.lib_dir {
        cmd.arg(format!("-L{d}"));
    }
    cmd.arg(mpi.lib).arg("-lm");
}

fn steps(
    tools: &Tools,
    fixture: &Path,
    level: &str,
    mpi: Mpi,
    route: Route,
    dir: &Path,
) -> Result<(), String> {
    let exe = dir.join("exe");
    if route == Route::Plugin {
        let mut cc = Command::new(&tools.clang);
        cc.arg(format!("-{level}"))
            .arg(format!("-fplugin={}", tools.plugin.display()))
            .arg("-I")
            .arg(mpi.include)
            .arg(fixture)
            .arg("-o")
            .arg(&exe);
        link_args(&mut cc, mpi);
        run(&mut cc, "compile with the plugin")?;
    } else {
        let (inb, outb) = (dir.join("in.bc"), dir.join("out.bc"));
        let mut cc = Command::new(&tools.clang);
        cc.arg(format!("-{level}"));
        // Debug information at two levels (as c_tests does).
        if matches!(level, "O1" | "O3") {
            cc.arg("-g");
        }
        cc.args(["-c", "-emit-llvm", "-I"])
            .arg(&tools.runtime_include)
            .arg("-I")
            .arg(mpi.include)
            .arg(fixture)
            .arg("-o")
            .arg(&inb);
        run(&mut cc, "compile to bitcode")?;
        let mut enz = Command::new(&tools.enz_rs);
        if route == Route::NoInline {
            enz.arg("--no-inline");
        }
        enz.arg(&inb).arg("-o").arg(&outb);
        run(&mut enz, "differentiate")?;
        let mut ld = Command::new(&tools.clang);
        ld.arg(&outb).arg("-o").arg(&exe);
        link_args(&mut ld, mpi);
        run(&mut ld, "link")?;
    }
    for np in RANKS {
        let mut mpirun = Command::new(mpi.mpirun);
        mpirun
            .args(mpi.mpirun_args)
            .arg("-np")
            .arg(np.to_string())
            .arg(&exe);
        let out = run(&mut mpirun, &format!("run with {np} ranks"))?;
        check_reports(&out.stdout, np).map_err(|e| {
            format!(
                "{np} ranks: {e}\n--- stdout ---\n{}",
                common::tail(&out.stdout)
            )
        })?;
    }
    Ok(())
}

/// Every rank `0..np` reported `rank R: N checks, 0 failed` with N > 0,
/// and no check failed.
fn check_reports(stdout: &str, np: u32) -> Result<(), String> {
    let mut seen = vec![false; np as usize];
    for line in stdout.lines() {
        if line.starts_with("FAIL") {
            return Err(format!("a check failed: {line}"));
        }
        let Some(rest) = line.strip_prefix("rank ") else {
            continue;
        };
        let Some((rank, report)) = rest.split_once(": ") else {
            continue;
        };
        let Ok(rank) = rank.parse::<usize>() else {
            continue;
        };
        let Some(checks) = report.strip_suffix(" checks, 0 failed") else {
            return Err(format!("rank {rank} reports failures: {line}"));
        };
        if checks.parse::<u32>().map_or(true, |n| n == 0) {
            return Err(format!("rank {rank} ran no check: {line}"));
        }
        match seen.get_mut(rank) {
            Some(s) => *s = true,
            None => return Err(format!("a report from rank {rank} of {np}")),
        }
    }
    match seen.iter().position(|s| !s) {
        Some(r) => Err(format!("rank {r} printed no report")),
        None => Ok(()),
    }
}
