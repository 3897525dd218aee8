//! Process-wide guards around LLVM: its fatal errors become an exit with
//! status 2 and a message instead of an abort, and a process that reads
//! untrusted input can cap its own address space.

use std::ffi::CStr;
use std::io::Write;
use std::os::raw::c_char;

/// Exit status of an internal error.
const INTERNAL_ERROR_STATUS: i32 = 2;

extern "C" fn on_llvm_fatal_error(reason: *const c_char) {
    let reason = if reason.is_null() {
        String::from("(no message)")
    } else {
        // SAFETY: LLVM passes a NUL-terminated message.
        unsafe { CStr::from_ptr(reason) }
            .to_string_lossy()
            .into_owned()
    };
    let mut err = std::io::stderr();
    let _ = writeln!(
        err,
        "error: internal error: LLVM reported a fatal error: {} (this is a bug in enz-rs; no output was written)",
        reason.trim()
    );
    let _ = err.flush();
    std::process::exit(INTERNAL_ERROR_STATUS);
}

/// Installs the handler that turns LLVM's `report_fatal_error` into
/// `error: internal error: ...` on stderr and exit status 2. Out-of-memory
/// reports of LLVM's allocator do not go through it (they abort): code that
/// parses untrusted input runs in a child process for that reason.
pub fn install_fatal_error_handler() {
    // SAFETY: the handler is a plain function that never returns to LLVM.
    unsafe {
        llvm_sys::error_handling::LLVMResetFatalErrorHandler();
        llvm_sys::error_handling::LLVMInstallFatalErrorHandler(Some(on_llvm_fatal_error));
    }
}

/// Caps this process's address space at `bytes` (RLIMIT_AS), so that a
/// runaway allocation fails instead of exhausting the machine.
pub fn limit_address_space(bytes: u64) -> std::io::Result<()> {
    let lim = libc::rlimit {
        rlim_cur: bytes as libc::rlim_t,
        rlim_max: bytes as libc::rlim_t,
    };
    // SAFETY: setrlimit reads the struct we pass and nothing else.
    if unsafe { libc::setrlimit(libc::RLIMIT_AS, &lim) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}
