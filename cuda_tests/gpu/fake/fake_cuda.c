/*
 * fake_cuda.c -- the CUDA driver API calls gpu_driver.c makes, implemented
 * on the CPU SIMT emulator, so that scripts/gpu-check.sh run --fake-gpu can
 * test the GPU path without a GPU. "Device" memory is host memory; a module
 * is the PTX's emulated counterpart, a shared object (the same module
 * retargeted to the host by enz-rs --emulate-host, built with clang -shared
 * -fPIC -Wl,-Bsymbolic) that the environment names:
 *
 *   FAKE_CUDA_MODULES=a.ptx=a.so:b.ptx=b.so
 *
 * cuModuleLoadDataEx dlopens the object whose PTX file has the image's
 * text; kernels are found in it by name (dlsym), with their parameter count
 * read from the PTX `.entry`; events read a monotonic clock. Limits and
 * function attributes are "not supported". x86-64 System V only: kernel
 * arguments (pointers and ints) are passed as 64-bit integers.
 */
#define _GNU_SOURCE
#include "cuda.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "emu.h"

struct CUmod_st {
  char *ptx;
  void *lib;
};
struct CUfunc_st {
  void *fn;
  int nparams;
  char name[128];
};
struct CUevent_st {
  double t;
};

CUresult cuInit(unsigned flags) { (void)flags; return CUDA_SUCCESS; }
CUresult cuDeviceGet(CUdevice *d, int ordinal) { *d = ordinal; return CUDA_SUCCESS; }
CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
  (void)d;
  snprintf(name, (size_t)len, "fake GPU (CPU SIMT emulator)");
  return CUDA_SUCCESS;
}
static struct CUctx_st *the_ctx = (struct CUctx_st *)1;
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) { (void)d; *c = the_ctx; return CUDA_SUCCESS; }
CUresult cuDevicePrimaryCtxRelease(CUdevice d) { (void)d; return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext c) { (void)c; return CUDA_SUCCESS; }
CUresult cuCtxSynchronize(void) { return CUDA_SUCCESS; }
CUresult cuCtxGetLimit(size_t *value, CUlimit limit) {
  (void)value; (void)limit;
  return CUDA_ERROR_NOT_SUPPORTED;
}
CUresult cuFuncGetAttribute(int *value, CUfunction_attribute attr, CUfunction f) {
  (void)value; (void)attr; (void)f;
  return CUDA_ERROR_NOT_SUPPORTED;
}

/* Like the real driver, refuse PTX that calls an external function other
 * than the few the driver provides. */
static int unresolved(const char *ptx, char *which, size_t len) {
  static const char *provided[] = {"malloc", "free", "vprintf", "__assertfail"};
  for (const char *p = strstr(ptx, ".extern .func"); p; p = strstr(p + 1, ".extern .func")) {
    const char *q = p + strlen(".extern .func");
    while (*q == ' ')
      q++;
    if (*q == '(')
      q = strchr(q, ')') ? strchr(q, ')') + 1 : q;
    while (*q == ' ')
      q++;
    size_t n = strspn(q, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_$");
    int ok = 0;
    for (size_t i = 0; i < sizeof provided / sizeof *provided; i++)
      ok |= strlen(provided[i]) == n && strncmp(provided[i], q, n) == 0;
    if (!ok) {
      snprintf(which, len, "%.*s", (int)n, q);
      return 1;
    }
  }
  return 0;
}

static void jit_log(unsigned n, CUjit_option *opts, void **vals, const char *msg) {
  for (unsigned i = 0; i + 1 < n; i++)
    if (opts[i] == CU_JIT_ERROR_LOG_BUFFER && opts[i + 1] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES)
      snprintf(vals[i], (size_t)(uintptr_t)vals[i + 1], "%s", msg);
}

/* Whether the file at `path` holds exactly `text`. */
static int file_is(const char *path, const char *text) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return 0;
  size_t n = strlen(text), i = 0;
  int c, same = 1;
  while (same && (c = fgetc(f)) != EOF)
    same = i < n && (char)c == text[i++];
  fclose(f);
  return same && i == n;
}

