/*
 * gpu_driver.c -- runs the cuda_tests kernels (primal and gradient) either on
 * the CPU SIMT emulator or on a GPU through the CUDA driver API, with the
 * same deterministic inputs, so that scripts/gpu-check.sh can compare the
 * two and time the GPU. One program serves every kernel: the kernel, its
 * configuration and its module are named on the command line, and kernels
 * are found by name (`<kernel>_primal`, else the spec's own prefix, e.g.
 * xs_primal for xsbench).
 *
 * The emulator side (x86-64 only: kernel arguments are passed as 64-bit
 * integers, as in fake/fake_cuda.c):
 *
 *   cc -O2 -I runtime/emu gpu_driver.c runtime/emu/emu.c -rdynamic -ldl \
 *      -lpthread -lm -o emu_ref
 *   emu_ref configs KERNEL        the configurations compared on the GPU,
 *                                 one a line, "NAME" or "NAME no-hand" (the
 *                                 hand-written gradient does not support it)
 *   emu_ref ref KERNEL CONFIG K.so OUT.bin
 *       K.so: a module retargeted to the host (enz-rs --emulate-host), built
 *       with `clang -shared -fPIC -Wl,-Bsymbolic`; runs its primal and its
 *       gradient kernel on the emulator and writes every buffer after each
 *   emu_ref diff KERNEL CONFIG A.bin B.bin     compares two such files
 *
 * The GPU side:
 *
 *   nvcc -O2 -DGPU gpu_driver.c -lcuda -o drv
 *   (or, to test it without a GPU, -DFAKE_GPU with fake/cuda.h and
 *   fake/fake_cuda.c, which run it on the emulator)
 *   drv check KERNEL CONFIG K.ptx REF.bin
 *       loads the PTX (cuModuleLoadDataEx, the JIT's default options), runs
 *       the primal and the gradient, compares every buffer with REF.bin
 *       (from emu_ref ref): "compare: N values, M mismatches"
 *   drv time KERNEL HAND.ptx ENZ.ptx           (either may be "-")
 *       on the kernel's large configuration: median times of the primal and
 *       of both gradients ("time primal|hand|enz MS"), then the two
 *       gradients' results compared with each other ("crosscheck: ...")
 *
 * Nothing raises CUDA's limits (stack, heap) or sets JIT options other than
 * the error log. A CUDA error prints "CUDA error in WHAT: NAME (message)"
 * and exits 1; a mismatch exits 1; usage errors exit 2.
 */
#ifndef GPU
#define _GNU_SOURCE /* RTLD_DEFAULT */
#endif
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
  const char *fn; /* the kernels are FN_primal and FN_grad */
  unsigned grid, block;
  int nbuf;
  struct buffer buf[MAXBUF];
  int ints[4];
  /* argument lists: "b0" buffer, "s0" its shadow, "i0" an int */
  const char *primal_args, *grad_args;
  /* special initial values */
  void (*init)(struct spec *s, void **data);
  int no_hand;    /* the hand-written gradient does not support this size */
  char size[96];  /* the problem size, in words */
};

static uint64_t g_rng = 12345;
static double uniform(double lo, double hi) {
  g_rng = g_rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return lo + (hi - lo) * ((double)(g_rng >> 11) * (1.0 / 9007199254740992.0));
}

