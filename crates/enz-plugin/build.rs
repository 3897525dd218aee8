//! Compiles `shim/plugin.cpp` (the pass registration, C++ only in LLVM)
//! against the headers of the LLVM that `llvm-config-22` (or
//! `LLVM_CONFIG`) names; the shared library links libLLVM dynamically,
//! through llvm-sys, so that the host's LLVM is the one in use.
//! `shim/clang_plugin.cpp` (the source attributes, the clang plugin
//! action) becomes `libenz_clang.so` in OUT_DIR, linked against the host's
//! libclang-cpp; libenz_plugin.so loads it by that path when it finds
//! itself inside clang.

use std::process::Command;

/// What `llvm-config --ARG` answers, else `default` (Debian's layout).
fn llvm_config(config: &str, arg: &str, default: &str) -> String {
    Command::new(config)
        .arg(arg)
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_else(|| default.to_string())
}

fn main() {
    println!("cargo:rerun-if-changed=shim/plugin.cpp");
    println!("cargo:rerun-if-changed=shim/clang_plugin.cpp");
    println!("cargo:rerun-if-env-changed=LLVM_CONFIG");
    let config = std::env::var("LLVM_CONFIG").unwrap_or_else(|_| "llvm-config-22".to_string());
    let include = llvm_config(&config, "--includedir", "/usr/lib/llvm-22/include");
    let libdir = llvm_config(&config, "--libdir", "/usr/lib/llvm-22/lib");
    let headers = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../runtime/include");
    let headers = headers.canonicalize().unwrap_or(headers);
    let mut clang = cc::Build::new();
    clang
        .cpp(true)
        .file("shim/clang_plugin.cpp")
        .include(&include)
        .flag("-std=c++17")
        .flag("-fno-exceptions")
        .flag("-fno-rtti")
        .flag_if_supported("-Wno-unused-parameter")
        .define(
            "ENZ_RS_INCLUDE_DIR",
            Some(format!("{:?}", headers.display().to_string()).as_str()),
        )
        .flag("-fPIC")
        .cargo_metadata(false);
    let objects = clang.compile_intermediates();
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    // The clang-cpp of the host compiler (Debian's clang links it
    // dynamically too): resolved to the same library inside clang.
    let clang_cpp = std::fs::read_dir(&libdir)
        .ok()
        .and_then(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("libclang-cpp.so"))
                .min_by_key(|n| n.len())
        })
        .unwrap_or_else(|| "libclang-cpp.so.22.1".to_string());
    let half = format!("{out}/libenz_clang.so");
    let status = clang
        .get_compiler()
        .to_command()
        .arg("-shared")
        .arg("-o")
        .arg(&half)
        .args(&objects)
        .arg(format!("-L{libdir}"))
        .arg(format!("-l:{clang_cpp}"))
        .arg(format!("-Wl,-rpath,{libdir}"))
        .status()
        .expect("the C++ compiler runs");
    assert!(status.success(), "linking {half} failed");
    let so_version = clang_cpp.trim_start_matches("libclang-cpp.so.").to_string();
    cc::Build::new()
        .cpp(true)
        .file("shim/plugin.cpp")
        .define("ENZ_CLANG_HALF", Some(format!("{half:?}").as_str()))
        .define(
            "ENZ_LLVM_SO_VERSION",
            Some(format!("{so_version:?}").as_str()),
        )
        .include(&include)
        .flag("-std=c++17")
        .flag("-fno-exceptions")
        .flag("-fno-rtti")
        .flag_if_supported("-Wno-unused-parameter")
        .define("_GNU_SOURCE", None)
        .define("__STDC_CONSTANT_MACROS", None)
        .define("__STDC_FORMAT_MACROS", None)
        .define("__STDC_LIMIT_MACROS", None)
        .compile("enz_plugin_shim");
}
