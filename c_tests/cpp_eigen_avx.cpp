// cpp_eigen_avx.cpp: Eigen with its AVX/FMA packet code (-march=x86-64-v3,
// no EIGEN_DONT_VECTORIZE), as users build it: dynamic matrices live in
// Eigen's hand-aligned heap blocks (malloc + 32, the address rounded up by
// integer arithmetic, the original pointer kept just below), blocked
// kernels in aligned stack buffers carved the same way, and every product
// multiplies through Eigen's inline-assembly `vfmadd231pd`. Reverse and
// forward mode, with and without exceptions:
//  - llt(a): A = 4x4 MatrixXd from a (row-major), B = A A^T + 3 I,
//    y = B^-1 b by LLT, f = b . y        df/dA = -2 y y^T A
//  - prod(a): A as above, f = |A v|^2 + sum sin(A_ij) (v constant)
//    df/dA_ij = 2 (A v)_i v_j + cos(A_ij)
// Checked against those derivatives and central finite differences.
// enz-cflags: -I/usr/include/eigen3 -march=x86-64-v3
// enz-plugin-levels: O2
#include <Eigen/Dense>
#include <math.h>
#include "enzyme.h"
#include "check.h"

using Eigen::MatrixXd;
using Eigen::VectorXd;

static const double bvec[4] = {1.0, -0.5, 0.25, 2.0};
static const double vvec[4] = {0.5, -1.25, 2.0, 0.75};

static MatrixXd from(const double *a) {
  MatrixXd A(4, 4);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++)
      A(i, j) = a[4 * i + j];
  return A;
}

double llt(const double *a) {
  MatrixXd A = from(a);
  MatrixXd B = A * A.transpose() + 3.0 * MatrixXd::Identity(4, 4);
  VectorXd b = Eigen::Map<const VectorXd>(bvec, 4);
  VectorXd y = B.llt().solve(b);
  return b.dot(y);
}

double prod(const double *a) {
  MatrixXd A = from(a);
  VectorXd v = Eigen::Map<const VectorXd>(vvec, 4);
  VectorXd w = A * v;
  return w.squaredNorm() + A.array().sin().sum();
}

static void analytic(const double *a, double *dllt, double *dprod) {
  MatrixXd A = from(a);
  MatrixXd B = A * A.transpose() + 3.0 * MatrixXd::Identity(4, 4);
  VectorXd b = Eigen::Map<const VectorXd>(bvec, 4);
  VectorXd y = B.inverse() * b;
  MatrixXd G = -2.0 * y * y.transpose() * A;
  VectorXd v = Eigen::Map<const VectorXd>(vvec, 4);
  VectorXd w = A * v;
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) {
      dllt[4 * i + j] = G(i, j);
      dprod[4 * i + j] = 2 * w(i) * v(j) + cos(A(i, j));
    }
}

// Finite differences over 16 inputs (check.h's fdn takes at most 8).
static double fd16(double (*f)(const double *), const double *a, int k) {
  double p[16], m[16];
  for (int i = 0; i < 16; i++)
    p[i] = m[i] = a[i];
  double h = FD_REL * (1 + fabs(a[k]));
  p[k] += h;
  m[k] -= h;
  return (f(p) - f(m)) / (p[k] - m[k]);
}

int main() {
  for (int pt = 0; pt < 2; pt++) {
    double a[16];
    for (int k = 0; k < 16; k++)
      a[k] = 0.3 * sin(1.7 * k + pt) + (k % 5 == 0 ? 1.0 : 0.0);
    double want_llt[16], want_prod[16];
    analytic(a, want_llt, want_prod);
    double g_llt[16] = {0}, g_prod[16] = {0};
#ifdef NO_AD
    for (int k = 0; k < 16; k++) {
      g_llt[k] = want_llt[k];
      g_prod[k] = want_prod[k];
    }
#else
    __enzyme_autodiff((void *)llt, a, g_llt);
    __enzyme_autodiff((void *)prod, a, g_prod);
#endif
    for (int k = 0; k < 16; k++) {
      check_at("point %d a[%d]", pt, k);
      check_close("llt reverse vs analytic", g_llt[k], want_llt[k], TOL_AD);
      check_close("llt reverse vs FD", g_llt[k], fd16(llt, a, k), TOL_FD);
      check_close("prod reverse vs analytic", g_prod[k], want_prod[k], TOL_AD);
      check_close("prod reverse vs FD", g_prod[k], fd16(prod, a, k), TOL_FD);
    }
    for (int k = 0; k < 16; k += 5) {
      double t[16] = {0}, tl, tp;
      t[k] = 1;
#ifdef NO_AD
      tl = want_llt[k];
      tp = want_prod[k];
#else
      tl = __enzyme_fwddiff((void *)llt, a, t);
      tp = __enzyme_fwddiff((void *)prod, a, t);
#endif
      check_at("point %d a[%d]", pt, k);
      check_close("llt forward vs analytic", tl, want_llt[k], TOL_AD);
      check_close("prod forward vs analytic", tp, want_prod[k], TOL_AD);
    }
  }
  return check_report();
}
