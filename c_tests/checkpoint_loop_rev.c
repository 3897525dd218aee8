/* checkpoint_loop_rev.c: __enzyme_checkpoint_for and __enzyme_checkpoint_while
 * (<enzyme/checkpoint.h>): reverse mode keeps one step's tape at a time and
 * a scheme decides what to snapshot and recompute.
 *  - a heat equation u <- u + alpha (u[k+1] - 2u[k] + u[k-1]) + src with
 *    part of its state in a global (src, relaxed towards u^2 every step)
 *    and alpha a scalar argument whose adjoint sums over the steps: for
 *    Revolve, Periodic and StoreAll, n = 0, 1, 2, 5, 17, 40 and 1, 2, 3, 6
 *    snapshots, du and dalpha against the plain loop's gradient; the state
 *    after the gradient (u and the global) equals the forward pass's; every
 *    step taped once; Revolve holds at most `snapshots` slots, Periodic
 *    and StoreAll run (n - the last segment) + (n - segments) steps
 *    forward; at n = 17 central differences of du and dalpha;
 *  - a while loop (grow u until u[0] passes a limit) through StoreAll and
 *    Periodic: du against the plain loop's gradient and central
 *    differences, the number of taped steps against the plain loop's
 *    count;
 *  - forward mode: the tangent of the checkpointed loop against the
 *    gradient's directional derivative. */
#include <enzyme/checkpoint.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

/* A condition, as a check that fails when it does not hold. */
#define check_true(what, cond) check_close(what, (cond) ? 1.0 : 0.0, 1.0, 0)

#define N 6

static double src[N];

__attribute__((noinline)) static void heat(int64_t i, double *u, double alpha) {
  double next[N];
  for (int k = 0; k < N; k++) {
    double lap = u[(k + 1) % N] - 2 * u[k] + u[(k + N - 1) % N];
    next[k] = u[k] + alpha * lap + 0.02 * src[k] * cos(0.3 * (double)i);
  }
  for (int k = 0; k < N; k++) {
    src[k] = 0.8 * src[k] + 0.1 * next[k] * next[k];
    u[k] = next[k];
  }
}

static double loss(const double *u) {
  double s = 0;
  for (int k = 0; k < N; k++)
    s += u[k] * u[k] + 0.5 * src[k];
  return s;
}

static void init(double *u) {
  for (int k = 0; k < N; k++) {
    u[k] = 1.0 + 0.3 * sin(1.0 + k);
    src[k] = 0.1 * k;
  }
}

__attribute__((noinline)) static double plain(double *u, double alpha, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    heat(3 + i, u, alpha);
  return loss(u);
}

__attribute__((noinline)) static double checkpointed(double *u, double alpha, int64_t n,
                                                     const EnzymeCheckpointScheme *scheme,
                                                     EnzymeCkptConfig *config) {
  __enzyme_checkpoint_for((void *)heat, 3, n, enzyme_scheme, scheme, config,
                          enzyme_checkpoint_region, u, (int64_t)(N * sizeof(double)), u,
                          alpha);
  return loss(u);
}

typedef struct {
  double du[N], dalpha, u[N], src[N];
  EnzymeCkptStats stats;
} Grad;

static Grad grad(int64_t n, double alpha, const EnzymeCheckpointScheme *scheme,
                 int64_t snaps) {
  Grad r;
  double u[N];
  EnzymeCkptConfig config = {snaps, 0, NULL, 0, &r.stats};
  memset(&r, 0, sizeof r);
  init(u);
  if (scheme)
    r.dalpha = __enzyme_autodiff((void *)checkpointed, enzyme_dup, u, r.du, alpha,
                                 enzyme_const, n, enzyme_const, scheme, enzyme_const,
                                 &config);
  else
    r.dalpha = __enzyme_autodiff((void *)plain, enzyme_dup, u, r.du, alpha, enzyme_const, n);
  memcpy(r.u, u, sizeof u);
  memcpy(r.src, src, sizeof src);
  return r;
}

static double loss_at(const double *u0, double alpha, int64_t n) {
  double u[N];
  init(u);
  memcpy(u, u0, sizeof u);
  return plain(u, alpha, n);
}

static void check_for(void) {
  const EnzymeCheckpointScheme *schemes[] = {&EnzymeCkptRevolve, &EnzymeCkptPeriodic,
                                             &EnzymeCkptStoreAll};
  const char *names[] = {"revolve", "periodic", "store_all"};
  int64_t steps[] = {0, 1, 2, 5, 17, 40};
  int64_t snaps[] = {1, 2, 3, 6};
  const double alpha = 0.15;
  for (unsigned a = 0; a < sizeof steps / sizeof *steps; a++) {
    int64_t n = steps[a];
    Grad ref = grad(n, alpha, NULL, 0);
    for (unsigned s = 0; s < 3; s++)
      for (unsigned c = 0; c < sizeof snaps / sizeof *snaps; c++) {
        Grad g = grad(n, alpha, schemes[s], snaps[c]);
        check_at("%s n=%lld snapshots=%lld", names[s], (long long)n, (long long)snaps[c]);
        for (int k = 0; k < N; k++)
          check_close("du vs plain loop", g.du[k], ref.du[k], 1e-10);
        check_close("dalpha vs plain loop", g.dalpha, ref.dalpha, 1e-10);
        check_true("state after the gradient is the forward pass's",
                   !memcmp(g.u, ref.u, sizeof g.u) && !memcmp(g.src, ref.src, sizeof g.src));
        check_close("taped steps", (double)g.stats.taped_steps, (double)n, 0);
        if (s == 0)
          check_true("revolve holds at most `snapshots` slots", g.stats.max_slots <= snaps[c]);
        else {
          /* The forward sweep runs all segments but the last; reversing a
           * segment runs its steps but the last once more. */
          int64_t K = s == 2 ? 1 : snaps[c] < n ? snaps[c] : n;
          K = K < 1 ? 1 : K;
          int64_t last = n - (K - 1) * n / K;
          int64_t want = n == 0 ? 0 : (n - last) + (n - K);
          check_close("steps run forward", (double)g.stats.forward_steps, (double)want, 0);
        }
      }
  }
  /* Central differences at n = 17, through Revolve with 3 slots. */
  Grad g = grad(17, alpha, &EnzymeCkptRevolve, 3);
  double u0[N];
  init(u0);
  check_at("revolve n=17 snapshots=3 vs central differences");
  for (int k = 0; k < N; k++) {
    double up[N], um[N], h = FD_REL * (1 + fabs(u0[k]));
    memcpy(up, u0, sizeof up);
    memcpy(um, u0, sizeof um);
    up[k] += h;
    um[k] -= h;
    double fd = (loss_at(up, alpha, 17) - loss_at(um, alpha, 17)) / (up[k] - um[k]);
    check_close("du vs FD", g.du[k], fd, TOL_FD);
  }
  double h = FD_REL * (1 + alpha);
  double fd = (loss_at(u0, alpha + h, 17) - loss_at(u0, alpha - h, 17)) / (2 * h);
  check_close("dalpha vs FD", g.dalpha, fd, TOL_FD);
}

