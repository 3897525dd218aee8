// LULESH 2.0 gradient driver for scripts/bench-lulesh.sh (the LULESH sources
// stay outside this repository: the script compiles this file with
// -I LULESH_DIR -DUSE_MPI=0).
//
// The function differentiated is
//
//   double simulate(Domain *d, int its)
//
// `its` cycles of TimeIncrement + LagrangeLeapFrog (LULESH's main loop
// without its stop-time test), then the sum of the elements' energies,
// differentiated by
//
//   __enzyme_autodiff(simulate, enzyme_dup, d, shadow, enzyme_const, its)
//
// where `shadow` is a Domain built by the same constructor with every
// floating-point member (arrays and scalars, the constant tolerances too)
// zeroed. The seed is 1 on the result, so afterwards shadow->m_e[0] holds
// d(sum e)/d(e[0] at the start), shadow->m_x[n] d/d(x[n]) and so on:
// derivatives with respect to the state *after* construction (volo,
// elemMass, nodalMass and the first deltatime stay what the constructor
// made of the unperturbed mesh).
//
// TimeIncrement and LagrangeLeapFrog are static in lulesh.cc, so this file
// includes lulesh.cc (its main renamed); lulesh-init.cc and lulesh-util.cc
// are compiled separately and linked in. Private members are made public
// to zero the shadow and to read the derivatives.
//
//   driver check NX ITS   the derivative at a few inputs against central
//                         finite differences (FD of exactly the function
//                         differentiated: the same build, the same
//                         perturbation after construction); exit 1 on a
//                         mismatch
//   driver time NX ITS    primal and gradient times (each a fresh Domain,
//                         its construction not timed): median and least of
//                         several runs
//   driver primal NX ITS  one primal run with two Domains built (what the
//                         gradient run holds before differentiating), for
//                         /usr/bin/time -v
//   driver grad NX ITS    one gradient run, for /usr/bin/time -v
//   driver node NX ITS N  (study of the node-coordinate derivative) d/dx of
//                         node N: AD, FD after construction, FD and AD of
//                         the function that also recomputes what the
//                         constructor derives from the coordinates
//
// -DSTUDY adds forward mode (__enzyme_fwddiff) to `check` and `node`, and
// to `node` the reverse-mode derivative of simulate_rebuilt (not in the
// benchmark build: each adds a derivative to synthesise).
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctype.h>
#include <iostream>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <algorithm>
#include <vector>

#define private public
#define main lulesh_main
#include "lulesh.cc"
#undef main
#undef private

extern "C" {
int enzyme_dup;
int enzyme_const;
void __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
}

static Domain *build(int nx) {
  Int_t col, row, plane, side;
  InitMeshDecomp(1, 0, &col, &row, &plane, &side);
  // LULESH's defaults: 11 regions, balance 1, cost 1
  return new Domain(1, col, row, plane, nx, side, 11, 1, 1);
}

static void zero(std::vector<Real_t> &v) { std::fill(v.begin(), v.end(), 0.0); }
static void zero(const Real_t &r) { *const_cast<Real_t *>(&r) = 0.0; }

// every floating-point member of d zeroed (integer arrays, connectivity and
// region lists stay as built: the shadow of an integer is the integer)
static Domain *build_shadow(int nx) {
  Domain *s = build(nx);
  zero(s->m_x); zero(s->m_y); zero(s->m_z);
  zero(s->m_xd); zero(s->m_yd); zero(s->m_zd);
  zero(s->m_xdd); zero(s->m_ydd); zero(s->m_zdd);
  zero(s->m_fx); zero(s->m_fy); zero(s->m_fz);
  zero(s->m_nodalMass);
  zero(s->m_e); zero(s->m_p); zero(s->m_q); zero(s->m_ql); zero(s->m_qq);
  zero(s->m_v); zero(s->m_volo); zero(s->m_vnew); zero(s->m_delv);
  zero(s->m_vdov); zero(s->m_arealg); zero(s->m_ss); zero(s->m_elemMass);
  zero(s->m_e_cut); zero(s->m_p_cut); zero(s->m_q_cut); zero(s->m_v_cut);
  zero(s->m_u_cut); zero(s->m_hgcoef); zero(s->m_ss4o3); zero(s->m_qstop);
  zero(s->m_monoq_max_slope); zero(s->m_monoq_limiter_mult);
  zero(s->m_qlc_monoq); zero(s->m_qqc_monoq); zero(s->m_qqc);
  zero(s->m_eosvmax); zero(s->m_eosvmin); zero(s->m_pmin); zero(s->m_emin);
  zero(s->m_dvovmax); zero(s->m_refdens);
  zero(s->m_dtcourant); zero(s->m_dthydro); zero(s->m_dtfixed);
  zero(s->m_time); zero(s->m_deltatime); zero(s->m_deltatimemultlb);
  zero(s->m_deltatimemultub); zero(s->m_dtmax); zero(s->m_stoptime);
  return s;
}

