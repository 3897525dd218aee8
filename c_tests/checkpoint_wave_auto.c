/* checkpoint_wave_auto.c: checkpoint_wave.c under the machine's cache
 * budget (the default, spelled out): the time loop's trip count depends
 * on the data, so the choice between running it plainly and its
 * checkpointed form is made before it from a bound on one iteration's
 * caches (more than 64 KiB at n = 1500: checkpointed), and the budget is
 * read at run time (half the physical memory; segments of at most
 * 128 MiB, so the 400 steps are one recorded segment). (Only this file's
 * `enz-args` line counts.) */
// enz-args: --cache-budget auto
#include "checkpoint_wave.c"
