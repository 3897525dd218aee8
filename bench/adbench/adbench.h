/*
 * adbench.h -- shared declarations of the ADBench-style benchmarks
 * (GMM, BA, D-LSTM): input generation, timing, gradient checks, the result
 * table, and the C entry points of the ADOL-C translation unit (adolc.cpp).
 *
 * Layout of the program (one process runs everything):
 *
 *   harness.c   LCG, clock, median timing, checks, table (plain C, no AD)
 *   gmm.c       GMM objective, hand-written gradient, enz-rs gradient, driver
 *   ba.c        BA objective, per-observation residual, Jacobian rows, driver
 *   lstm.c      D-LSTM objective, enz-rs gradient, driver
 *   hand.c      hand-tracking objective, enz-rs forward-mode Jacobian, driver
 *   stencil.c   in-place stencil objective, hand-written and enz-rs gradients,
 *               driver
 *   adolc.cpp   the same three objectives as C++ templates over the scalar
 *               type: instantiated for double (a second primal, checked
 *               against the C one) and for adouble (ADOL-C tapes)
 *   main.c      argument parsing, runs the benchmarks, writes the table
 *
 * gmm.c, ba.c, lstm.c, hand.c and stencil.c go through enz-rs (clang -O2 -emit-llvm, enz-rs,
 * then codegen). When enz-rs cannot build one of them, bench.sh compiles it
 * with -DNO_ENZ: its enz-rs column then reads "FAIL" and the run exits 1.
 *
 * With ENZYME_PLUGIN set, bench.sh compiles each of them a second time with
 * -DAD_ENZYME for Enzyme (clang-N -emit-llvm, opt-N -passes=enzyme, clang-N
 * -O2 -c): that object holds only the objective(s) and the gradient
 * wrapper(s), renamed with an _enzyme suffix (gmm_grad_enz ->
 * gmm_grad_enzyme, ...). The drivers call those wrappers through the weak
 * declarations below: when no Enzyme object is linked they are null and the
 * Enzyme column reads "-" (not run) or "FAIL" (opt_enzyme: the plugin was
 * given, so the build failed); that never fails the run.
 */
#ifndef ADBENCH_H
#define ADBENCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- deterministic inputs ------------------------------------------ */

/* 64-bit LCG (Knuth's MMIX constants); every benchmark seeds its own. */
typedef struct {
  uint64_t s;
} lcg_t;
void lcg_seed(lcg_t *g, uint64_t seed);
double lcg_uniform(lcg_t *g);               /* [0, 1) */
double lcg_range(lcg_t *g, double lo, double hi);
double lcg_normal(lcg_t *g);                /* Box-Muller */
int lcg_int(lcg_t *g, int n);               /* [0, n) */

/* ---- timing ---------------------------------------------------------- */

double now_s(void);

/* Median time of one call of fn(ctx), in seconds: the number of calls per
 * sample is scaled until one sample takes >= opt_min_sample seconds, then
 * the median over opt_samples (>= 5) samples, divided by the calls. */
typedef void (*bench_fn)(void *ctx);
double time_median(bench_fn fn, void *ctx);
/* The same for n <= 8 functions at once (NULL entries skipped, out = -1),
 * sampled in turn, round after round: a slower or faster period of the
 * machine falls on every function alike (used for the primal and the
 * compiler-based gradients, whose ratios are compared). */
void time_interleaved(int n, const bench_fn *fns, void *ctx, double *out);

extern double opt_min_sample; /* 0.1 s */
extern int opt_samples;       /* 11 (--samples N; at least 5) */
extern int opt_quick;         /* --quick: larger sizes skipped, 20 ms samples */
extern int opt_size;          /* --size I: only the I-th size (0-based) */
extern int opt_enzyme;        /* --enzyme: bench.sh had an Enzyme plugin */
extern int opt_one_process;   /* --one-process: every size in this process */
/* whether size i of a benchmark runs (in_quick: it is part of --quick) */
int size_selected(int i, int in_quick);
/* Runs one size of a benchmark, fn(args), in a child process of its own
 * (unless --one-process): every tool then starts from the same fresh heap,
 * whatever the sizes before it allocated and freed (glibc's malloc adapts
 * its mmap and trim thresholds to earlier frees, which made one tool's
 * times depend on the order of the sizes). The child's rows come back
 * through a pipe; a child that fails (a gradient mismatch exits 3) makes
 * this process exit with its status. */