__attribute__((noinline)) double simulate(Domain *d, int its) {
  for (int i = 0; i < its; ++i) {
    TimeIncrement(*d);
    LagrangeLeapFrog(*d);
  }
  double s = 0.0;
  for (Index_t i = 0; i < d->numElem(); ++i) s += d->e(i);
  return s;
}

// What the constructor derives from the coordinates (lulesh-init.cc:
// volo, elemMass, nodalMass, and the first deltatime from volo[0]),
// recomputed from the current coordinates: rebuild(d) on a Domain whose x
// was perturbed after construction makes it the Domain the constructor
// would have built from the perturbed mesh.
static void rebuild(Domain *d) {
  for (Index_t i = 0; i < d->numNode(); ++i) d->nodalMass(i) = 0.0;
  for (Index_t i = 0; i < d->numElem(); ++i) {
    Real_t xl[8], yl[8], zl[8];
    Index_t *en = d->nodelist(i);
    for (int l = 0; l < 8; ++l) {
      xl[l] = d->x(en[l]);
      yl[l] = d->y(en[l]);
      zl[l] = d->z(en[l]);
    }
    Real_t vol = CalcElemVolume(xl, yl, zl);
    d->volo(i) = vol;
    d->elemMass(i) = vol;
    for (int l = 0; l < 8; ++l) d->nodalMass(en[l]) += vol / Real_t(8.0);
  }
  Real_t scale = (d->sizeX() * d->tp()) / Real_t(45.0);
  Real_t einit = Real_t(3.948746e+7) * scale * scale * scale;
  d->deltatime() = (Real_t(.5) * cbrt(d->volo(0))) / sqrt(Real_t(2.0) * einit);
}

__attribute__((noinline)) double simulate_rebuilt(Domain *d, int its) {
  rebuild(d);
  return simulate(d, its);
}

