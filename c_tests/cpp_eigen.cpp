// cpp_eigen.cpp: Eigen fixed-size and dynamic matrices in reverse mode,
// with and without exceptions:
//  - fixed(a): A = Matrix3d from a[0..9) (row-major), y = A * m where m is
//    the Map of a constant vector, f = ||y||^2 + det(A)
//    df/dA_ij = 2 y_i m_j + cofactor_ij(A)
//  - dynamic(a): B = MatrixXd 3x3 (a, row-major), z = B.transpose() * B *
//    ones, f = z.sum() + B.squaredNorm()
//    with C = B^T B: z = C 1, sum(z) = sum_ij C_ij = sum_k (sum_i B_ki)^2
//    df/dB_ki = 2 r_k + 2 B_ki, r_k = sum_i B_ki
//  - solve(a): x = A.partialPivLu().solve(b), f = sum_i x_i
//    df/dA = -A^-T 1 x^T
// Checked against those analytic derivatives and central finite
// differences.
// enz-cflags: -I/usr/include/eigen3 -DEIGEN_DONT_VECTORIZE
// enz-plugin-levels: O2
#include <Eigen/Dense>
#include <math.h>
#include "enzyme.h"
#include "check.h"

using Eigen::Map;
using Eigen::Matrix3d;
using Eigen::MatrixXd;
using Eigen::Vector3d;

static const double mvec[3] = {0.5, -1.25, 2.0};

double fixed(const double *a) {
  Matrix3d A;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      A(i, j) = a[3 * i + j];
  Map<const Vector3d> m(mvec);
  Vector3d y = A * m;
  return y.squaredNorm() + A.determinant();
}

double dynamic(const double *a) {
  MatrixXd B(3, 3);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      B(i, j) = a[3 * i + j];
  Eigen::VectorXd ones = Eigen::VectorXd::Ones(3);
  Eigen::VectorXd z = B.transpose() * B * ones;
  return z.sum() + B.squaredNorm();
}

static const double bvec[3] = {1.0, -2.0, 0.5};

double solve(const double *a) {
  Matrix3d A;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      A(i, j) = a[3 * i + j];
  Vector3d b(bvec[0], bvec[1], bvec[2]);
  Vector3d x = A.partialPivLu().solve(b);
  return x.sum();
}

static void analytic(const double *a, double *dfix, double *ddyn, double *dsol) {
  Matrix3d A;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      A(i, j) = a[3 * i + j];
  Vector3d m(mvec[0], mvec[1], mvec[2]);
  Vector3d y = A * m;
  Matrix3d cof = A.determinant() * A.inverse().transpose();
  Vector3d b(bvec[0], bvec[1], bvec[2]);
  Vector3d x = A.inverse() * b;
  Vector3d w = A.inverse().transpose() * Vector3d::Ones();
  for (int i = 0; i < 3; i++) {
    double r = A.row(i).sum();
    for (int j = 0; j < 3; j++) {
      dfix[3 * i + j] = 2 * y(i) * m(j) + cof(i, j);
      ddyn[3 * i + j] = 2 * r + 2 * A(i, j);
      dsol[3 * i + j] = -w(i) * x(j);
    }
  }
}

int main() {
  const double base[9] = {2.0, 0.3, -0.4, 0.1, 1.5, 0.7, -0.6, 0.2, 1.8};
  for (int p = 0; p < 2; p++) {
    double a[9];
    for (int k = 0; k < 9; k++)
      a[k] = base[k] + 0.1 * p * k;
    double w1[9], w2[9], w3[9];
    analytic(a, w1, w2, w3);
    double d1[9] = {0}, d2[9] = {0}, d3[9] = {0};
#ifdef NO_AD
    for (int k = 0; k < 9; k++) {
      d1[k] = w1[k];
      d2[k] = w2[k];
      d3[k] = w3[k];
    }
#else
    __enzyme_autodiff((void *)fixed, a, d1);
    __enzyme_autodiff((void *)dynamic, a, d2);
    __enzyme_autodiff((void *)solve, a, d3);
#endif
    for (int k = 0; k < 9; k++) {
      check_at("p=%d a[%d]", p, k);
      double h = 1e-6, ap[9], am[9];
      for (int j = 0; j < 9; j++)
        ap[j] = am[j] = a[j];
      ap[k] += h;
      am[k] -= h;
      check_close("fixed vs analytic", d1[k], w1[k], TOL_AD);
      check_close("fixed vs FD", d1[k], (fixed(ap) - fixed(am)) / (ap[k] - am[k]), TOL_FD);
      check_close("dynamic vs analytic", d2[k], w2[k], TOL_AD);
      check_close("dynamic vs FD", d2[k], (dynamic(ap) - dynamic(am)) / (ap[k] - am[k]), TOL_FD);
      check_close("solve vs analytic", d3[k], w3[k], TOL_AD);
      check_close("solve vs FD", d3[k], (solve(ap) - solve(am)) / (ap[k] - am[k]), TOL_FD);
    }
  }
  return check_report();
}
