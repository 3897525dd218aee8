//! Library functions by what they do to derivatives: GPU barriers, the
//! C++ runtime's pointer structures, input that may carry derivatives
//! back, output and text, and functions known to carry none.

/// Whether `name` is a GPU barrier (`__syncthreads` and its forms).
pub(crate) fn is_barrier(name: &str) -> bool {
    name.starts_with("llvm.nvvm.barrier") || name == "llvm.nvvm.bar.sync"
}

/// Functions of the C++ runtime that only relink a pointer structure
/// (libstdc++'s red-black tree behind `std::map`/`std::set`, its list
/// hooks): no float passes through them, and a shadow structure shaped
/// like the primal one stays so by the same call on the shadow pointers.
/// Also `llvm.threadlocal.address`, whose shadow is the same call on the
/// thread-local shadow global.
pub(crate) fn is_structure_function(name: &str) -> bool {
    const STRUCTURE: &[&str] = &[
        "_ZSt18_Rb_tree_incrementPSt18_Rb_tree_node_base",
        "_ZSt18_Rb_tree_incrementPKSt18_Rb_tree_node_base",
        "_ZSt18_Rb_tree_decrementPSt18_Rb_tree_node_base",
        "_ZSt18_Rb_tree_decrementPKSt18_Rb_tree_node_base",
        "_ZSt29_Rb_tree_insert_and_rebalancebPSt18_Rb_tree_node_baseS0_RS_",
        "_ZSt28_Rb_tree_rebalance_for_erasePSt18_Rb_tree_node_baseRS_",
        "_ZNSt8__detail15_List_node_base7_M_hookEPS0_",
        "_ZNSt8__detail15_List_node_base9_M_unhookEv",
        "_ZNSt8__detail15_List_node_base4swapERS0_S1_",
        "_ZNSt8__detail15_List_node_base11_M_transferEPS0_S1_",
        "_ZNSt8__detail15_List_node_base10_M_reverseEv",
    ];
    // A thread-local global's address in this thread: the shadow global's
    // is the same intrinsic on the shadow global.
    STRUCTURE.contains(&name) || is_thread_local_address(name)
}

/// Whether `name` is `llvm.threadlocal.address` (a thread-local global's
/// address in the calling thread: it points into that global).
pub(crate) fn is_thread_local_address(name: &str) -> bool {
    name.starts_with("llvm.threadlocal.address")
}

/// Functions that read floating-point values from a stream or file into
/// memory: `std::istream`'s `>>` for `double`/`float`/`long double`, the
/// `scanf` family, `fread`, `read`. What they read may have been written
/// from active data (a round trip through a stream or file), a path no
/// derivative follows, so reading inside differentiated code is refused
/// unless the user declares the reading function inactive.
pub(crate) fn reads_floats_from_input(name: &str) -> bool {
    const INPUT: &[&str] = &[
        "scanf",
        "fscanf",
        "sscanf",
        "__isoc99_scanf",
        "__isoc99_fscanf",
        "__isoc99_sscanf",
        "__isoc23_scanf",
        "__isoc23_fscanf",
        "__isoc23_sscanf",
        "fread",
        "read",
    ];
    let istream_float = name.starts_with("_ZNSirsER") && matches!(&name[9..], "d" | "f" | "e");
    let extract_float = name.starts_with("_ZNSi10_M_extractI")
        && matches!(&name[18..], "dEERSiRT_" | "fEERSiRT_" | "eEERSiRT_");
    istream_float || extract_float || INPUT.contains(&name)
}

/// Functions that write floating-point data where a reader
/// (`reads_floats_from_input`) could read it back: `std::ostream`'s `<<`
/// for `double`/`float`/`long double`, the `fprintf`/`sprintf` families,
/// `fwrite`, `write`. (`printf` and `puts` write to standard output, which
/// the program does not read back.)
pub(crate) fn writes_floats_to_output(name: &str) -> bool {
    const OUTPUT: &[&str] = &[
        "fprintf",
        "vfprintf",
        "sprintf",
        "snprintf",
        "vsprintf",
        "vsnprintf",
        "__sprintf_chk",
        "__snprintf_chk",
        "__fprintf_chk",
        "fwrite",
        "write",
    ];
    let ostream_float = name.starts_with("_ZNSolsE") && matches!(&name[8..], "d" | "f" | "e");
    let insert_float = name.starts_with("_ZNSo9_M_insertI")
        && matches!(&name[16..], "dEERSoT_" | "fEERSoT_" | "eEERSoT_");
    ostream_float || insert_float || OUTPUT.contains(&name)
}

/// The C++ library's output and text: `std::ostream` and its `<<`
/// operators, output file and string streams, their buffers, locales and
/// `ios_base`, and `std::string`, whose bytes are characters. What is only
/// written out carries no derivative. Input (`std::istream`, `>>`,
/// `getline`, input streams) is not here: a value read back may have been
/// written from active data, so a call reading into active memory stays a
/// diagnostic.
fn is_output_or_text(name: &str) -> bool {
    const PREFIXES: &[&str] = &[
        "_ZNSo",                          // std::ostream members
        "_ZStls",                         // operator<<(ostream&, ...)
        "_ZSt16__ostream_insert",         // the characters behind <<
        "_ZSt4endl",                      // std::endl
        "_ZSt5flush",                     // std::flush
        "_ZSt4ends",                      // std::ends
        "_ZNSt8ios_base",                 // ios_base and its Init
        "_ZNSt6locale",                   // locales
        "_ZNKSt5ctype",                   // ctype<char>::widen
        "_ZNSt9basic_ios",                // basic_ios
        "_ZNKSt9basic_ios",               //
        "_ZNSt15basic_streambuf",         // stream buffers
        "_ZNSt13basic_filebuf",           //
        "_ZNSt14basic_ofstream",          // output files
        "_ZNSt7__cxx1115basic_stringbuf", // string buffers
        "_ZNKSt7__cxx1115basic_stringbuf",
        "_ZNSt7__cxx1119basic_ostringstream", // output string streams
        "_ZNKSt7__cxx1119basic_ostringstream",
        "_ZNSt7__cxx1112basic_string", // std::string
        "_ZNKSt7__cxx1112basic_string",
    ];
    PREFIXES.iter().any(|p| name.starts_with(p))
}