static double now() {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

// ---- inputs ------------------------------------------------------------
enum Field { E, X, XD, YD };
struct Input {
  const char *name;
  Field f;
  int idx;
  int warm;     // primal cycles run before simulate (outside what is differentiated)
  bool vcut0;   // the primal Domain's v_cut set to 0 (AD and FD alike)
  bool inband;  // FD step inside the v_cut band (see cmd_node)
};
static Real_t &field(Domain *d, Field f, int i) {
  switch (f) {
  case E: return d->m_e[i];
  case X: return d->m_x[i];
  case XD: return d->m_xd[i];
  default: return d->m_yd[i];
  }
}
// LULESH's Sedov problem is symmetric under permutations of the axes:
// mirrored elements have bitwise equal states and tie in the minimum of
// CalcCourantConstraintForElems, where the result is not differentiable
// (AD gives the slope of the first tied element, central differences the
// mean of the one-sided slopes). g_asym moves node (1,1,1) by (1, 2, -3)
// 1e-3 of the mesh spacing before anything else: no ties are left.
static bool g_asym = false;
// the primal Domain an input is taken at
static Domain *start(int nx, const Input &in) {
  Domain *d = build(nx);
  if (g_asym) {
    int n1 = nx + 1, q = 1 + n1 + n1 * n1;
    double dl = 1e-3 * 1.125 / nx;
    d->m_x[q] += dl;
    d->m_y[q] += 2 * dl;
    d->m_z[q] -= 3 * dl;
  }
  if (in.vcut0) zero(d->m_v_cut);
  for (int i = 0; i < in.warm; ++i) {
    TimeIncrement(*d);
    LagrangeLeapFrog(*d);
  }
  return d;
}
// f(input = base + h), from a fresh Domain
static double primal_at(int nx, int its, const Input &in, double h, bool rebuilt = false) {
  Domain *d = start(nx, in);
  field(d, in.f, in.idx) += h;
  double r = rebuilt ? simulate_rebuilt(d, its) : simulate(d, its);
  delete d;
  return r;
}
static double base_value(int nx, const Input &in) {
  Domain *d = start(nx, in);
  double v = field(d, in.f, in.idx);
  delete d;
  return v;
}
static double ad_rev(int nx, int its, const Input &in, bool rebuilt = false) {
  Domain *d = start(nx, in), *s = build_shadow(nx);
#ifdef STUDY
  if (rebuilt)
    __enzyme_autodiff((void *)simulate_rebuilt, enzyme_dup, d, s, enzyme_const, its);
  else
#else
  (void)rebuilt;
#endif
    __enzyme_autodiff((void *)simulate, enzyme_dup, d, s, enzyme_const, its);
  double g = field(s, in.f, in.idx);
  delete d;
  delete s;
  return g;
}
#ifdef STUDY
static double ad_fwd(int nx, int its, const Input &in) {
  Domain *d = start(nx, in), *s = build_shadow(nx);
  field(s, in.f, in.idx) = 1.0;
  double t = __enzyme_fwddiff((void *)simulate, enzyme_dup, d, s, enzyme_const, its);
  delete d;
  delete s;
  return t;
}
#endif
static double fd(int nx, int its, const Input &in, double h, bool rebuilt = false) {
  return (primal_at(nx, its, in, h, rebuilt) - primal_at(nx, its, in, -h, rebuilt)) / (2 * h);
}

// A cube element's relative volume moves by 1/(4a) per unit of one of its
// corners' coordinates (a = 1.125/nx, the edge): in the first cycle nothing
// moves, every relative volume is exactly 1 and UpdateVolumesForElems snaps
// |v - 1| < v_cut = 1e-10 to 1, so a coordinate perturbed by less than
// v_cut * 4a stays inside that branch, where the derivative is what AD
// gives at the unperturbed point.
static double vcut_band(int nx) { return 1e-10 * 4 * (1.125 / nx); }

static int check_table(int nx, int its, bool strict) {
  int n1 = nx + 1;
  int corner7 = n1;              // (0,1,0): the node 7 at nx=6
  int inner = 1 + n1 + n1 * n1;  // (1,1,1): interior node of element 0
  Input ins[] = {
      {"e[0]", E, 0, 0, false, false},
      {"x[node (0,1,0)], v_cut = 0", X, corner7, 0, true, false},
      {"x[node (0,1,0)], h in v_cut band", X, corner7, 0, false, true},
      {"x[node (1,1,1)], after 3 cycles", X, inner, 3, false, false},
      {"xd[node (1,0,0)], after 3 cycles", XD, 1, 3, false, false},
      {"yd[node (1,1,1)], after 3 cycles", YD, inner, 3, false, false},
  };
  int bad = 0, kinks = 0;
  printf("%-36s %12s %20s %20s %9s %20s %20s  %s\n", "input", "value", "enz AD", "central FD", "rel.err", "forward FD",
         "backward FD", "verdict");
  for (const Input &in : ins) {
    double v = base_value(nx, in);
    double g = ad_rev(nx, its, in);
    // steps: 1e-6 relative for the energy, 1e-6 of the mesh spacing for a
    // coordinate (a fifth of the v_cut band for the in-band check), 1e-5
    // relative for a velocity
    double h = in.f == E ? 1e-6 * fabs(v)
               : in.f == X ? (in.inband ? 0.2 * vcut_band(nx) : 1e-6 * 1.125 / nx)
                           : 1e-5 * fmax(fabs(v), 1e-3);
    double fp = primal_at(nx, its, in, h), fm = primal_at(nx, its, in, -h), f0 = primal_at(nx, its, in, 0);
    double c = (fp - fm) / (2 * h), fw = (fp - f0) / h, bw = (f0 - fm) / h;
    double c10 = fd(nx, its, in, h / 10);
    // inside the band the step is ~1e-11: central differences carry
    // roundoff of ~eps |f| / h, so the tolerance there is 1e-3
    double tol = in.inband ? 1e-3 : 1e-4;
    auto near = [&](double a, double b, double t) { return fabs(a - b) <= t * fabs(b) + 1e-6; };
    double err = fabs(g - c) / fmax(fabs(c), 1e-300);
    const char *verdict;
    bool ok;
    if (near(g, c, tol) || (!in.inband && near(g, c10, tol))) {
      verdict = "ok";
      ok = true;
    } else if (!near(fw, bw, 1e-3) && (near(g, fw, 1e-3) || near(g, bw, 1e-3))) {
      // a kink: the one-sided slopes differ (a min over tied time-step
      // constraints); AD gives the slope of the branch taken at the point,
      // which is one of them, and central differences their mean
      verdict = near(g, fw, 1e-3) ? "kink: AD = forward FD" : "kink: AD = backward FD";
      ok = true;
      ++kinks;
    } else {
      verdict = strict ? "MISMATCH" : "AD neither one-sided slope";
      ok = false;
    }
    printf("%-36s %12.6g %20.10g %20.10g %9.2e %20.10g %20.10g  %s\n", in.name, v, g, c, err, fw, bw, verdict);
    (void)c10;
#ifdef STUDY
    printf("%-36s %12s %20.10g (forward mode)\n", "", "", ad_fwd(nx, its, in));
#endif
    bad += !ok;
  }
  if (!strict) {
    printf("%d inputs, %d at a kink, %d where AD is neither one-sided slope (several tied elements)\n",
           (int)(sizeof ins / sizeof ins[0]), kinks, bad);
    return 0;
  }
  // the default v_cut, a coordinate, FD with an ordinary step: AD differs
  // (not a failure: the step leaves the branch AD differentiates)
  Input c = {"x[node (0,1,0)]", X, corner7, 0, false, false};
  printf("%-36s %12.6g %20.10g %20.10g (FD step %.2g leaves the v_cut branch; not checked)\n", c.name,
         base_value(nx, c), ad_rev(nx, its, c), fd(nx, its, c, 1e-6 * 1.125 / nx), 1e-6 * 1.125 / nx);
  printf("%d inputs checked, %d at a kink, %d mismatches\n", (int)(sizeof ins / sizeof ins[0]), kinks, bad);
  return bad ? 1 : 0;
}

// checked: node (1,1,1) moved off the symmetric mesh (no ties); then, not
// checked, LULESH's own symmetric initial state, where the time-step
// minimum has ties from cycle 5 on (nx=6) and the one-sided slopes differ
static int cmd_check(int nx, int its) {
  printf("node (1,1,1) moved by (1, 2, -3) 1e-3 of the spacing (no tied time-step constraints): checked\n");
  g_asym = true;
  int rc = check_table(nx, its, true);
  g_asym = false;
  printf("\nLULESH's symmetric initial state (tied time-step constraints): not checked\n");
  check_table(nx, its, false);
  return rc;
}

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static int cmd_time(int nx, int its) {
  std::vector<double> tp, tg;
  double value = 0, total = 0;
  // primal: at least 5 runs and 1 s
  while (tp.size() < 5 || total < 1.0) {
    Domain *d = build(nx);
    double a = now();
    value = simulate(d, its);
    double b = now();
    delete d;
    tp.push_back(b - a);
    total += b - a;
    if (tp.size() >= 200) break;
  }
  total = 0;
  // gradient: at least 3 runs and 2 s, at most 11
  while (tg.size() < 3 || (total < 2.0 && tg.size() < 11)) {
    Domain *d = build(nx), *s = build_shadow(nx);
    double a = now();
    __enzyme_autodiff((void *)simulate, enzyme_dup, d, s, enzyme_const, its);
    double b = now();
    delete d;
    delete s;
    tg.push_back(b - a);
    total += b - a;
  }
  double pm = median(tp), gm = median(tg);
  double pmin = *std::min_element(tp.begin(), tp.end()), gmin = *std::min_element(tg.begin(), tg.end());
  printf("value %.17g\n", value);
  printf("primal_s %.6f %.6f %zu\n", pm, pmin, tp.size());
  printf("grad_s %.6f %.6f %zu\n", gm, gmin, tg.size());
  printf("ratio %.3f %.3f\n", gm / pm, gmin / pmin);
  return 0;
}

// f(x[node] + h) - f(x[node] - h) over 2h, with the primal's relative
// volume tolerance v_cut (UpdateVolumesForElems: |v - 1| < v_cut -> v = 1)
// set to vcut
static double fd_vcut(int nx, int its, int node, double h, double vcut) {
  double f[2];
  for (int k = 0; k < 2; ++k) {
    Domain *d = build(nx);
    zero(d->m_v_cut);
    *const_cast<Real_t *>(&d->m_v_cut) = vcut;
    d->m_x[node] += k ? -h : h;
    f[k] = simulate(d, its);
    delete d;
  }
  return (f[0] - f[1]) / (2 * h);
}

static int cmd_node(int nx, int its, int node) {
  Input in = {"x", X, node, 0};
  Domain *d = build(nx);
  printf("node %d: (x, y, z) = (%.6g, %.6g, %.6g); nodalMass %.6g; v_cut %.3g\n", node, d->x(node), d->y(node),
         d->z(node), d->nodalMass(node), d->v_cut());
  delete d;
  // cycle 1 at the base point: nothing moves (p = q = 0, velocities 0), so
  // every element's relative volume is exactly 1 and UpdateVolumesForElems
  // takes its |v - 1| < v_cut branch (v = 1, derivative 0). How far x[node]
  // must move for an element's first-cycle vnew to leave that band:
  {
    Domain *a = build(nx), *b = build(nx);
    double h = 1e-6;
    b->m_x[node] += h;
    simulate(a, 1);
    TimeIncrement(*b);
    LagrangeNodal(*b);
    CalcLagrangeElements(*b);
    for (Index_t k = 0; k < nx * nx * nx; ++k) {
      double dv = (b->vnew(k) - 1.0) / h;
      if (dv != 0)
        printf("  cycle 1, element %d: v = %.17g at the base point; d vnew/dx = %.6f: leaves the v_cut band for |h| > "
               "%.3g\n",
               (int)k, a->v(k), dv, a->v_cut() / fabs(dv));
    }
    delete a;
    delete b;
  }
  printf("f = %.17g\n", primal_at(nx, its, in, 0));
  printf("AD reverse, x perturbed after construction:   %.10f\n", ad_rev(nx, its, in));
#ifdef STUDY
  printf("AD forward, x perturbed after construction:   %.10f\n", ad_fwd(nx, its, in));
#endif
  for (double h = 1e-3; h >= 0.99e-12; h /= 10) {
    double fp = primal_at(nx, its, in, h), fm = primal_at(nx, its, in, -h), f0 = primal_at(nx, its, in, 0);
    printf("  h=%.0e  FD after construction: central %.6f  forward %.6f  backward %.6f\n", h, (fp - fm) / (2 * h),
           (fp - f0) / h, (f0 - fm) / h);
  }
  // the same function with v_cut = 0 (no snapping): AD of simulate on a
  // Domain whose v_cut is 0 (the tolerance is data, not code)
  {
    Domain *d = build(nx), *s = build_shadow(nx);
    *const_cast<Real_t *>(&d->m_v_cut) = 0.0;
    __enzyme_autodiff((void *)simulate, enzyme_dup, d, s, enzyme_const, its);
    printf("AD reverse, v_cut = 0:                        %.10f\n", s->m_x[node]);
    delete d;
    delete s;
  }
  for (double h = 1e-3; h >= 0.99e-12; h /= 100)
    printf("  h=%.0e  FD, v_cut = 0: central %.6f\n", h, fd_vcut(nx, its, node, h, 0.0));
#ifdef STUDY
  printf("AD reverse, volo/masses/dt rebuilt from x:    %.10f\n", ad_rev(nx, its, in, true));
#endif
  for (double h = 1e-3; h >= 0.99e-9; h /= 100)
    printf("  h=%.0e  FD, volo/masses/dt rebuilt from x: central %.6f\n", h, fd(nx, its, in, h, true));
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s check|time|primal|grad|node NX ITS [NODE]\n", argv[0]);
    return 2;
  }
  const char *mode = argv[1];
  int nx = atoi(argv[2]), its = atoi(argv[3]);
  if (!strcmp(mode, "check")) return cmd_check(nx, its);
  if (!strcmp(mode, "time")) return cmd_time(nx, its);
  if (!strcmp(mode, "node")) return cmd_node(nx, its, argc > 4 ? atoi(argv[4]) : nx + 1);
  if (!strcmp(mode, "primal")) {
    Domain *d = build(nx), *s = build_shadow(nx);
    printf("value %.17g\n", simulate(d, its));
    delete d;
    delete s;
    return 0;
  }
  if (!strcmp(mode, "grad")) {
    Domain *d = build(nx), *s = build_shadow(nx);
    __enzyme_autodiff((void *)simulate, enzyme_dup, d, s, enzyme_const, its);
    printf("de0 %.17g\n", s->m_e[0]);
    delete d;
    delete s;
    return 0;
  }
  fprintf(stderr, "unknown mode %s\n", mode);
  return 2;
}