/* ---- A while loop. ---- */

static int64_t grow_steps;

__attribute__((noinline)) static int grow(int64_t i, double *u, const double *limit) {
  double next[N];
  for (int k = 0; k < N; k++)
    next[k] = u[k] + 0.1 * u[(k + 1) % N] + 0.01 * sin(u[k] + 0.1 * (double)i);
  for (int k = 0; k < N; k++)
    u[k] = next[k];
  return u[0] < *limit;
}

__attribute__((noinline)) static double grow_plain(double *u, const double *limit) {
  int64_t i = 0;
  while (grow(i++, u, limit))
    ;
  grow_steps = i;
  double s = 0;
  for (int k = 0; k < N; k++)
    s += u[k] * u[k];
  return s;
}

__attribute__((noinline)) static double grow_ckpt(double *u, const double *limit,
                                                  const EnzymeCheckpointScheme *scheme,
                                                  EnzymeCkptConfig *config) {
  __enzyme_checkpoint_while((void *)grow, enzyme_scheme, scheme, config,
                            enzyme_checkpoint_region, u, (int64_t)(N * sizeof(double)), u,
                            limit);
  double s = 0;
  for (int k = 0; k < N; k++)
    s += u[k] * u[k];
  return s;
}

static void check_while(void) {
  const EnzymeCheckpointScheme *schemes[] = {&EnzymeCkptStoreAll, &EnzymeCkptPeriodic};
  const char *names[] = {"store_all", "periodic"};
  double limits[] = {0.5, 1.55, 3.3};
  for (unsigned l = 0; l < 3; l++) {
    double u0[N], u[N], ref[N] = {0};
    for (int k = 0; k < N; k++)
      u0[k] = 1.0 + 0.1 * k;
    memcpy(u, u0, sizeof u);
    __enzyme_autodiff((void *)grow_plain, enzyme_dup, u, ref, enzyme_const, &limits[l]);
    int64_t count = grow_steps;
    for (unsigned s = 0; s < 2; s++) {
      double du[N] = {0};
      EnzymeCkptStats stats;
      EnzymeCkptConfig config = {2, 0, NULL, 0, &stats};
      memset(&stats, 0, sizeof stats);
      memcpy(u, u0, sizeof u);
      __enzyme_autodiff((void *)grow_ckpt, enzyme_dup, u, du, enzyme_const, &limits[l],
                        enzyme_const, schemes[s], enzyme_const, &config);
      check_at("while %s limit=%g (%lld steps)", names[s], limits[l], (long long)count);
      check_close("taped steps vs the plain loop's", (double)stats.taped_steps,
                  (double)count, 0);
      for (int k = 0; k < N; k++) {
        check_close("du vs plain loop", du[k], ref[k], 1e-10);
        double up[N], um[N], h = FD_REL * (1 + fabs(u0[k]));
        memcpy(up, u0, sizeof up);
        memcpy(um, u0, sizeof um);
        up[k] += h;
        um[k] -= h;
        double fd = (grow_plain(up, &limits[l]) - grow_plain(um, &limits[l])) / (2 * h);
        check_close("du vs FD", du[k], fd, TOL_FD);
      }
    }
  }
}

/* ---- Forward mode: the plain loop's tangent. ---- */

static void check_forward(void) {
  double u[N], du[N], v[N], alpha = 0.15, valpha = 0.7;
  EnzymeCkptConfig config = {2, 0, NULL, 0, NULL};
  Grad g = grad(9, alpha, NULL, 0);
  double want = g.dalpha * valpha;
  for (int k = 0; k < N; k++) {
    v[k] = 0.2 * (k + 1) - 0.5;
    want += g.du[k] * v[k];
  }
  init(u);
  memcpy(du, v, sizeof du);
  double got = __enzyme_fwddiff((void *)checkpointed, enzyme_dup, u, du, enzyme_dup, alpha,
                                valpha, enzyme_const, (int64_t)9, enzyme_const,
                                &EnzymeCkptRevolve, enzyme_const, &config);
  check_at("forward mode n=9");
  check_close("tangent vs the gradient's directional derivative", got, want, 1e-10);
}

int main(void) {
  check_for();
  check_while();
  check_forward();
  return check_report();
}