/* The shared object FAKE_CUDA_MODULES pairs with the PTX text `image`. */
static void *module_lib(const char *image, char *err, size_t len) {
  const char *list = getenv("FAKE_CUDA_MODULES");
  if (!list || !*list) {
    snprintf(err, len, "fake: FAKE_CUDA_MODULES is not set");
    return NULL;
  }
  char *copy = strdup(list), *save = NULL;
  void *lib = NULL;
  snprintf(err, len, "fake: no PTX file in FAKE_CUDA_MODULES has this text");
  for (char *pair = strtok_r(copy, ":", &save); pair; pair = strtok_r(NULL, ":", &save)) {
    char *eq = strchr(pair, '=');
    if (!eq)
      continue;
    *eq = 0;
    if (!file_is(pair, image))
      continue;
    lib = dlopen(eq + 1, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
      snprintf(err, len, "fake: cannot load %s: %s", eq + 1, dlerror());
    break;
  }
  free(copy);
  return lib;
}

CUresult cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned n, CUjit_option *opts,
                            void **vals) {
  char which[128], msg[512];
  if (unresolved(image, which, sizeof which)) {
    snprintf(msg, sizeof msg, "ptxas fatal: unresolved extern function '%s'", which);
    jit_log(n, opts, vals, msg);
    return CUDA_ERROR_INVALID_VALUE;
  }
  void *lib = module_lib(image, msg, sizeof msg);
  if (!lib) {
    jit_log(n, opts, vals, msg);
    return CUDA_ERROR_INVALID_VALUE;
  }
  *m = malloc(sizeof **m);
  (*m)->ptx = strdup(image);
  (*m)->lib = lib;
  return CUDA_SUCCESS;
}
CUresult cuModuleUnload(CUmodule m) {
  dlclose(m->lib);
  free(m->ptx);
  free(m);
  return CUDA_SUCCESS;
}

/* The parameter count of `.entry name(` in the PTX. */
static int entry_params(const char *ptx, const char *name) {
  char pat[160];
  snprintf(pat, sizeof pat, ".entry %s(", name);
  const char *p = strstr(ptx, pat);
  if (!p)
    return -1;
  const char *end = strchr(p, ')');
  int n = 0;
  for (const char *q = p; q && q < end; q = strstr(q + 1, ".param"))
    if (q != p)
      n++;
  return n;
}

CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
  int n = entry_params(m->ptx, name);
  void *fn = dlsym(m->lib, name);
  if (n < 0 || !fn || n > 16)
    return CUDA_ERROR_NOT_FOUND;
  *f = malloc(sizeof **f);
  (*f)->fn = fn;
  (*f)->nparams = n;
  snprintf((*f)->name, sizeof (*f)->name, "%s", name);
  return CUDA_SUCCESS;
}

CUresult cuMemAlloc(CUdeviceptr *p, size_t bytes) {
  void *m = malloc(bytes ? bytes : 1);
  if (!m)
    return CUDA_ERROR_OUT_OF_MEMORY;
  *p = (CUdeviceptr)(uintptr_t)m;
  return CUDA_SUCCESS;
}
CUresult cuMemFree(CUdeviceptr p) { free((void *)(uintptr_t)p); return CUDA_SUCCESS; }
CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes) {
  memcpy((void *)(uintptr_t)dst, src, bytes);
  return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes) {
  memcpy(dst, (const void *)(uintptr_t)src, bytes);
  return CUDA_SUCCESS;
}

struct call {
  CUfunction f;
  uint64_t a[16];
};
typedef uint64_t U;
static void run(void *p) {
  struct call *c = p;
  U *a = c->a;
  /* Every parameter as a 64-bit integer (pointers, and ints whose upper half
   * the callee ignores). */
  typedef void (*f16)(U, U, U, U, U, U, U, U, U, U, U, U, U, U, U, U);
  ((f16)c->f->fn)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9], a[10], a[11],
                  a[12], a[13], a[14], a[15]);
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shmem, CUstream s, void **params,
                        void **extra) {
  (void)shmem; (void)s; (void)extra;
  struct call c;
  memset(&c, 0, sizeof c);
  c.f = f;
  /* The sizes of the parameters are not known here: copy 8 bytes of each
   * pointer-sized slot the driver built (gpu_driver.c keeps one 8-byte slot
   * per argument). */
  for (int i = 0; i < f->nparams; i++)
    memcpy(&c.a[i], params[i], 8);
  emu_launch(emu_dim3_of(gx, gy, gz), emu_dim3_of(bx, by, bz), run, &c);
  return CUDA_SUCCESS;
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}
CUresult cuEventCreate(CUevent *e, unsigned flags) { (void)flags; *e = calloc(1, sizeof **e); return CUDA_SUCCESS; }
CUresult cuEventRecord(CUevent e, CUstream s) { (void)s; e->t = now_ms(); return CUDA_SUCCESS; }
CUresult cuEventSynchronize(CUevent e) { (void)e; return CUDA_SUCCESS; }
CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b) { *ms = (float)(b->t - a->t); return CUDA_SUCCESS; }
CUresult cuEventDestroy(CUevent e) { free(e); return CUDA_SUCCESS; }
CUresult cuGetErrorName(CUresult r, const char **s) { *s = r ? "CUDA_ERROR (fake)" : "CUDA_SUCCESS"; return CUDA_SUCCESS; }
CUresult cuGetErrorString(CUresult r, const char **s) { *s = r ? "error in the fake CUDA driver" : "no error"; return CUDA_SUCCESS; }