typedef void (*size_fn)(const int *args);
void run_size(size_fn fn, const int *args);

/* Central finite differences of a whole gradient (2 primal runs per
 * parameter) are checked in full when they take <= FD_CHECK_S seconds
 * (else at spot components) and timed when <= FD_TIME_S. */
#define FD_CHECK_S 4.0
#define FD_TIME_S 0.5
/* Tolerances of the checks: AD tools (and the hand-written GMM gradient)
 * against each other, and central finite differences against AD. */
#define AD_RTOL 1e-6
#define FD_RTOL 1e-3

/* ---- checks ---------------------------------------------------------- */

/* Compares got[0..n) with want[0..n): component i passes iff
 * |got - want| <= rtol * (|want| + 1e-3 * max_j |want_j| + 1e-12).
 * Prints one line; on a mismatch prints the worst components and exits
 * with status 3 (a wrong gradient is never timed). */
void check_grad(const char *bench, const char *size, const char *what,
                const double *got, const double *want, size_t n, double rtol);
/* The same for a peer tool's gradient (Enzyme) when want has been checked
 * against an independent gradient (hand-written, FD): a mismatch is
 * printed and the number of wrong components returned (the caller marks
 * the tool WRONG and does not time it); no exit. */
size_t check_peer_grad(const char *bench, const char *size, const char *what,
                       const double *got, const double *want, size_t n,
                       double rtol);
/* The same for a spot check at the components idx[0..n) only; the scale
 * (max_j |want_j|) is taken over all of want[0..nwant). */
void check_grad_at(const char *bench, const char *size, const char *what,
                   const double *got, const double *want, size_t nwant,
                   const size_t *idx, size_t n, double rtol);
/* Scalars (primal values of two implementations). */
void check_value(const char *bench, const char *size, const char *what,
                 double got, double want, double rtol);

/* ---- results --------------------------------------------------------- */

enum {
  TOOL_ENZ,        /* enz-rs __enzyme_autodiff */
  TOOL_ENZYME,     /* Enzyme (LLVM plugin) __enzyme_autodiff */
  TOOL_ADOLC,      /* ADOL-C taping + gradient()/jacobian() */
  TOOL_ADOLC_RE,   /* ADOL-C gradient()/jacobian() on the existing tape */
  TOOL_HAND,       /* hand-written derivative */
  TOOL_FD,         /* central finite differences */
  NTOOLS
};

/* A time < 0 is a missing entry; note[] says why (printed as a footnote). */
typedef struct {
  char bench[16];
  char size[64];
  char params[32];  /* number of differentiated inputs / Jacobian shape */
  double primal;
  double grad[NTOOLS];
  char why[NTOOLS][96];
  /* peak resident memory one call adds, in MB (< 0: not measured) */
  double mem_primal;
  double mem[NTOOLS];
} result_t;

result_t *result_new(const char *bench, const char *size, const char *params);
void result_skip(result_t *r, int tool, const char *fmt, ...);
/* Prints the table (markdown) to stdout and, when the paths are not NULL,
 * writes it to md_path and one line per (benchmark, size, tool) to tsv_path
 * (for the chart). */
void write_tables(const char *md_path, const char *tsv_path);

/* Set by a benchmark compiled without enz-rs (-DNO_ENZ). */
extern int enz_missing;

/* Marks the Enzyme column of r as not run (no plugin) or FAIL (the plugin
 * was given but Enzyme could not build file). */
void result_skip_enzyme(result_t *r, const char *file);

/* ---- memory ------------------------------------------------------------ */

