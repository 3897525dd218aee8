//! Facts about a function that front ends ask before making a request
//! (e.g. which activity an unmarked argument defaults to).

use crate::analysis::types::TypeAnalysis;
use crate::ir::Function;

/// Whether pointer parameter `k` of `f` points to memory that, as far as
/// type analysis of `f` can tell, holds only integers and pointers to
/// such memory (`int *`, `long **`): memory with no derivative, which an
/// unmarked argument leaves constant as Enzyme does. False when nothing
/// is known about it.
pub fn pointer_param_holds_no_floats(f: Function<'_>, k: usize) -> bool {
    TypeAnalysis::analyse(f).param_memory_holds_no_floats(k)
}
