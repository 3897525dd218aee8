/* checkpoint_split_plain.c: checkpoint_split.c under a cache budget of
 * 1 MiB instead of 0, so that the loop is kept beside its checkpointed
 * form and one of them is chosen before it runs, in the augmented forward
 * function, from a bound on what the plain loop caches (about 0.4 MB a
 * step at n = 2000, against half the budget): T = 60 and 17 are
 * checkpointed, T = 1 runs plainly (the reverse function follows the
 * choice through the tape), T = 0 runs neither. (Only this file's
 * `enz-args` line counts.) */
// enz-args: --cache-budget 1
#include "checkpoint_split.c"