static size_t elem_size(char t) { return t == 'd' ? 8 : 4; }
static size_t buf_bytes(const struct buffer *B) { return (size_t)B->len * elem_size(B->type); }

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
static void init_lbm(struct spec *s, void **data) {
  long n = s->ints[0];
  for (long i = 0; i < n; i++) {
    double rho = 1.0 + 0.2 * uniform(-1, 1), u = 0.1 * uniform(-1, 1);
    set(data[0], 'd', i, rho * (2.0 / 3.0) * (1 - 1.5 * u * u));
    set(data[0], 'd', n + i, rho / 6.0 * (1 + 3 * u + 3 * u * u));
    set(data[0], 'd', 2 * n + i, rho / 6.0 * (1 - 3 * u + 3 * u * u));
  }
}
/* z_prev, z_below per column: every UPDATE/COPY/FLUSH combination */
static void init_hmlstm(struct spec *s, void **data) {
  for (long j = 0; j < s->ints[1]; j++) {
    set(data[4], 'f', j, j % 4 == 3);
    set(data[5], 'f', j, j % 2);
  }
}
#define XS_NNUC 6
#define XS_NGRID 32
#define XS_NPM 4
#define XS_NMAT 3
static void init_xs(struct spec *s, void **data) {
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

/* ---- the kernels and their configurations ----------------------------
 * Each spec_* fills s for `config` (one of the kernel's comparison
 * configurations, or "large", the timed one) and returns 0, or -1 for an
 * unknown configuration. */
#define LARGE (strcmp(config, "large") == 0)
#define BLOCKS(n, b) (unsigned)(((long)(n) + (b)-1) / (b))

static int spec_axpy(struct spec *s, const char *config) {
  if (strcmp(config, "n1000") && !LARGE)
    return -1;
  int n = LARGE ? 1 << 24 : 1000, b = LARGE ? 256 : 128;
  *s = (struct spec){"axpy", BLOCKS(n, b), b, 3,
                     {{"a", 'f', 1, IN, 0.5, 1.5, 0},
                      {"x", 'f', n, IN, -1, 1, 0},
                      {"y", 'f', n, IN, -1, 1, 1}},
                     {n}, "b0 b1 b2 i0", "b0 s0 b1 s1 b2 s2 i0", 0, 0, ""};
  snprintf(s->size, sizeof s->size, "n = %d floats", n);
  return 0;
}

static int spec_reduce(struct spec *s, const char *config) {
  if (strcmp(config, "n500") && !LARGE)
    return -1;
  int n = LARGE ? 1 << 24 : 500, g = BLOCKS(n, 128); /* the kernel's block is 128 */
  *s = (struct spec){"reduce", g, 128, 3,
                     {{"x", 'f', n, IN, -1, 1, 0},
                      {"block_sums", 'f', g, OUT, 0, 0, 1},
                      {"total", 'f', 1, OUT, 0, 0, 1}},
                     {n}, "b0 b1 b2 i0", "b0 s0 b1 s1 b2 s2 i0", 0, 0, ""};
  snprintf(s->size, sizeof s->size, "n = %d floats", n);
  return 0;
}

static int spec_stencil(struct spec *s, const char *config) {
  if (strcmp(config, "n256") && !LARGE)
    return -1;
  int g = LARGE ? 65536 : 4, n = 64 * g; /* the kernel's block is 64 */
  *s = (struct spec){"stencil", g, 64, 2,
                     {{"in", 'd', n, IN, -1, 1, 0}, {"out", 'd', n, OUT, 0, 0, 1}},
                     {n}, "b0 b1 i0", "b0 s0 b1 s1 i0", 0, 0, ""};
  snprintf(s->size, sizeof s->size, "n = %d doubles", n);
  return 0;
}

static int spec_loop(struct spec *s, const char *config) {
  int n = 200, b = 64, steps;
  if (LARGE) /* 24 KB of caches a thread: recomputed within 2 KB */
    n = 1 << 18, b = 128, steps = 1000;
  else if (strncmp(config, "steps", 5) == 0 && (steps = atoi(config + 5)) > 0)
    n = steps > 1000 ? 64 : n;
  else
    return -1;
  *s = (struct spec){"loop", BLOCKS(n, b), b, 3,
                     {{"x", 'd', n, IN, -2, 2, 0},
                      {"p", 'd', 4, IN, 0.5, 2, 0},
                      {"y", 'd', n, OUT, 0, 0, 1}},
                     {n, steps}, "b0 b1 b2 i0 i1", "b0 s0 b1 s1 b2 s2 i0 i1", 0,
                     0 /* the hand-written gradient is forward mode: any count */, ""};
  snprintf(s->size, sizeof s->size, "n = %d, %d steps", n, steps);
  return 0;
}

static int spec_lbm(struct spec *s, const char *config) {
  if (strcmp(config, "n100") && !LARGE)
    return -1;
  int n = LARGE ? 1 << 22 : 100, b = LARGE ? 256 : 32;
  *s = (struct spec){"lbm", BLOCKS(n, b), b, 3,
                     {{"fin", 'd', 3L * n, IN, 0, 0, 0},
                      {"fout", 'd', 3L * n, OUT, 0, 0, 1},
                      {"omega", 'd', 1, IN, 1.3, 1.3, 0}},
                     {n}, "b0 b1 b2 i0", "b0 s0 b1 s1 b2 s2 i0", init_lbm, 0, ""};
  snprintf(s->size, sizeof s->size, "n = %d sites", n);
  return 0;
}

/* hmlstm: one element per thread; hmlstm_chunk (and _reverse): `per`
 * contiguous elements per thread. */
static int spec_hmlstm_any(struct spec *s, const char *config, const char *fn, int chunk) {
  if (strcmp(config, "16x24") && !LARGE)
    return -1;
  int rows = LARGE ? 4096 : 16, cols = LARGE ? 4096 : 24, n = rows * cols;
  unsigned grid, block;
  if (chunk) /* small: 3 x 32 threads, 4 each; large: 1024 x 128, 128 each */
    grid = LARGE ? 1024 : 3, block = LARGE ? 128 : 32;
  else
    block = LARGE ? 256 : 128, grid = BLOCKS(n, block);
  *s = (struct spec){fn, grid, block, 7,
                     {{"c_prev", 'f', n, IN, -1, 1, 0},
                      {"f", 'f', n, IN, -3, 3, 0},
                      {"i", 'f', n, IN, -3, 3, 0},
                      {"g", 'f', n, IN, -3, 3, 0},
                      {"z_prev", 'f', cols, CONSTANT, 0, 0, 0},
                      {"z_below", 'f', cols, CONSTANT, 0, 0, 0},
                      {"c", 'f', n, OUT, 0, 0, 1}},
                     {rows, cols}, "b0 b1 b2 b3 b4 b5 b6 i0 i1",
                     "b0 s0 b1 s1 b2 s2 b3 s3 b4 b5 b6 s6 i0 i1", init_hmlstm, 0, ""};
  long threads = (long)grid * block;
  snprintf(s->size, sizeof s->size, "%d x %d floats, %ld per thread", rows, cols,
           (n + threads - 1) / threads);
  return 0;
}
static int spec_hmlstm(struct spec *s, const char *c) { return spec_hmlstm_any(s, c, "hmlstm", 0); }
static int spec_hmlstm_chunk(struct spec *s, const char *c) {
  return spec_hmlstm_any(s, c, "hmlstm_chunk", 1);
}

/* gridstride, gridstride_mixed: 3 x 32 threads over n = 1000 and 50 (as
 * gridstride_host.c); large: 1024 x 256 threads, 64 elements each */
static int spec_gridstride_any(struct spec *s, const char *config, const char *fn) {
  int n;
  if (LARGE)
    n = 1 << 24;
  else if (!strcmp(config, "n1000") || !strcmp(config, "n50"))
    n = atoi(config + 1);
  else
    return -1;
  unsigned grid = LARGE ? 1024 : 3, block = LARGE ? 256 : 32;
  *s = (struct spec){fn, grid, block, 3,
                     {{"a", 'f', 1, IN, 0.5, 1.5, 0},
                      {"x", 'f', n, IN, -1, 1, 0},
                      {"y", 'f', n, IN, -1, 1, 1}},
                     {n}, "b0 b1 b2 i0", "b0 s0 b1 s1 b2 s2 i0", 0, 0, ""};
  snprintf(s->size, sizeof s->size, "n = %d floats, %u threads", n, grid * block);
  return 0;
}
static int spec_gridstride(struct spec *s, const char *c) {
  return spec_gridstride_any(s, c, "gridstride");
}
static int spec_gridstride_mixed(struct spec *s, const char *c) {
  return spec_gridstride_any(s, c, "gridstride_mixed");
}

static int spec_xsbench(struct spec *s, const char *config) {
  if (strcmp(config, "nl300") && !LARGE)
    return -1;
  int nl = LARGE ? 1 << 20 : 300, b = LARGE ? 128 : 64;
  *s = (struct spec){"xs", BLOCKS(nl, b), b, 7,
                     {{"egrid", 'd', XS_NNUC * XS_NGRID, CONSTANT, 0, 0, 0},
                      {"xs", 'd', XS_NNUC * XS_NGRID, IN, 0.5, 5, 0},
                      {"mat_nuc", 'i', XS_NMAT * XS_NPM, CONSTANT, 0, 0, 0},
                      {"conc", 'd', XS_NMAT * XS_NPM, IN, 0.1, 1, 0},
                      {"energy", 'd', nl, CONSTANT, 0.07, 0.3, 0},
                      {"mat", 'i', nl, CONSTANT, 0, XS_NMAT - 1e-9, 0},
                      {"out", 'd', nl, OUT, 0, 0, 1}},
                     {nl}, "b0 b1 b2 b3 b4 b5 b6 i0", "b0 b1 s1 b2 b3 s3 b4 b5 b6 s6 i0", init_xs,
                     0, ""};
  snprintf(s->size, sizeof s->size, "%d lookups", nl);
  return 0;
}

static const struct kernel {
  const char *name;
  const char *configs; /* compared with the emulator; the first is also the fake GPU's "large" */
  int (*make)(struct spec *s, const char *config);
} kernels[] = {
    {"axpy", "n1000", spec_axpy},
    {"reduce", "n500", spec_reduce},
    {"stencil", "n256", spec_stencil},
    {"loop", "steps1 steps20 steps64 steps1000 steps100000", spec_loop},
    {"lbm", "n100", spec_lbm},
    {"hmlstm", "16x24", spec_hmlstm},
    {"hmlstm_chunk", "16x24", spec_hmlstm_chunk},
    {"hmlstm_chunk_reverse", "16x24", spec_hmlstm_chunk},
    {"gridstride", "n1000 n50", spec_gridstride},
    {"gridstride_mixed", "n1000 n50", spec_gridstride_mixed},
    {"xsbench", "nl300", spec_xsbench},
};

static const struct kernel *find_kernel(const char *name) {
  for (size_t k = 0; k < sizeof kernels / sizeof *kernels; k++)
    if (!strcmp(kernels[k].name, name))
      return &kernels[k];
  fprintf(stderr, "unknown kernel %s (known:", name);
  for (size_t k = 0; k < sizeof kernels / sizeof *kernels; k++)
    fprintf(stderr, " %s", kernels[k].name);
  fprintf(stderr, ")\n");
  exit(2);
}

/* The kernel's first comparison configuration. */
__attribute__((unused)) static const char *first_config(const struct kernel *k) {
  static char first[64];
  snprintf(first, sizeof first, "%.*s", (int)strcspn(k->configs, " "), k->configs);
  return first;
}

static struct spec make_spec(const struct kernel *k, const char *config) {
  struct spec s;
  memset(&s, 0, sizeof s);
  if (k->make(&s, config) != 0) {
    fprintf(stderr, "%s has no configuration %s (it has: %s large)\n", k->name, config,
            k->configs);
    exit(2);
  }
  return s;
}

/* The names a kernel's functions may have: <kernel>_primal, else
 * <spec's prefix>_primal (hmlstm_chunk_reverse.cu may keep hmlstm_chunk's). */
static void function_names(const struct kernel *k, const struct spec *s, const char *which,
                           char names[2][128]) {
  snprintf(names[0], 128, "%s_%s", k->name, which);
  snprintf(names[1], 128, "%s_%s", s->fn, which);
}

/* Host copies of every buffer and shadow, with deterministic contents. */
struct state {
  struct spec s;
  void *data[MAXBUF], *shadow[MAXBUF];
};

static void *xcalloc(size_t bytes) {
  void *p = calloc(1, bytes ? bytes : 1);
  if (!p) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  return p;
}

static void fill(struct state *st) {
  struct spec *s = &st->s;
  g_rng = 12345;
  for (int b = 0; b < s->nbuf; b++) {
    struct buffer *B = &s->buf[b];
    st->data[b] = xcalloc(buf_bytes(B));
    st->shadow[b] = xcalloc(buf_bytes(B));
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
    memset(st->shadow[b], 0, buf_bytes(B));
    if (B->seeded)
      for (long i = 0; i < B->len; i++)
        set(st->shadow[b], B->type, i, uniform(-1, 1));
  }
  g_rng = saved;
}

__attribute__((unused)) static void free_state(struct state *st) {
  for (int b = 0; b < st->s.nbuf; b++) {
    free(st->data[b]);
    free(st->shadow[b]);
  }
}

/* The argument list `args` as pointers to values, cuLaunchKernel-style:
 * slots[k] holds the k-th argument value (8 bytes each), argv[k] points at
 * it. */
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

/* Compares `len` values of `got` with `want` (raw bytes of type `type`),
 * elementwise: |g - w| <= atol + rtol |w| (or both NaN). */
static long g_values, g_mismatches;
static void compare(const char *what, const char *name, char type, const void *got,
                    const void *want, long len) {
  double rtol = type == 'f' ? 2e-4 : 1e-9, atol = type == 'f' ? 1e-5 : 1e-12;
  for (long i = 0; i < len; i++) {
    double g = get(got, type, i), e = get(want, type, i);
    g_values++;
    if (!(fabs(g - e) <= atol + rtol * fabs(e)) && !(g != g && e != e)) {
      if (++g_mismatches <= 20)
        printf("MISMATCH %s %s[%ld]: got %.10g, reference %.10g\n", what, name, i, g, e);
    }
  }
}

/* The layout of a reference file: every buffer after the primal, then every
 * buffer and its shadow after the gradient. */
static size_t ref_bytes(const struct spec *s) {
  size_t n = 0;
  for (int b = 0; b < s->nbuf; b++)
    n += buf_bytes(&s->buf[b]) * 3;
  return n;
}

/* Compares a primal state `p` and a gradient state `g` (either may be
 * NULL) with a reference file's bytes. */
__attribute__((unused)) static void compare_with_ref(struct state *p, struct state *g, const char *ref) {
  const struct spec *s = p ? &p->s : &g->s;
  const char *cur = ref;
  for (int b = 0; b < s->nbuf; b++) {
    if (p)
      compare("primal", s->buf[b].name, s->buf[b].type, p->data[b], cur, s->buf[b].len);
    cur += buf_bytes(&s->buf[b]);
  }
  for (int b = 0; b < s->nbuf; b++) {
    char sname[64];
    snprintf(sname, sizeof sname, "d_%s", s->buf[b].name);
    if (g)
      compare("gradient", s->buf[b].name, s->buf[b].type, g->data[b], cur, s->buf[b].len);
    cur += buf_bytes(&s->buf[b]);
    if (g)
      compare("gradient", sname, s->buf[b].type, g->shadow[b], cur, s->buf[b].len);
    cur += buf_bytes(&s->buf[b]);
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

/* Reads a reference file for spec s, checking its size. */
static char *read_ref(const char *path, const struct spec *s) {
  size_t len;
  char *ref = read_file(path, &len);
  if (len != ref_bytes(s)) {
    fprintf(stderr, "%s has %zu bytes, expected %zu: not from the same spec\n", path, len,
            ref_bytes(s));
    exit(2);
  }
  return ref;
}

#ifndef GPU
/* ===================== the emulator side =============================== */
#include <dlfcn.h>

#include "emu.h"

typedef uint64_t U;
struct call {
  void *fn;
  U a[MAXARG];
};
/* Every parameter as a 64-bit integer: pointers, and ints whose upper half
 * the callee ignores (x86-64 System V). */
static void trampoline(void *p) {
  struct call *c = p;
  U *a = c->a;
  typedef void (*f16)(U, U, U, U, U, U, U, U, U, U, U, U, U, U, U, U);
  ((f16)c->fn)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11], a[12],
               a[13], a[14], a[15]);
}

static void *find_fn(void *lib, const struct kernel *k, const struct spec *s, const char *which) {
  char names[2][128];
  function_names(k, s, which, names);
  for (int i = 0; i < 2; i++) {
    void *f = dlsym(lib, names[i]);
    if (f)
      return f;
  }
  fprintf(stderr, "no function %s or %s in the module\n", names[0], names[1]);
  exit(2);
}

static void emu_run(void *fn, struct state *st, const char *args) {
  struct call c;
  void *argv[MAXARG];
  memset(&c, 0, sizeof c);
  c.fn = fn;
  build_args(args, st->data, st->shadow, st->s.ints, c.a, argv);
  emu_launch(emu_dim3_of(st->s.grid, 1, 1), emu_dim3_of(st->s.block, 1, 1), trampoline, &c);
}

static void dump(FILE *out, struct state *st, int shadows) {
  for (int b = 0; b < st->s.nbuf; b++) {
    fwrite(st->data[b], 1, buf_bytes(&st->s.buf[b]), out);
    if (shadows)
      fwrite(st->shadow[b], 1, buf_bytes(&st->s.buf[b]), out);
  }
}

static int usage(const char *prog) {
  fprintf(stderr,
          "usage: %s configs KERNEL\n"
          "       %s ref KERNEL CONFIG K.so OUT.bin\n"
          "       %s diff KERNEL CONFIG A.bin B.bin\n",
          prog, prog, prog);
  return 2;
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "configs")) {
    const struct kernel *k = find_kernel(argv[2]);
    char cfg[64];
    for (const char *p = k->configs; *p;) {
      size_t n = strcspn(p, " ");
      snprintf(cfg, sizeof cfg, "%.*s", (int)n, p);
      struct spec s = make_spec(k, cfg);
      printf("%s%s\n", cfg, s.no_hand ? " no-hand" : "");
      p += n;
      p += strspn(p, " ");
    }
    return 0;
  }
  if (argc == 6 && !strcmp(argv[1], "diff")) {
    const struct kernel *k = find_kernel(argv[2]);
    struct spec s = make_spec(k, argv[3]);
    char *a = read_ref(argv[4], &s), *b = read_ref(argv[5], &s);
    /* the primal's buffers, then the gradient's buffers and shadows */
    const char *pa = a, *pb = b;
    for (int i = 0; i < s.nbuf; i++) {
      compare("primal", s.buf[i].name, s.buf[i].type, pa, pb, s.buf[i].len);
      pa += buf_bytes(&s.buf[i]);
      pb += buf_bytes(&s.buf[i]);
    }
    for (int i = 0; i < s.nbuf; i++)
      for (int sh = 0; sh < 2; sh++) {
        char name[64];
        snprintf(name, sizeof name, "%s%s", sh ? "d_" : "", s.buf[i].name);
        compare("gradient", name, s.buf[i].type, pa, pb, s.buf[i].len);
        pa += buf_bytes(&s.buf[i]);
        pb += buf_bytes(&s.buf[i]);
      }
    printf("diff: %ld values, %ld mismatches\n", g_values, g_mismatches);
    return g_mismatches ? 1 : 0;
  }
  if (argc != 6 || strcmp(argv[1], "ref"))
    return usage(argv[0]);

  const struct kernel *k = find_kernel(argv[2]);
  const char *config = argv[3];
  void *lib = dlopen(argv[4], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "cannot load %s: %s\n", argv[4], dlerror());
    return 2;
  }
  struct state st;
  st.s = make_spec(k, config);
  void *fp = find_fn(lib, k, &st.s, "primal"), *fg = find_fn(lib, k, &st.s, "grad");
  FILE *out = fopen(argv[5], "wb");
  if (!out) {
    perror(argv[5]);
    return 2;
  }
  fill(&st);
  emu_run(fp, &st, st.s.primal_args);
  dump(out, &st, 0);

  struct state gs;
  gs.s = st.s;
  fill(&gs);
  seed(&gs);
  emu_run(fg, &gs, gs.s.grad_args);
  dump(out, &gs, 1);
  if (fclose(out) != 0) {
    perror(argv[5]);
    return 2;
  }
  printf("%s %s: emulator results written to %s\n", k->name, config, argv[5]);
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
    fflush(stdout);
    fprintf(stderr, "CUDA error in %s: %s (%s)\n", what, name, msg);
    exit(1);
  }
}

