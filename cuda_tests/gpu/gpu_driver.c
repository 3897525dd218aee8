/*
 * gpu_driver.c -- runs one cuda_tests kernel (primal and gradient) either on
 * the CPU SIMT emulator or on a real GPU through the CUDA driver API, with
 * the same deterministic inputs, so that scripts/gpu-check.sh can compare
 * the two and time the GPU.
 *
 * Build (exactly one -DK_<name>: K_axpy K_reduce K_stencil K_loop K_lbm
 * K_hmlstm K_xsbench):
 *
 *   emulator: cc -DK_stencil -I runtime/emu gpu_driver.c runtime/emu/emu.c \
 *                k.emu.o -lpthread -lm -o drv.emu
 *             ./drv.emu OUT.bin           writes every buffer after the
 *                                         primal and after the gradient run
 *   GPU:      nvcc -DGPU -DK_stencil gpu_driver.c -lcuda -o drv.gpu
 *             (or, to test this path without a GPU, -DFAKE_GPU with
 *             fake/cuda.h and fake/fake_cuda.c, which run it on the emulator)
 *             ./drv.gpu K.ptx EMU.bin     loads the PTX (cuModuleLoadData),
 *                                         runs both kernels, compares with
 *                                         EMU.bin, then times both kernels on
 *                                         a large problem (kernels with one)
 *
 * Output lines the script greps: "compare: N values, M mismatches" and
 * "timing: primal X ms, gradient Y ms, ratio R" (medians). Exit status 0
 * only if everything matched.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXBUF 8
#define MAXARG 16

enum kind { IN, OUT, CONSTANT }; /* CONSTANT: inactive input, no shadow */

struct buffer {
  const char *name;
  char type; /* 'f' float, 'd' double, 'i' int */
  long len;
  enum kind kind;
  double lo, hi; /* uniform initial values (IN, CONSTANT) */
  int seeded;    /* its shadow gets random seeds in the gradient run */
};

struct spec {
  const char *name, *primal, *grad;
  unsigned grid, block;
  int nbuf;
  struct buffer buf[MAXBUF];
  int ints[4];
  /* argument lists: "b0" buffer, "s0" its shadow, "i0" an int */
  const char *primal_args, *grad_args;
  /* a problem size for timing (0: no timing) */
  int timed;
  /* special initial values */
  void (*init)(struct spec *s, void **data);
};

static uint64_t g_rng = 12345;
static double uniform(double lo, double hi) {
  g_rng = g_rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return lo + (hi - lo) * ((double)(g_rng >> 11) * (1.0 / 9007199254740992.0));
}

static size_t elem_size(char t) { return t == 'd' ? 8 : 4; }

static void set(void *data, char t, long i, double v) {
  if (t == 'f')
    ((float *)data)[i] = (float)v;
  else if (t == 'd')
    ((double *)data)[i] = v;
  else
    ((int *)data)[i] = (int)v;
}
static double get(const void *data, char t, long i) {
  if (t == 'f')
    return ((const float *)data)[i];
  if (t == 'd')
    return ((const double *)data)[i];
  return ((const int *)data)[i];
}

/* ---- special initial values ---------------------------------------- */
__attribute__((unused)) static void init_lbm(struct spec *s, void **data) {
  long n = s->ints[0];
  for (long i = 0; i < n; i++) {
    double rho = 1.0 + 0.2 * uniform(-1, 1), u = 0.1 * uniform(-1, 1);
    set(data[0], 'd', i, rho * (2.0 / 3.0) * (1 - 1.5 * u * u));
    set(data[0], 'd', n + i, rho / 6.0 * (1 + 3 * u + 3 * u * u));
    set(data[0], 'd', 2 * n + i, rho / 6.0 * (1 - 3 * u + 3 * u * u));
  }
}
__attribute__((unused)) static void init_hmlstm(struct spec *s, void **data) {
  for (long j = 0; j < s->ints[1]; j++) {
    set(data[4], 'f', j, j % 4 == 3);
    set(data[5], 'f', j, j % 2);
  }
}
#define XS_NNUC 6
#define XS_NGRID 32
#define XS_NPM 4
#define XS_NMAT 3
__attribute__((unused)) static void init_xs(struct spec *s, void **data) {
  (void)s;
  for (int n = 0; n < XS_NNUC; n++) {
    double e = 0;
    for (int j = 0; j < XS_NGRID; j++) {
      e += uniform(0.01, 0.06);
      set(data[0], 'd', n * XS_NGRID + j, e);
    }
  }
  for (int m = 0; m < XS_NMAT; m++)
    for (int k = 0; k < XS_NPM; k++)
      set(data[2], 'i', m * XS_NPM + k, (m + 2 * k) % XS_NNUC);
}

