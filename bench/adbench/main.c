/*
 * main.c -- runs the ADBench-style benchmarks (a child process per size) and prints the
 * table. See adbench.h for the layout and scripts/bench.sh for the build.
 *
 *   adbench [--quick] [--size I] [--enzyme] [--md FILE] [--tsv FILE]
 *           [gmm] [ba] [lstm] [hand] [stencil]
 *
 *   --quick   fewer sizes, 20 ms samples (a smoke run, not for reporting)
 *   --size I  only the I-th size (0-based) of each benchmark (profiling)
 *   --one-process  every size in this process (by default each size runs
 *             in a child process of its own, so that no tool's times
 *             depend on what the sizes before it left in the heap)
 *   --enzyme  an Enzyme plugin was given to bench.sh: a benchmark without
 *             its Enzyme wrapper linked in reads FAIL (else "not run")
 *   --md      also write the table (markdown) to FILE
 *   --tsv     also write one line per (benchmark, size, tool) to FILE
 *   names     run only these benchmarks (default: all five)
 *
 * Exit status: 0; 3 when two gradients disagree (printed, nothing more is
 * timed); 4 when enz-rs could not build a benchmark (its column reads FAIL,
 * everything else is measured). Enzyme failing to build a file is no error
 * (its column reads FAIL).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "adbench.h"

/* set by the objects compiled with -DNO_ENZ (bench.sh's fallback) */
extern int gmm_no_enz, ba_no_enz, lstm_no_enz, hand_no_enz, stencil_no_enz;

int main(int argc, char **argv) {
  const char *md = NULL, *tsv = NULL;
  int want[5] = {0, 0, 0, 0, 0}, any = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--quick")) {
      opt_quick = 1;
      opt_min_sample = 0.02;
      opt_samples = 5;
    } else if (!strcmp(argv[i], "--size") && i + 1 < argc) {
      opt_size = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--one-process")) {
      opt_one_process = 1;
    } else if (!strcmp(argv[i], "--samples") && i + 1 < argc) {
      opt_samples = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--enzyme")) {
      opt_enzyme = 1;
    } else if (!strcmp(argv[i], "--md") && i + 1 < argc) {
      md = argv[++i];
    } else if (!strcmp(argv[i], "--tsv") && i + 1 < argc) {
      tsv = argv[++i];
    } else if (!strcmp(argv[i], "gmm")) {
      want[0] = any = 1;
    } else if (!strcmp(argv[i], "ba")) {
      want[1] = any = 1;
    } else if (!strcmp(argv[i], "lstm")) {
      want[2] = any = 1;
    } else if (!strcmp(argv[i], "hand")) {
      want[3] = any = 1;
    } else if (!strcmp(argv[i], "stencil")) {
      want[4] = any = 1;
    } else {
      fprintf(stderr,
              "usage: adbench [--quick] [--size I] [--one-process] [--samples N] [--enzyme] [--md FILE] "
              "[--tsv FILE] [gmm] [ba] [lstm] [hand] [stencil]\n");
      return 2;
    }
  }
  if (!any)
    want[0] = want[1] = want[2] = want[3] = want[4] = 1;
  printf("ADBench-style benchmarks: times are medians of >= %d samples of "
         ">= %.0f ms each, per call.\n",
         opt_samples < 5 ? 5 : opt_samples, opt_min_sample * 1e3);
  /* BA first: ADOL-C keeps global state (its location store) from large
   * tapes, which makes the many tiny BA tapes taped afterwards several times
   * slower; BA, LSTM, GMM is the order of growing tapes (Hand, without
   * ADOL-C, then the stencil last). The table lists GMM, BA, LSTM, Hand, Stencil whatever the order of
   * the runs. */
  int failed = 0;
  if (want[1]) {
    enz_missing = ba_no_enz;
    failed |= enz_missing;
    run_ba();
  }
  if (want[2]) {
    enz_missing = lstm_no_enz;
    failed |= enz_missing;
    run_lstm();
  }
  if (want[0]) {
    enz_missing = gmm_no_enz;
    failed |= enz_missing;
    run_gmm();
  }
  if (want[3]) {
    enz_missing = hand_no_enz;
    failed |= enz_missing;
    run_hand();
  }
  if (want[4]) {
    enz_missing = stencil_no_enz;
    failed |= enz_missing;
    run_stencil();
  }
  write_tables(md, tsv);
  if (failed) {
    fprintf(stderr, "error: enz-rs could not build:%s%s%s%s%s (see the build "
                    "log); the other tools were measured\n",
            want[0] && gmm_no_enz ? " gmm.c" : "",
            want[1] && ba_no_enz ? " ba.c" : "",
            want[2] && lstm_no_enz ? " lstm.c" : "",
            want[3] && hand_no_enz ? " hand.c" : "",
            want[4] && stencil_no_enz ? " stencil.c" : "");
    return 4;
  }
  return 0;
}