/* The peak resident memory one call of fn(ctx) adds, in MB: on a fresh
 * thread (so that memory a tool keeps per thread between calls, such as
 * enz-rs's spare cache blocks, counts again), after malloc_trim(0), VmRSS
 * is read from /proc/self/status, the peak is reset (writing "5" to
 * /proc/self/clear_refs resets VmHWM to the current RSS), fn runs once and
 * VmHWM - VmRSS before is returned. -1 when clear_refs is not writable. */
double peak_mb(bench_fn fn, void *ctx);
/* Whether peak_mb could reset the peak (0 after a failed write). */
extern int mem_ok;
/* Writes one byte of every page of p[0 .. bytes) (an output array made
 * resident before peak_mb, so that no tool pays for its first touch; not a
 * memset, which the compiler would fold with malloc into calloc). */
void touch_pages(void *p, size_t bytes);

/* ---- Enzyme's gradient wrappers (weak: null when not linked) ---------- */

#ifndef AD_ENZYME
__attribute__((weak)) void gmm_grad_enzyme(int d, int k, int n,
                                           const double *alphas,
                                           const double *means,
                                           const double *icf, const double *x,
                                           double gamma, int m, double *g);
__attribute__((weak)) void ba_jacobian_enzyme(int n, int m, int p,
                                              const double *cams,
                                              const double *X,
                                              const double *w, const int *obs,
                                              const double *feats, double *J);
__attribute__((weak)) void lstm_grad_enzyme(int l, int c, int b,
                                            const double *main_params,
                                            const double *extra_params,
                                            const double *state,
                                            const double *sequence, double *g);
__attribute__((weak)) void
hand_jacobian_enzyme(const double *theta, const int *parents,
                     const double *base_rel, const double *inv_base_abs,
                     int nverts, const double *base_pos, const double *weights,
                     int npts, const int *corr, const double *points,
                     double *J);
__attribute__((weak)) void stencil_grad_enzyme(int n, int steps,
                                               const double *u0, double c,
                                               double s, double *work,
                                               double *g);
#endif

/* ---- the benchmarks ------------------------------------------------- */

void run_gmm(void);
void run_ba(void);
void run_lstm(void);
void run_hand(void);
void run_stencil(void);

/* ---- ADOL-C (adolc.cpp) ----------------------------------------------- */

/* Tape statistics of the last taping: number of operations. */
extern size_t adolc_last_ops;

/* GMM: objective (C++ template, double) and gradient w.r.t. (alphas, means,
 * icf), packed in that order into g. retape = 1: trace_on ... trace_off,
 * then gradient(); retape = 0: gradient() on the tape of the last call. */
double cxx_gmm_objective(int d, int k, int n, const double *alphas,
                         const double *means, const double *icf,
                         const double *x, double wishart_gamma,
                         int wishart_m);
int adolc_gmm_gradient(int retape, int d, int k, int n, const double *alphas,
                       const double *means, const double *icf,
                       const double *x, double wishart_gamma, int wishart_m,
                       double *g);

/* BA: every residual (C++ template, double), and the Jacobian rows: per
 * observation 2 x 15 (d reproj / d (cam[11], X[3], w)) then d werr / d w,
 * 31 doubles per observation. retape = 1: one tape per observation, then
 * jacobian(); retape = 0: jacobian() of observation i on the one tape made
 * from observation 0 (valid while no branch changes; checked). */
void cxx_ba_objective(int n, int m, int p, const double *cams,
                      const double *X, const double *w, const int *obs,
                      const double *feats, double *reproj_err, double *w_err);
int adolc_ba_jacobian(int retape, int n, int m, int p, const double *cams,
                      const double *X, const double *w, const int *obs,
                      const double *feats, double *J);

/* D-LSTM: objective (C++ template, double) and gradient w.r.t.
 * (main_params, extra_params) packed into g. */
double cxx_lstm_objective(int l, int c, int b, const double *main_params,
                          const double *extra_params, const double *state,
                          const double *sequence);
int adolc_lstm_gradient(int retape, int l, int c, int b,
                        const double *main_params, const double *extra_params,
                        const double *state, const double *sequence,
                        double *g);

#ifdef __cplusplus
}
#endif

#endif /* ADBENCH_H */