/* ---- the kernels ------------------------------------------------------ */
static struct spec make_spec(int large) {
#ifdef FAKE_GPU
  large = 0; /* the fake GPU is the emulator: keep "large" problems small */
#endif
  struct spec s;
  memset(&s, 0, sizeof s);
#if defined(K_axpy)
  int n = 1000;
  s = (struct spec){"axpy", "axpy_primal", "axpy_grad", (n + 127) / 128, 128, 3,
                    {{"a", 'f', 1, IN, 0.5, 1.5, 0},
                     {"x", 'f', n, IN, -1, 1, 0},
                     {"y", 'f', n, IN, -1, 1, 1}},
                    {n}, "b0 b1 b2 i0", "b0 s0 b1 s1 b2 s2 i0", 0, 0};
#elif defined(K_reduce)
  int n = 500, g = (n + 127) / 128;
  s = (struct spec){"reduce", "reduce_primal", "reduce_grad", g, 128, 3,
                    {{"x", 'f', n, IN, -1, 1, 0},
                     {"block_sums", 'f', g, OUT, 0, 0, 1},
                     {"total", 'f', 1, OUT, 0, 0, 1}},
                    {n}, "b0 b1 b2 i0", "b0 s0 b1 s1 b2 s2 i0", 0, 0};
#elif defined(K_stencil)
  int g = large ? 16384 : 4, n = 64 * g;
  s = (struct spec){"stencil", "stencil_primal", "stencil_grad", g, 64, 2,
                    {{"in", 'd', n, IN, -1, 1, 0}, {"out", 'd', n, OUT, 0, 0, 1}},
                    {n}, "b0 b1 i0", "b0 s0 b1 s1 i0", 1, 0};
#elif defined(K_loop)
  int n = 200;
  s = (struct spec){"loop", "loop_primal", "loop_grad", (n + 63) / 64, 64, 3,
                    {{"x", 'd', n, IN, -2, 2, 0},
                     {"p", 'd', 4, IN, 0.5, 2, 0},
                     {"y", 'd', n, OUT, 0, 0, 1}},
                    {n, 20}, "b0 b1 b2 i0 i1", "b0 s0 b1 s1 b2 s2 i0 i1", 0, 0};
#elif defined(K_lbm)
  int n = large ? (1 << 22) : 100, b = large ? 256 : 32;
  s = (struct spec){"lbm", "lbm_primal", "lbm_grad", (n + b - 1) / b, b, 3,
                    {{"fin", 'd', 3L * n, IN, 0, 0, 0},
                     {"fout", 'd', 3L * n, OUT, 0, 0, 1},
                     {"omega", 'd', 1, IN, 1.3, 1.3, 0}},
                    {n}, "b0 b1 b2 i0", "b0 s0 b1 s1 b2 s2 i0", 1, init_lbm};
#elif defined(K_hmlstm)
  int rows = 16, cols = 24, n = rows * cols;
  s = (struct spec){"hmlstm", "hmlstm_primal", "hmlstm_grad", (n + 127) / 128, 128, 7,
                    {{"c_prev", 'f', n, IN, -1, 1, 0},
                     {"f", 'f', n, IN, -3, 3, 0},
                     {"i", 'f', n, IN, -3, 3, 0},
                     {"g", 'f', n, IN, -3, 3, 0},
                     {"z_prev", 'f', cols, CONSTANT, 0, 0, 0},
                     {"z_below", 'f', cols, CONSTANT, 0, 0, 0},
                     {"c", 'f', n, OUT, 0, 0, 1}},
                    {rows, cols}, "b0 b1 b2 b3 b4 b5 b6 i0 i1",
                    "b0 s0 b1 s1 b2 s2 b3 s3 b4 b5 b6 s6 i0 i1", 0, init_hmlstm};
#elif defined(K_xsbench)
  int nl = 300;
  s = (struct spec){"xsbench", "xs_primal", "xs_grad", (nl + 63) / 64, 64, 7,
                    {{"egrid", 'd', XS_NNUC * XS_NGRID, CONSTANT, 0, 0, 0},
                     {"xs", 'd', XS_NNUC * XS_NGRID, IN, 0.5, 5, 0},
                     {"mat_nuc", 'i', XS_NMAT * XS_NPM, CONSTANT, 0, 0, 0},
                     {"conc", 'd', XS_NMAT * XS_NPM, IN, 0.1, 1, 0},
                     {"energy", 'd', nl, CONSTANT, 0.07, 0.3, 0},
                     {"mat", 'i', nl, CONSTANT, 0, XS_NMAT - 1e-9, 0},
                     {"out", 'd', nl, OUT, 0, 0, 1}},
                    {nl}, "b0 b1 b2 b3 b4 b5 b6 i0", "b0 b1 s1 b2 b3 s3 b4 b5 b6 s6 i0", 0,
                    init_xs};
#else
#error "compile with one of -DK_axpy -DK_reduce -DK_stencil -DK_loop -DK_lbm -DK_hmlstm -DK_xsbench"
#endif
  (void)large;
  return s;
}

