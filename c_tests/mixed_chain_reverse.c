/* mixed_chain_reverse.c: mixed_chain.c differentiated with
 * --mode-per-loop=reverse (reverse mode in the elementwise loop too): the same checks, so that both modes give the same
 * derivatives. (Only this file's `enz-args` line counts.) */
// enz-args: --mode-per-loop reverse
#include "mixed_chain.c"
