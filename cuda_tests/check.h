/*
 * check.h -- helpers for the host drivers of cuda_tests/: deterministic
 * inputs, comparisons that count and report, central finite differences.
 *
 * A driver ends with `return check_report();`, which prints
 * "N checks, M failed" (the harness insists on that line) and returns the
 * exit status: 0 only if every check passed.
 */
#ifndef ENZ_CUDA_TESTS_CHECK_H
#define ENZ_CUDA_TESTS_CHECK_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int check_count, check_failed;

/* A reproducible uniform value in [lo, hi). */
static inline double check_uniform(uint64_t *state, double lo, double hi) {
  *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
  double u = (double)(*state >> 11) * (1.0 / 9007199254740992.0);
  return lo + (hi - lo) * u;
}

/* |got - want| <= atol + rtol * |want|; prints the first 20 failures. */
static inline int check_close(const char *what, long idx, double got,
                              double want, double rtol, double atol) {
  check_count++;
  int ok = fabs(got - want) <= atol + rtol * fabs(want);
  if (!ok || got != got || want != want) {
    if (ok) /* NaN on one side only */
      ok = (got != got) == (want != want);
  }
  if (!ok) {
    check_failed++;
    if (check_failed <= 20)
      fprintf(stdout, "FAIL %s[%ld]: got %.10g, want %.10g (diff %.3g)\n",
              what, idx, got, want, fabs(got - want));
  }
  return ok;
}

static inline int check_report(void) {
  printf("%d checks, %d failed\n", check_count, check_failed);
  return check_failed ? 1 : 0;
}

/* Under ThreadSanitizer (the harness's second run, which looks for data
 * races, not for numbers) the finite-difference checks, each two kernel
 * launches, are cut down to a few. */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define CHECK_UNDER_TSAN 1
#endif
#endif
#if !defined(CHECK_UNDER_TSAN) && defined(__SANITIZE_THREAD__)
#define CHECK_UNDER_TSAN 1
#endif
#ifndef CHECK_UNDER_TSAN
#define CHECK_UNDER_TSAN 0
#endif
static inline int check_max(int max) { return CHECK_UNDER_TSAN && max > 4 ? 4 : max; }

/* Which of n elements to check by finite differences: all if n <= max,
 * else max of them spread over the range, always including both ends. */
static inline int check_sample(int n, int max, int k) {
  max = check_max(max);
  if (n <= max)
    return k;
  return (int)((long long)k * (n - 1) / (max - 1));
}
static inline int check_sample_count(int n, int max) {
  max = check_max(max);
  return n <= max ? n : max;
}

/* Central difference of loss() in the element *p (float or double),
 * step h * max(1, |*p|). */
#define CHECK_FD(p, h, loss)                                                   \
  __extension__({                                                              \
    __typeof__(*(p)) saved_ = *(p);                                            \
    double step_ = (h) * (fabs((double)saved_) > 1 ? fabs((double)saved_) : 1); \
    *(p) = (__typeof__(*(p)))(saved_ + step_);                                 \
    double up_ = (double)*(p) - (double)saved_; /* the step actually taken */  \
    double lp_ = (loss)();                                                     \
    *(p) = (__typeof__(*(p)))(saved_ - step_);                                 \
    double dn_ = (double)saved_ - (double)*(p);                                \
    double lm_ = (loss)();                                                     \
    *(p) = saved_;                                                             \
    (lp_ - lm_) / (up_ + dn_);                                                 \
  })

#endif