/* Host copies of every buffer and shadow, with deterministic contents. */
struct state {
  struct spec s;
  void *data[MAXBUF], *shadow[MAXBUF];
};

static void fill(struct state *st) {
  struct spec *s = &st->s;
  g_rng = 12345;
  for (int b = 0; b < s->nbuf; b++) {
    struct buffer *B = &s->buf[b];
    size_t bytes = (size_t)B->len * elem_size(B->type);
    st->data[b] = calloc(1, bytes);
    st->shadow[b] = calloc(1, bytes);
    if (!st->data[b] || !st->shadow[b]) {
      fprintf(stderr, "out of memory\n");
      exit(2);
    }
    if (B->kind != OUT)
      for (long i = 0; i < B->len; i++)
        set(st->data[b], B->type, i, uniform(B->lo, B->hi));
  }
  if (s->init)
    s->init(s, st->data);
}

/* Resets the shadows: seeds for outputs, zeros elsewhere. */
static void seed(struct state *st) {
  struct spec *s = &st->s;
  uint64_t saved = g_rng;
  g_rng = 777;
  for (int b = 0; b < s->nbuf; b++) {
    struct buffer *B = &s->buf[b];
    memset(st->shadow[b], 0, (size_t)B->len * elem_size(B->type));
    if (B->seeded)
      for (long i = 0; i < B->len; i++)
        set(st->shadow[b], B->type, i, uniform(-1, 1));
  }
  g_rng = saved;
}

/* The argument list `args` as pointers to values, cuLaunchKernel-style:
 * slots[k] holds the k-th argument value, argv[k] points at it. */
static int build_args(const char *args, void **bufs, void **shadows, const int *ints,
                      uint64_t *slots, void **argv) {
  int k = 0;
  memset(slots, 0, sizeof(uint64_t) * MAXARG);
  for (const char *p = args; *p;) {
    while (*p == ' ')
      p++;
    if (!*p)
      break;
    char c = *p++;
    int idx = (int)strtol(p, (char **)&p, 10);
    if (c == 'b')
      memcpy(&slots[k], &bufs[idx], sizeof(void *));
    else if (c == 's')
      memcpy(&slots[k], &shadows[idx], sizeof(void *));
    else {
      int v = ints[idx];
      memcpy(&slots[k], &v, sizeof v);
    }
    argv[k] = &slots[k];
    k++;
  }
  return k;
}

#ifndef GPU
/* ===================== the emulator side =============================== */
#include "emu.h"

