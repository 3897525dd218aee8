//! Facts about a function that front ends ask before making a request
//! (e.g. which activity an unmarked argument defaults to).

use crate::analysis::types::TypeAnalysis;
use crate::ir::Function;

/// For each parameter of `f`, whether it is a pointer to memory that, as
/// far as type analysis of `f` can tell, holds only integers and pointers
/// to such memory (`int *`, `long **`): memory with no derivative, which
/// an unmarked argument leaves constant as Enzyme does. False when nothing
/// is known about it. One analysis of `f` answers for every parameter.
pub fn pointer_params_holding_no_floats(f: Function<'_>) -> Vec<bool> {
    let ta = TypeAnalysis::analyse(f);
    (0..f.params().len())
        .map(|k| ta.param_memory_holds_no_floats(k))
        .collect()
}
