/* A global pointing to heap memory the program allocated outside
 * differentiated code, written and read by the function: the global's
 * shadow is null, so the derivative has nowhere to put the memory's
 * derivatives. It must stop with a message naming the global, not fault.
 * (`ok` takes the same path with the memory passed as an argument.) */
#include <stdio.h>
#include <stdlib.h>
#include "enzyme.h"

double *a;

double f(double x) {
  for (int i = 0; i < 8; i++)
    a[i] = a[i] * x;
  double s = 0;
  for (int i = 0; i < 8; i++)
    s += a[i] * a[i];
  return s;
}

int main(int argc, char **argv) {
  (void)argv;
  a = malloc(8 * sizeof(double));
  for (int i = 0; i < 8; i++)
    a[i] = i + 1;
  if (argc > 1)
    return 0;
  printf("%g\n", __enzyme_autodiff((void *)f, 2.0));
  return 0;
}