typedef void (*thunk)(void **a);
#define P(k, T) (*(T *)a[k])
#if defined(K_axpy)
void axpy_primal(const float *, const float *, float *, int);
void axpy_grad(const float *, float *, const float *, float *, float *, float *, int);
static void t_primal(void **a) { axpy_primal(P(0, float *), P(1, float *), P(2, float *), P(3, int)); }
static void t_grad(void **a) {
  axpy_grad(P(0, float *), P(1, float *), P(2, float *), P(3, float *), P(4, float *),
            P(5, float *), P(6, int));
}
#elif defined(K_reduce)
void reduce_primal(const float *, float *, float *, int);
void reduce_grad(const float *, float *, float *, float *, float *, float *, int);
static void t_primal(void **a) { reduce_primal(P(0, float *), P(1, float *), P(2, float *), P(3, int)); }
static void t_grad(void **a) {
  reduce_grad(P(0, float *), P(1, float *), P(2, float *), P(3, float *), P(4, float *),
              P(5, float *), P(6, int));
}
#elif defined(K_stencil)
void stencil_primal(const double *, double *, int);
void stencil_grad(const double *, double *, double *, double *, int);
static void t_primal(void **a) { stencil_primal(P(0, double *), P(1, double *), P(2, int)); }
static void t_grad(void **a) {
  stencil_grad(P(0, double *), P(1, double *), P(2, double *), P(3, double *), P(4, int));
}
#elif defined(K_loop)
void loop_primal(const double *, const double *, double *, int, int);
void loop_grad(const double *, double *, const double *, double *, double *, double *, int, int);
static void t_primal(void **a) {
  loop_primal(P(0, double *), P(1, double *), P(2, double *), P(3, int), P(4, int));
}
static void t_grad(void **a) {
  loop_grad(P(0, double *), P(1, double *), P(2, double *), P(3, double *), P(4, double *),
            P(5, double *), P(6, int), P(7, int));
}
#elif defined(K_lbm)
void lbm_primal(const double *, double *, const double *, int);
void lbm_grad(const double *, double *, double *, double *, const double *, double *, int);
static void t_primal(void **a) { lbm_primal(P(0, double *), P(1, double *), P(2, double *), P(3, int)); }
static void t_grad(void **a) {
  lbm_grad(P(0, double *), P(1, double *), P(2, double *), P(3, double *), P(4, double *),
           P(5, double *), P(6, int));
}
#elif defined(K_hmlstm)
void hmlstm_primal(const float *, const float *, const float *, const float *, const float *,
                   const float *, float *, int, int);
void hmlstm_grad(const float *, float *, const float *, float *, const float *, float *,
                 const float *, float *, const float *, const float *, float *, float *, int,
                 int);
static void t_primal(void **a) {
  hmlstm_primal(P(0, float *), P(1, float *), P(2, float *), P(3, float *), P(4, float *),
                P(5, float *), P(6, float *), P(7, int), P(8, int));
}
static void t_grad(void **a) {
  hmlstm_grad(P(0, float *), P(1, float *), P(2, float *), P(3, float *), P(4, float *),
              P(5, float *), P(6, float *), P(7, float *), P(8, float *), P(9, float *),
              P(10, float *), P(11, float *), P(12, int), P(13, int));
}
#elif defined(K_xsbench)
void xs_primal(const double *, const double *, const int *, const double *, const double *,
               const int *, double *, int);
void xs_grad(const double *, const double *, double *, const int *, const double *, double *,
             const double *, const int *, double *, double *, int);
static void t_primal(void **a) {
  xs_primal(P(0, double *), P(1, double *), P(2, int *), P(3, double *), P(4, double *),
            P(5, int *), P(6, double *), P(7, int));
}
static void t_grad(void **a) {
  xs_grad(P(0, double *), P(1, double *), P(2, double *), P(3, int *), P(4, double *),
          P(5, double *), P(6, double *), P(7, int *), P(8, double *), P(9, double *),
          P(10, int));
}
#endif

struct call {
  thunk f;
  void **argv;
};
static void run(void *p) {
  struct call *c = p;
  c->f(c->argv);
}

static void dump(FILE *out, struct state *st, int shadows) {
  for (int b = 0; b < st->s.nbuf; b++) {
    size_t bytes = (size_t)st->s.buf[b].len * elem_size(st->s.buf[b].type);
    fwrite(st->data[b], 1, bytes, out);
    if (shadows)
      fwrite(st->shadow[b], 1, bytes, out);
  }
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s OUT.bin\n", argv[0]);
    return 2;
  }
  struct state st;
  st.s = make_spec(0);
  fill(&st);
  FILE *out = fopen(argv[1], "wb");
  if (!out) {
    perror(argv[1]);
    return 2;
  }
  uint64_t slots[MAXARG];
  void *args[MAXARG];
  emu_dim3 grid = emu_dim3_of(st.s.grid, 1, 1), block = emu_dim3_of(st.s.block, 1, 1);

  build_args(st.s.primal_args, st.data, st.shadow, st.s.ints, slots, args);
  struct call c = {t_primal, args};
  emu_launch(grid, block, run, &c);
  dump(out, &st, 0);

  struct state fresh;
  fresh.s = st.s;
  fill(&fresh);
  seed(&fresh);
  build_args(fresh.s.grad_args, fresh.data, fresh.shadow, fresh.s.ints, slots, args);
  c.f = t_grad;
  emu_launch(grid, block, run, &c);
  dump(out, &fresh, 1);
  fclose(out);
  printf("%s: emulator results written to %s\n", st.s.name, argv[1]);
  return 0;
}

