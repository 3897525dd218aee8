// spring.cpp: the energy of a chain of springs and its gradient, with
// enz-rs's C++ interface; checked against central finite differences.
#include <cmath>
#include <cstdio>
#include <enzyme/enzyme>

// Logging: enz-rs leaves it alone (no derivative code for it).
__attribute__((enzyme_inactive)) void log_energy(double e) {
  static int calls;
  if (++calls == 1)
    std::printf("first energy: %g\n", e);
}

// Springs of rest length `rest` between consecutive points of a chain.
double chain_energy(const double *x, double k, double rest, int n) {
  double e = 0;
  for (int i = 0; i + 1 < n; i++) {
    double d = std::fabs(x[i + 1] - x[i]) - rest;
    e += 0.5 * k * d * d;
  }
  log_energy(e);
  return e;
}

static int checks, failed;
static void check(const char *what, double got, double want) {
  bool ok = std::fabs(got - want) <= 1e-5 * (1 + std::fabs(want));
  checks++;
  failed += !ok;
  std::printf("%s %s: %.12g vs %.12g\n", ok ? "ok  " : "FAIL", what, got, want);
}

int main() {
  const int n = 5;
  double x[n] = {0.0, 1.3, 2.1, 3.9, 4.2}, dx[n] = {0};
  double k = 2.5, rest = 1.0;
  auto r = enzyme::autodiff<enzyme::Reverse>(
      chain_energy, enzyme::Duplicated<const double *>(x, dx), enzyme::Active<double>(k),
      enzyme::Const<double>(rest), enzyme::Const<int>(n));
  double dk = enzyme::get<0>(enzyme::get<0>(r));
  for (int i = 0; i < n; i++) {
    double h = 1e-6, s = x[i];
    x[i] = s + h;
    double up = chain_energy(x, k, rest, n);
    x[i] = s - h;
    double down = chain_energy(x, k, rest, n);
    x[i] = s;
    check("dE/dx[i]", dx[i], (up - down) / (2 * h));
  }
  check("dE/dk", dk, chain_energy(x, k, rest, n) / k);
  // Forward mode: the energy's change when the chain is stretched.
  double stretch[n] = {0, 1, 2, 3, 4};
  auto t = enzyme::autodiff<enzyme::Forward>(chain_energy,
                                             enzyme::Duplicated<const double *>(x, stretch),
                                             k, rest, n);
  double want = 0;
  for (int i = 0; i < n; i++)
    want += dx[i] * stretch[i];
  check("directional", enzyme::get<0>(t), want);
  std::printf("%d checks, %d failed\n", checks, failed);
  return failed != 0;
}
