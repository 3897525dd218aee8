/* call_cuda_host_memory.c: host code staging data through CUDA's runtime
 * (cudaMalloc, cudaMemset, cudaMemcpy in every direction, cudaFree),
 * differentiated in reverse (combined and split) and forward mode. The
 * derivatives must reach device memory through the runtime too: this
 * file's stand-in runtime keeps "device" memory in pages the host cannot
 * touch (PROT_NONE, opened only inside cudaMemcpy/cudaMemset), so a
 * derivative that reads or zeroes a device shadow directly faults; each
 * cudaMemcpy's kind is checked against where its pointers are.
 *   staged(x, n) = sum_i w_i (x_i + 1)^2 x_i, the x_i having gone host ->
 *   device -> device -> host (the +1 by a second copy onto a device
 *   block first set to ones... as bytes: cudaMemset fills, then a copy)
 * Checked against the analytic gradient and central differences. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "enzyme.h"
#include "check.h"

enum { HostToHost, HostToDevice, DeviceToHost, DeviceToDevice, Default };

#define MAX_BLOCKS 64
static struct {
  char *p;
  size_t n;
} blocks[MAX_BLOCKS];
static int wrong_kind, runtime_calls;

static size_t pages(size_t n) { return (n + 4095) / 4096 * 4096 + 4096; }
static int device_block(const void *p) {
  for (int k = 0; k < MAX_BLOCKS; k++)
    if (blocks[k].p && (const char *)p >= blocks[k].p &&
        (const char *)p < blocks[k].p + pages(blocks[k].n))
      return k;
  return -1;
}
static void open_block(const void *p, int rw) {
  int k = device_block(p);
  if (k >= 0)
    mprotect(blocks[k].p, pages(blocks[k].n),
             rw ? PROT_READ | PROT_WRITE : PROT_NONE);
}

__attribute__((noinline)) int cudaMalloc(void **p, size_t n) {
  runtime_calls++;
  for (int k = 0; k < MAX_BLOCKS; k++)
    if (!blocks[k].p) {
      blocks[k].p = mmap(0, pages(n), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
                         -1, 0);
      blocks[k].n = n;
      *p = blocks[k].p;
      return 0;
    }
  return 2;
}
__attribute__((noinline)) int cudaFree(void *p) {
  runtime_calls++;
  int k = device_block(p);
  if (k < 0)
    return 1;
  munmap(blocks[k].p, pages(blocks[k].n));
  blocks[k].p = 0;
  return 0;
}
__attribute__((noinline)) int cudaMemset(void *p, int v, size_t n) {
  runtime_calls++;
  if (device_block(p) < 0)
    wrong_kind++;
  open_block(p, 1);
  memset(p, v, n);
  open_block(p, 0);
  return 0;
}
__attribute__((noinline)) int cudaMemcpy(void *d, const void *s, size_t n,
                                         int kind) {
  runtime_calls++;
  int dd = device_block(d) >= 0, sd = device_block(s) >= 0;
  if (kind != Default && (dd != (kind == HostToDevice || kind == DeviceToDevice) ||
                          sd != (kind == DeviceToHost || kind == DeviceToDevice)))
    wrong_kind++;
  open_block(d, 1);
  open_block(s, 1);
  memmove(d, s, n);
  open_block(d, 0);
  open_block(s, 0);
  return 0;
}

static const double W[] = {0.5, -1.25, 2.0, 0.75, 1.5, -0.4};
#define N 6

__attribute__((noinline)) double staged(const double *x, int n) {
  size_t bytes = n * sizeof(double);
  double *dev, *dev2;
  cudaMalloc((void **)&dev, bytes);
  cudaMalloc((void **)&dev2, bytes);
  cudaMemset(dev2, 0, bytes);
  cudaMemcpy(dev, x, bytes, HostToDevice);
  cudaMemcpy(dev2, dev, bytes, DeviceToDevice);
  double *back = malloc(bytes), *ones = malloc(bytes);
  cudaMemcpy(back, dev2, bytes, DeviceToHost);
  for (int i = 0; i < n; i++)
    ones[i] = back[i] + 1;
  cudaMemcpy(dev, ones, bytes, Default); /* overwrites the device copy */
  cudaMemcpy(ones, dev, bytes, DeviceToHost);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += W[i] * ones[i] * ones[i] * back[i];
  free(back), free(ones);
  cudaFree(dev);
  cudaFree(dev2);
  return s;
}

static double staged_all(const double *x) { return staged(x, N); }

int main(void) {
  double x[N] = {0.3, -0.7, 1.1, 0.25, -1.6, 0.9};
  double want[N];
  for (int i = 0; i < N; i++)
    want[i] = W[i] * ((x[i] + 1) * (x[i] + 1) + 2 * (x[i] + 1) * x[i]);

  double dx[N] = {0};
  __enzyme_autodiff((void *)staged, enzyme_dup, x, dx, enzyme_const, N);
  check_at("reverse");
  for (int i = 0; i < N; i++) {
    check_close_i("d/dx vs analytic", i, dx[i], want[i], TOL_AD);
    check_close_i("d/dx vs FD", i, dx[i], fdn(staged_all, x, N, i), TOL_FD);
  }

  double ds[N] = {0};
  void *tape = __enzyme_augmentfwd((void *)staged, enzyme_dup, x, ds,
                                   enzyme_const, N);
  __enzyme_reverse((void *)staged, enzyme_dup, x, ds, enzyme_const, N, 1.0,
                   tape);
  check_at("split");
  for (int i = 0; i < N; i++)
    check_close_i("split vs combined", i, ds[i], dx[i], TOL_AD);

  check_at("forward");
  for (int i = 0; i < N; i++) {
    double t[N] = {0};
    t[i] = 1;
    double d = __enzyme_fwddiff((void *)staged, enzyme_dup, x, t,
                                enzyme_const, N);
    check_close_i("tangent vs analytic", i, d, want[i], TOL_AD);
  }

  check_at("runtime");
  check_close("cudaMemcpy kinds that do not match their pointers", wrong_kind,
              0, 0);
  int live = 0;
  for (int k = 0; k < MAX_BLOCKS; k++)
    live += blocks[k].p != 0;
  check_close("device blocks left allocated", live, 0, 0);
  check_close("runtime called", runtime_calls > 0, 1, 0);
  return check_report();
}
