/* cpp_eigen_unoptimised.cpp: Eigen objects passed by pointer, each with its
 * shadow and no markers, from code clang did not optimise
 * (-Xclang -disable-llvm-passes, as Enzyme's simpleeigen*.cpp RUN lines at
 * -O1 do). Unmarked pointers default to enzyme_dup, except memory type
 * analysis finds holding integers only; in this unoptimised code it saw
 * too little of one of the matrices and took it for integers, so the call
 * had a value left over and was refused ("too many arguments"). A call
 * with values left over is now parsed again with every unmarked pointer
 * enzyme_dup.
 * Checked: out = W b (W 3x5, b dynamic), seeded with an output adjoint
 * d: dW = d b^T and db = W^T d against the analytic values and central
 * differences of d . (W b). The previous
 * binary refused the call at every level. */
// enz-cflags: -I/usr/include/eigen3 -Xclang -disable-llvm-passes
// With LLVM's passes disabled the plugin, which runs among them, never
// runs: CLI route only.
// enz-plugin-levels: none
#include <Eigen/Dense>
#include "enzyme.h"
#include "check.h"

typedef Eigen::Matrix<double, 3, 5> Mat35;

__attribute__((noinline)) static void matvec(const Mat35 *W, const Eigen::VectorXd *b,
                                             Eigen::VectorXd *out) {
  *out = (*W) * (*b);
}

/* d . (W b), the loss whose gradient the seeded call gives. */
static double seeded(const Mat35 &W, const Eigen::VectorXd &b, const double *d) {
  Eigen::VectorXd out(3);
  matvec(&W, &b, &out);
  return d[0] * out(0) + d[1] * out(1) + d[2] * out(2);
}

int main() {
  Mat35 W, dW;
  Eigen::VectorXd b(5), db(5), out(3), dout(3);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 5; j++)
      W(i, j) = 0.1 * (i + 1) - 0.05 * j * j;
  for (int j = 0; j < 5; j++)
    b(j) = 1.0 + 0.25 * j;
  const double seed[3] = {1.0, -2.0, 0.5};
  dW.setZero();
  db.setZero();
  out.setZero();
  for (int i = 0; i < 3; i++)
    dout(i) = seed[i];
  __enzyme_autodiff((void *)matvec, &W, &dW, &b, &db, &out, &dout);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 5; j++) {
      check_at("dW(%d,%d)", i, j);
      check_close("vs d b^T", dW(i, j), seed[i] * b(j), TOL_AD);
      Mat35 Wp = W, Wm = W;
      const double h = 1e-6;
      Wp(i, j) += h;
      Wm(i, j) -= h;
      check_close("vs FD", dW(i, j), (seeded(Wp, b, seed) - seeded(Wm, b, seed)) / (2 * h),
                  TOL_FD);
    }
  for (int j = 0; j < 5; j++) {
    double want = 0;
    for (int i = 0; i < 3; i++)
      want += W(i, j) * seed[i];
    check_at("db(%d)", j);
    check_close("vs W^T d", db(j), want, TOL_AD);
    Eigen::VectorXd bp = b, bm = b;
    const double h = 1e-6;
    bp(j) += h;
    bm(j) -= h;
    check_close("vs FD", db(j), (seeded(W, bp, seed) - seeded(W, bm, seed)) / (2 * h), TOL_FD);
  }
  return check_report();
}
