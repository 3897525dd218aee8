// cpp_fwd_zero_tangent.cpp: forward mode through C++ (a class holding
// std::vectors, a std::vector temporary per call, a virtual weight
// function) where most tangents of a Jacobian column are zero, the
// Jacobian built one __enzyme_fwddiff call per parameter:
//
//   Rig::pose(theta, out): for each joint b < NB,
//     m_b = base_b cos(s_b theta[b / 2]) (in a std::vector), s_b = 0.4 + 0.1 b;
//     then for each point v < nv: out[v] += weight(b, v) m_b p_v;
//   and out[v] += theta[NT - 1] (1 + v) afterwards.
//
// Along e_k only joints 2k and 2k + 1 have a nonzero tangent of m_b, so the
// point loop of every other joint adds nothing to out's tangent (enz-rs
// checks that before the loop and runs it without its tangent work);
// along e_{NT-1} every joint's loop is skipped. A random direction makes
// every tangent nonzero.
//   d out[v] / d theta_k = sum_{b / 2 == k} -weight(b, v) base_b s_b
//                            sin(s_b theta_k) p_v  + (k == NT - 1)(1 + v)
// Checked against the analytic Jacobian and central finite differences,
// with and without exceptions.
#include <math.h>
#include <vector>
#include "enzyme.h"
#include "check.h"

enum { NB = 6, NT = NB / 2 + 1, NV = 40 };

struct Weights {
  virtual ~Weights() {}
  virtual double weight(int b, int v) const = 0;
};

struct Falloff : Weights {
  double weight(int b, int v) const override { return 1.0 / (1.0 + 0.05 * (v - 6 * b) * (v - 6 * b)); }
};

// Throws at joint b_at, point v_at (exceptions builds): the derivative
// unwinds from inside a joint's point loop, skipped or not.
struct Throwing : Falloff {
  int b_at, v_at;
  Throwing(int b, int v) : b_at(b), v_at(v) {}
  double weight(int b, int v) const override {
#ifdef __cpp_exceptions
    if (b == b_at && v == v_at)
      throw 42;
#endif
    return Falloff::weight(b, v);
  }
};

struct Rig {
  std::vector<double> base, pts;
  const Weights *w;
  int nv;

  Rig(const Weights *w_, int nv_) : w(w_), nv(nv_) {
    for (int b = 0; b < NB; b++)
      base.push_back(0.5 + 0.25 * b);
    for (int v = 0; v < nv; v++)
      pts.push_back(sin(0.3 * v) + 1.5);
  }

  void pose(const double *theta, double *out) const {
    std::vector<double> m(NB);
    for (int b = 0; b < NB; b++)
      m[b] = base[b] * cos((0.4 + 0.1 * b) * theta[b / 2]);
    for (int b = 0; b < NB; b++)
      for (int v = 0; v < nv; v++)
        out[v] += w->weight(b, v) * m[b] * pts[v];
    for (int v = 0; v < nv; v++)
      out[v] += theta[NT - 1] * (1 + v);
  }
};

__attribute__((noinline)) static void pose(const double *theta, const Rig *rig, double *out) {
  rig->pose(theta, out);
}

static double want(const Rig &rig, const double *theta, const double *dir, int v) {
  double d = dir[NT - 1] * (1 + v);
  for (int b = 0; b < NB; b++) {
    double s = 0.4 + 0.1 * b;
    d += -rig.w->weight(b, v) * rig.base[b] * s * sin(s * theta[b / 2]) * rig.pts[v] * dir[b / 2];
  }
  return d;
}

static void column(const Rig &rig, const double *theta, const double *dir, double *dout) {
  double out[NV] = {0};
  for (int v = 0; v < rig.nv; v++)
    dout[v] = 0.0;
#ifdef NO_AD
  for (int v = 0; v < rig.nv; v++)
    dout[v] = want(rig, theta, dir, v);
#else
  __enzyme_fwddiff((void *)pose, enzyme_dup, theta, dir, enzyme_const, &rig, enzyme_dup, out,
                   dout);
#endif
}

static double fd(const Rig &rig, const double *theta, const double *dir, int v) {
  double h = 1e-6, tp[NT], tm[NT], op[NV] = {0}, om[NV] = {0};
  for (int k = 0; k < NT; k++) {
    tp[k] = theta[k] + h * dir[k];
    tm[k] = theta[k] - h * dir[k];
  }
  pose(tp, &rig, op);
  pose(tm, &rig, om);
  return (op[v] - om[v]) / (2 * h);
}

int main(void) {
  Falloff fall;
  double theta[NT] = {0.7, -1.1, 0.4, 0.9};
  check_seed(11);
  for (int nv : {int(NV), 7}) {
    Rig rig(&fall, nv);
    for (int k = 0; k <= NT; k++) {
      double dir[NT] = {0}, dout[NV];
      if (k < NT)
        dir[k] = 1.0;
      else
        check_rand_dir(dir, NT);
      column(rig, theta, dir, dout);
      for (int v = 0; v < nv; v += 3) {
        check_at("nv=%d column %d point %d", nv, k, v);
        check_close("vs analytic", dout[v], want(rig, theta, dir, v), TOL_AD);
        check_close("vs FD", dout[v], fd(rig, theta, dir, v), TOL_FD);
      }
    }
  }
#if defined(__cpp_exceptions) && !defined(NO_AD)
  // A throw at joint 3, point 5: along e_0 joints 0 and 1 ran in full (their
  // tangents are the analytic ones), joint 3's loop is the skipped copy and
  // unwinds through the cleanup that frees m and its shadow; along e_{NT-1}
  // every joint's loop is skipped and nothing was added.
  for (int k : {0, int(NT) - 1}) {
    Throwing thr(3, 5);
    Rig rig(&thr, NV);
    double dir[NT] = {0}, out[NV] = {0}, dout[NV] = {0};
    dir[k] = 1.0;
    int caught = 0;
    try {
      __enzyme_fwddiff((void *)pose, enzyme_dup, theta, dir, enzyme_const, &rig, enzyme_dup, out,
                       dout);
    } catch (int e) {
      caught = e == 42;
    }
    check_at("throw at joint 3 point 5, column %d", k);
    check_close("the exception reached the caller", caught, 1, 0);
    for (int v = 0; v < NV; v += 3) {
      double d = 0;
      for (int b = 0; b < 2 && k == 0; b++) {
        double sb = 0.4 + 0.1 * b;
        d += -thr.weight(b, v) * rig.base[b] * sb * sin(sb * theta[0]) * rig.pts[v];
      }
      check_close("tangent before the throw", dout[v], d, TOL_AD);
    }
  }
#endif
  return check_report();
}