struct dev {
  CUdeviceptr data[MAXBUF], shadow[MAXBUF];
};

static void dev_alloc(struct state *st, struct dev *d) {
  for (int b = 0; b < st->s.nbuf; b++) {
    size_t bytes = buf_bytes(&st->s.buf[b]);
    check_cu(cuMemAlloc(&d->data[b], bytes), "cuMemAlloc");
    check_cu(cuMemAlloc(&d->shadow[b], bytes), "cuMemAlloc");
  }
}
static void upload(struct state *st, struct dev *d) {
  for (int b = 0; b < st->s.nbuf; b++) {
    size_t bytes = buf_bytes(&st->s.buf[b]);
    check_cu(cuMemcpyHtoD(d->data[b], st->data[b], bytes), "cuMemcpyHtoD");
    check_cu(cuMemcpyHtoD(d->shadow[b], st->shadow[b], bytes), "cuMemcpyHtoD");
  }
}
static void download(struct state *st, struct dev *d) {
  for (int b = 0; b < st->s.nbuf; b++) {
    size_t bytes = buf_bytes(&st->s.buf[b]);
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
                   const char *what) {
  uint64_t slots[MAXARG];
  void *argv[MAXARG];
  build_args(args, (void **)d->data, (void **)d->shadow, st->s.ints, slots, argv);
  check_cu(cuLaunchKernel(f, st->s.grid, 1, 1, st->s.block, 1, 1, 0, 0, argv, NULL), what);
}

static CUdevice g_dev;
static void init_cuda(void) {
  check_cu(cuInit(0), "cuInit");
  check_cu(cuDeviceGet(&g_dev, 0), "cuDeviceGet");
  CUcontext ctx; /* the primary context: the same call in every CUDA version */
  check_cu(cuDevicePrimaryCtxRetain(&ctx, g_dev), "cuDevicePrimaryCtxRetain");
  check_cu(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
}

/* Loads a PTX file at the JIT's default options; NULL (and a message) if
 * the JIT refuses it. */
static CUmodule load_ptx(const char *path) {
  char *ptx = read_file(path, NULL);
  CUmodule mod;
  static char errlog[16384];
  errlog[0] = 0;
  CUjit_option opts[2] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *vals[2] = {errlog, (void *)(uintptr_t)sizeof errlog};
  CUresult r = cuModuleLoadDataEx(&mod, ptx, 2, opts, vals);
  free(ptx);
  if (r != CUDA_SUCCESS) {
    const char *name = "?";
    cuGetErrorName(r, &name);
    /* the log's first line for the summary, all of it in the error output */
    printf("load error %s: %s; JIT log: %.*s\n", path, name, (int)strcspn(errlog, "\n"), errlog);
    fprintf(stderr, "cannot load %s: %s; JIT log:\n%s\n", path, name, errlog);
    return NULL;
  }
  return mod;
}

static CUfunction get_fn(CUmodule mod, const struct kernel *k, const struct spec *s,
                         const char *which) {
  char names[2][128];
  function_names(k, s, which, names);
  CUfunction f;
  for (int i = 0; i < 2; i++)
    if (cuModuleGetFunction(&f, mod, names[i]) == CUDA_SUCCESS)
      return f;
  fprintf(stderr, "no kernel %s or %s in the module\n", names[0], names[1]);
  exit(2);
}

static int cmp_float(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}

/* Median time in ms of `runs` launches of f (after 3 warm-up launches). */
static float time_kernel(CUfunction f, struct state *st, struct dev *d, const char *args,
                         const char *what) {
#ifdef FAKE_GPU
  int runs = 3;
#else
  int runs = 11;
#endif
  CUevent start, stop;
  check_cu(cuEventCreate(&start, CU_EVENT_DEFAULT), "cuEventCreate");
  check_cu(cuEventCreate(&stop, CU_EVENT_DEFAULT), "cuEventCreate");
  float ms[64];
  for (int w = 0; w < 3; w++)
    launch(f, st, d, args, what);
  check_cu(cuCtxSynchronize(), what);
  for (int r = 0; r < runs; r++) {
    check_cu(cuEventRecord(start, 0), "cuEventRecord");
    launch(f, st, d, args, what);
    check_cu(cuEventRecord(stop, 0), "cuEventRecord");
    check_cu(cuEventSynchronize(stop), what);
    check_cu(cuEventElapsedTime(&ms[r], start, stop), "cuEventElapsedTime");
  }
  qsort(ms, (size_t)runs, sizeof(float), cmp_float);
  cuEventDestroy(start);
  cuEventDestroy(stop);
  return ms[runs / 2];
}

/* drv check KERNEL CONFIG K.ptx REF.bin */
static int check(const struct kernel *k, const char *config, const char *ptx_path,
                 const char *ref_path) {
  struct state st;
  st.s = make_spec(k, config);
  char *ref = read_ref(ref_path, &st.s);
  init_cuda();
  CUmodule mod = load_ptx(ptx_path);
  if (!mod)
    return 1;
  CUfunction fp = get_fn(mod, k, &st.s, "primal"), fg = get_fn(mod, k, &st.s, "grad");

  fill(&st);
  struct dev d;
  dev_alloc(&st, &d);
  upload(&st, &d);
  launch(fp, &st, &d, st.s.primal_args, "the primal kernel");
  check_cu(cuCtxSynchronize(), "the primal kernel");
  download(&st, &d);

  struct state gs;
  gs.s = st.s;
  fill(&gs);
  seed(&gs);
  upload(&gs, &d);
  launch(fg, &gs, &d, gs.s.grad_args, "the gradient kernel");
  check_cu(cuCtxSynchronize(), "the gradient kernel");
  download(&gs, &d);
  release(&st, &d);

  compare_with_ref(&st, &gs, ref);
  printf("compare: %ld values, %ld mismatches\n", g_values, g_mismatches);
  cuModuleUnload(mod);
  cuDevicePrimaryCtxRelease(g_dev);
  return g_mismatches ? 1 : 0;
}

/* Compares two gradient results buffer by buffer, normwise: max |a - b|
 * over a buffer <= rtol max |b| (sums over many threads, accumulated in
 * different orders, differ by more than elementwise tolerances allow). */
static void crosscheck(struct state *a, struct state *b) {
  long values = 0, bad = 0;
  double worst = 0;
  char worst_name[72] = "";
  for (int i = 0; i < a->s.nbuf; i++)
    for (int sh = 0; sh < 2; sh++) {
      const struct buffer *B = &a->s.buf[i];
      const void *x = sh ? a->shadow[i] : a->data[i], *y = sh ? b->shadow[i] : b->data[i];
      double rtol = B->type == 'f' ? 1e-3 : 1e-8, maxdiff = 0, maxref = 0;
      int nan = 0;
      for (long j = 0; j < B->len; j++) {
        double u = get(x, B->type, j), v = get(y, B->type, j);
        nan |= (u != u) != (v != v);
        if (fabs(u - v) > maxdiff)
          maxdiff = fabs(u - v);
        if (fabs(v) > maxref)
          maxref = fabs(v);
      }
      values += B->len;
      double rel = maxref > 0 ? maxdiff / maxref : maxdiff;
      if (nan || rel > rtol) {
        bad++;
        printf("CROSS-MISMATCH %s%s: max |enz-rs - hand-written| %.3g, max |hand-written| %.3g%s\n",
               sh ? "d_" : "", B->name, maxdiff, maxref, nan ? ", NaN in one" : "");
      }
      if (rel > worst || nan) {
        worst = nan ? INFINITY : rel;
        snprintf(worst_name, sizeof worst_name, "%s%s", sh ? "d_" : "", B->name);
      }
    }
  printf("crosscheck: %ld values, %ld buffers differ, max rel diff %.2g", values, bad, worst);
  if (worst > 0)
    printf(" in %s", worst_name);
  printf("\n");
  g_mismatches += bad;
}

/* drv time KERNEL HAND.ptx ENZ.ptx */
static int timing(const struct kernel *k, const char *hand_path, const char *enz_path) {
#ifdef FAKE_GPU
  const char *config = first_config(k); /* the emulator: keep "large" small */
#else
  const char *config = "large";
#endif
  struct state h;
  h.s = make_spec(k, config);
  printf("size: %s, %u blocks of %u\n", h.s.size, h.s.grid, h.s.block);
  init_cuda();
  size_t stack = 0, heap = 0;
  if (cuCtxGetLimit(&stack, CU_LIMIT_STACK_SIZE) == CUDA_SUCCESS &&
      cuCtxGetLimit(&heap, CU_LIMIT_MALLOC_HEAP_SIZE) == CUDA_SUCCESS)
    printf("limits: stack %zu B per thread, heap %zu B (defaults, not raised)\n", stack, heap);
  const char *paths[2] = {hand_path, enz_path}, *tags[2] = {"hand", "enz"};
  const char *whats[2] = {"the hand-written gradient kernel", "the enz-rs gradient kernel"};
  CUmodule mods[2] = {0, 0};
  for (int v = 0; v < 2; v++)
    if (strcmp(paths[v], "-"))
      mods[v] = load_ptx(paths[v]);
  if (!mods[0] && !mods[1])
    return 1;

  fill(&h);
  seed(&h);
  struct dev d;
  dev_alloc(&h, &d);
  upload(&h, &d);
  CUfunction fp = get_fn(mods[0] ? mods[0] : mods[1], k, &h.s, "primal");
  float tp = time_kernel(fp, &h, &d, h.s.primal_args, "the primal kernel");
  printf("time primal %.4f\n", tp);
  fflush(stdout);

  struct state res[2];
  for (int v = 0; v < 2; v++) {
    if (!mods[v])
      continue;
    CUfunction fg = get_fn(mods[v], k, &h.s, "grad");
    int regs = -1, local = -1;
    if (cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fg) == CUDA_SUCCESS &&
        cuFuncGetAttribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fg) == CUDA_SUCCESS)
      printf("attrs %s: %d registers, %d B local memory per thread\n", tags[v], regs, local);
    if (h.s.no_hand && v == 0) {
      printf("time hand unsupported\n");
      mods[0] = 0;
      continue;
    }
    /* one run on fresh inputs, kept for the cross-check, then the timing */
    res[v].s = h.s;
    for (int b = 0; b < h.s.nbuf; b++) {
      res[v].data[b] = xcalloc(buf_bytes(&h.s.buf[b]));
      res[v].shadow[b] = xcalloc(buf_bytes(&h.s.buf[b]));
    }
    upload(&h, &d);
    launch(fg, &h, &d, h.s.grad_args, whats[v]);
    check_cu(cuCtxSynchronize(), whats[v]);
    download(&res[v], &d);
    upload(&h, &d);
    float tg = time_kernel(fg, &h, &d, h.s.grad_args, whats[v]);
    printf("time %s %.4f\n", tags[v], tg);
    fflush(stdout);
  }
  if (mods[0] && mods[1]) {
    crosscheck(&res[1], &res[0]);
    free_state(&res[0]);
    free_state(&res[1]);
  }
  release(&h, &d);
  free_state(&h);
  for (int v = 0; v < 2; v++)
    if (mods[v])
      cuModuleUnload(mods[v]);
  cuDevicePrimaryCtxRelease(g_dev);
  return g_mismatches ? 1 : 0;
}

int main(int argc, char **argv) {
  if (argc == 6 && !strcmp(argv[1], "check"))
    return check(find_kernel(argv[2]), argv[3], argv[4], argv[5]);
  if (argc == 5 && !strcmp(argv[1], "time"))
    return timing(find_kernel(argv[2]), argv[3], argv[4]);
  fprintf(stderr,
          "usage: %s check KERNEL CONFIG K.ptx REF.bin\n"
          "       %s time KERNEL HAND.ptx|- ENZ.ptx|-\n",
          argv[0], argv[0]);
  return 2;
}
#endif