#else
/* ===================== the GPU side (CUDA driver API) ================== */
#include <cuda.h>

static void check_cu(CUresult r, const char *what) {
  if (r != CUDA_SUCCESS) {
    const char *name = "?", *msg = "?";
    cuGetErrorName(r, &name);
    cuGetErrorString(r, &msg);
    fprintf(stderr, "CUDA error in %s: %s (%s)\n", what, name, msg);
    exit(1);
  }
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    perror(path);
    exit(2);
  }
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = malloc((size_t)n + 1);
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
    fprintf(stderr, "cannot read %s\n", path);
    exit(2);
  }
  buf[n] = 0;
  fclose(f);
  if (len)
    *len = (size_t)n;
  return buf;
}

struct dev {
  CUdeviceptr data[MAXBUF], shadow[MAXBUF];
};

static void upload(struct state *st, struct dev *d) {
  for (int b = 0; b < st->s.nbuf; b++) {
    size_t bytes = (size_t)st->s.buf[b].len * elem_size(st->s.buf[b].type);
    check_cu(cuMemAlloc(&d->data[b], bytes), "cuMemAlloc");
    check_cu(cuMemAlloc(&d->shadow[b], bytes), "cuMemAlloc");
    check_cu(cuMemcpyHtoD(d->data[b], st->data[b], bytes), "cuMemcpyHtoD");
    check_cu(cuMemcpyHtoD(d->shadow[b], st->shadow[b], bytes), "cuMemcpyHtoD");
  }
}
static void download(struct state *st, struct dev *d) {
  for (int b = 0; b < st->s.nbuf; b++) {
    size_t bytes = (size_t)st->s.buf[b].len * elem_size(st->s.buf[b].type);
    check_cu(cuMemcpyDtoH(st->data[b], d->data[b], bytes), "cuMemcpyDtoH");
    check_cu(cuMemcpyDtoH(st->shadow[b], d->shadow[b], bytes), "cuMemcpyDtoH");
  }
}
static void release(struct state *st, struct dev *d) {
  for (int b = 0; b < st->s.nbuf; b++) {
    cuMemFree(d->data[b]);
    cuMemFree(d->shadow[b]);
  }
}

static void launch(CUfunction f, struct state *st, struct dev *d, const char *args,
                   CUstream stream) {
  uint64_t slots[MAXARG];
  void *argv[MAXARG];
  build_args(args, (void **)d->data, (void **)d->shadow, st->s.ints, slots, argv);
  check_cu(cuLaunchKernel(f, st->s.grid, 1, 1, st->s.block, 1, 1, 0, stream, argv, NULL),
           "cuLaunchKernel");
}

static long g_values, g_mismatches;
static void compare(const char *what, const char *name, char type, const void *gpu,
                    const char **emu, long len) {
  double rtol = type == 'f' ? 2e-4 : 1e-9, atol = type == 'f' ? 1e-5 : 1e-12;
  for (long i = 0; i < len; i++) {
    double g = get(gpu, type, i), e;
    if (type == 'f') {
      float v;
      memcpy(&v, *emu + i * 4, 4);
      e = v;
    } else if (type == 'd') {
      double v;
      memcpy(&v, *emu + i * 8, 8);
      e = v;
    } else {
      int v;
      memcpy(&v, *emu + i * 4, 4);
      e = v;
    }
    g_values++;
    if (!(fabs(g - e) <= atol + rtol * fabs(e)) && !(g != g && e != e)) {
      if (++g_mismatches <= 20)
        printf("MISMATCH %s %s[%ld]: gpu %.10g, emulator %.10g\n", what, name, i, g, e);
    }
  }
  *emu += len * (long)elem_size(type);
}

static int cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