/// libc's `qsort(base, n, size, cmp)`, which preprocessing rewrites
/// (`preprocess/sort.rs`).
pub(crate) const QSORT: &str = "qsort";
/// glibc's `qsort_r(base, n, size, cmp, arg)`, which that rewrite calls on
/// an index array (known-inactive: it moves integers only).
pub(crate) const QSORT_R: &str = "qsort_r";
/// The comparator of indices that rewrite hands to `qsort_r`:
/// `int __enz_sort_by_index(const i64 *, const i64 *, ctx)`.
pub(crate) const SORT_BY_INDEX: &str = "__enz_sort_by_index";

/// Functions known to carry no derivative (I/O, clocks, allocation
/// bookkeeping): calls to them are kept in the forward sweep and skipped in
/// the reverse sweep.
pub(crate) fn is_known_inactive(name: &str) -> bool {
    if name == super::MACHINE_CACHE_BUDGET
        || name == super::ALL_ZERO
        || name == super::BUDGET_EXCEEDED
        || name == QSORT_R
    {
        return true;
    }
    const INACTIVE: &[&str] = &[
        "printf",
        "puts",
        "putchar",
        "fprintf",
        "fputs",
        "fputc",
        "fflush",
        "fwrite",
        "clock",
        "time",
        "rand",
        "srand",
        "gettimeofday",
        "sprintf",
        "snprintf",
        "vsnprintf",
        "vsprintf",
        "vprintf",
        "vfprintf",
        "fopen",
        "fclose",
        "__cxa_atexit",
        "clock_gettime",
        "abort",
        "exit",
        "__assert_fail",
        "llvm.assume",
        "llvm.lifetime.start",
        "llvm.lifetime.end",
        "llvm.dbg.value",
        "llvm.dbg.declare",
        "llvm.dbg.assign",
        "llvm.dbg.label",
        "llvm.experimental.noalias.scope.decl",
        "llvm.invariant.start",
        "llvm.invariant.end",
        "llvm.prefetch",
        "llvm.donothing",
        "llvm.sideeffect",
        "llvm.pseudoprobe",
        "llvm.nvvm.barrier0",
        "llvm.nvvm.barrier.cta.sync.aligned.all",
        "llvm.nvvm.barrier.cta.sync.aligned",
        "llvm.nvvm.barrier.cta.sync.all",
        "llvm.nvvm.barrier.cta.sync",
        "llvm.nvvm.bar.sync",
        // Comparisons and lengths of bytes: integer results.
        "memcmp",
        "bcmp",
        "strcmp",
        "strncmp",
        "strlen",
        // The C++ runtime: hashing and bucket policy of unordered
        // containers (integers), the exception machinery.
        "_ZSt11_Hash_bytesPKvmm",
        "_ZSt15_Fnv_hash_bytesPKvmm",
        "_ZNKSt8__detail20_Prime_rehash_policy14_M_need_rehashEmmm",
        "_ZNKSt8__detail20_Prime_rehash_policy11_M_next_bktEm",
        "__cxa_begin_catch",
        "__cxa_end_catch",
        "__cxa_rethrow",
        "__cxa_allocate_exception",
        "__cxa_free_exception",
        "__cxa_throw",
        "__cxa_call_unexpected",
        "_ZSt9terminatev",
    ];
    // libstdc++'s `std::__throw_length_error(const char*)` and the like.
    let throws = name.starts_with("_ZSt") && name.contains("__throw_");
    throws
        || is_output_or_text(name)
        || INACTIVE
            .iter()
            .any(|n| name == *n || (n.starts_with("llvm.") && name.starts_with(&format!("{n}."))))
}

/// Rust's precompiled runtime functions that carry no derivative: text
/// formatting (`core::fmt`, `alloc::fmt::format`), printing
/// (`std::io::_print`, `_eprint`), panics and the failure paths of checks
/// (`core::panicking`, `std::panicking`, `unwrap_failed`, bounds and
/// overflow failures, allocation errors), by the path segments of their
/// mangled names (v0 `_R...` and legacy `_ZN...`: each segment is
/// length-prefixed). Only for functions with no body in the module (std's
/// machine code): a generic instance compiled into the module is
/// differentiated through its body as usual.
pub(crate) fn is_rust_runtime_inactive(name: &str) -> bool {
    const SEGMENTS: &[&str] = &[
        "4core3fmt",
        "5alloc3fmt6format",
        "3std2io5stdio6__print",
        "3std2io5stdio7__eprint",
        "4core9panicking",
        "3std9panicking",
        "3std2rt",
        "4core6result13unwrap_failed",
        "4core6option13unwrap_failed",
        "4core6option13expect_failed",
        "4core5slice5index",
        "4core3str",
        "5alloc7raw_vec12handle_error",
        "5alloc7raw_vec17capacity_overflow",
        "5alloc5alloc18handle_alloc_error",
    ];
    (name.starts_with("_R") || name.starts_with("_ZN")) && SEGMENTS.iter().any(|s| name.contains(s))
}