/* Median time in ms of `runs` launches of f. */
static float time_kernel(CUfunction f, struct state *st, struct dev *d, const char *args,
                         int runs) {
  CUevent start, stop;
  check_cu(cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
  check_cu(cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate");
  float *ms = malloc(sizeof(float) * (size_t)runs);
  for (int w = 0; w < 3; w++)
    launch(f, st, d, args, 0);
  check_cu(cuCtxSynchronize(), "warm-up");
  for (int r = 0; r < runs; r++) {
    check_cu(cuEventRecord(start, 0), "cuEventRecord");
    launch(f, st, d, args, 0);
    check_cu(cuEventRecord(stop, 0), "cuEventRecord");
    check_cu(cuEventSynchronize(stop), "cuEventSynchronize");
    check_cu(cuEventElapsedTime(&ms[r], start, stop), "cuEventElapsedTime");
  }
  qsort(ms, (size_t)runs, sizeof(float), cmp_float);
  float med = ms[runs / 2];
  free(ms);
  cuEventDestroy(start);
  cuEventDestroy(stop);
  return med;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s K.ptx EMU.bin\n", argv[0]);
    return 2;
  }
  char *ptx = read_file(argv[1], NULL);
  size_t emu_len;
  char *emu = read_file(argv[2], &emu_len);
  const char *cursor = emu;

  check_cu(cuInit(0), "cuInit");
  CUdevice dev;
  check_cu(cuDeviceGet(&dev, 0), "cuDeviceGet");
  char devname[256];
  cuDeviceGetName(devname, sizeof devname, dev);
  CUcontext ctx; /* the primary context: the same call in every CUDA version */
  check_cu(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
  check_cu(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
  CUmodule mod;
  char log[8192] = "";
  CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *vals[2] = {log, (void *)(uintptr_t)sizeof log};
  CUresult r = cuModuleLoadDataEx(&mod, ptx, 2, opts, vals);
  if (r != CUDA_SUCCESS) {
    fprintf(stderr, "cannot load %s: JIT log:\n%s\n", argv[1], log);
    check_cu(r, "cuModuleLoadDataEx");
  }
  struct state st;
  st.s = make_spec(0);
  CUfunction fp, fg;
  check_cu(cuModuleGetFunction(&fp, mod, st.s.primal), st.s.primal);
  check_cu(cuModuleGetFunction(&fg, mod, st.s.grad), st.s.grad);
  printf("%s on %s\n", st.s.name, devname);

  /* the primal */
  fill(&st);
  struct dev d;
  upload(&st, &d);
  launch(fp, &st, &d, st.s.primal_args, 0);
  check_cu(cuCtxSynchronize(), "primal kernel");
  download(&st, &d);
  release(&st, &d);
  size_t want = 0;
  for (int b = 0; b < st.s.nbuf; b++)
    want += (size_t)st.s.buf[b].len * elem_size(st.s.buf[b].type) * 3;
  if (emu_len != want) {
    fprintf(stderr, "%s has %zu bytes, expected %zu: not from the same spec\n", argv[2],
            emu_len, want);
    return 2;
  }
  for (int b = 0; b < st.s.nbuf; b++)
    compare("primal", st.s.buf[b].name, st.s.buf[b].type, st.data[b], &cursor,
            st.s.buf[b].len);

  /* the gradient */
  struct state gs;
  gs.s = st.s;
  fill(&gs);
  seed(&gs);
  upload(&gs, &d);
  launch(fg, &gs, &d, gs.s.grad_args, 0);
  check_cu(cuCtxSynchronize(), "gradient kernel");
  download(&gs, &d);
  release(&gs, &d);
  for (int b = 0; b < gs.s.nbuf; b++) {
    char sname[64];
    snprintf(sname, sizeof sname, "d_%s", gs.s.buf[b].name);
    compare("gradient", gs.s.buf[b].name, gs.s.buf[b].type, gs.data[b], &cursor,
            gs.s.buf[b].len);
    compare("gradient", sname, gs.s.buf[b].type, gs.shadow[b], &cursor, gs.s.buf[b].len);
  }
  printf("compare: %ld values, %ld mismatches\n", g_values, g_mismatches);

  if (st.s.timed) {
    struct state big;
    big.s = make_spec(1);
    fill(&big);
    seed(&big);
    upload(&big, &d);
#ifdef FAKE_GPU
    int runs = 3;
#else
    int runs = 21;
#endif
    float tp = time_kernel(fp, &big, &d, big.s.primal_args, runs);
    float tg = time_kernel(fg, &big, &d, big.s.grad_args, runs);
    printf("timing: %s, %u blocks of %u: primal %.4f ms, gradient %.4f ms, ratio %.2f\n",
           big.s.name, big.s.grid, big.s.block, tp, tg, tg / tp);
    release(&big, &d);
  }
  cuModuleUnload(mod);
  cuDevicePrimaryCtxRelease(dev);
  return g_mismatches ? 1 : 0;
}
#endif
