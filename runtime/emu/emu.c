/*
 * emu.c -- the CPU SIMT emulator of enz-rs (see emu.h for the semantics).
 *
 * A pool of worker pthreads, created on demand (up to 1024) and kept between
 * launches. For each block in turn the coordinator (the thread calling
 * emu_launch) publishes blockIdx, releases the first blockDim.x*y*z workers
 * and waits until every one of them has returned from the kernel.
 *
 * Within a block, __syncthreads() is a generation-counting barrier over the
 * threads still running the kernel (a mutex for the counts, a futex on the
 * generation for waiting). A pthread_barrier_t cannot let a thread that has
 * already returned count as arrived, which CUDA code relies on
 * (`if (i >= n) return;` before a barrier).
 *
 * Linux only (futexes). Build: cc -std=c11 -c emu.c; link with -lpthread.
 */
#define _GNU_SOURCE
#include "emu.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <limits.h>
#include <linux/futex.h>
#include <sys/syscall.h>

#define EMU_MAX_THREADS 1024u

/* Per-thread identity: set once when the worker starts. */
static _Thread_local emu_dim3 t_tid;
static _Thread_local unsigned t_linear; /* linear thread index in the block */
static _Thread_local int t_in_kernel;

/* Waiting: Linux futexes on 32-bit generation counters, so that a
 * released barrier or a new block wakes every waiter without a thundering
 * herd on one mutex (hundreds of threads on a few cores). */
static void futex_wait(atomic_uint *addr, unsigned val, const struct timespec *rel) {
  syscall(SYS_futex, (unsigned *)addr, FUTEX_WAIT_PRIVATE, val, rel, NULL, 0);
}
static void futex_wake_all(atomic_uint *addr) {
  syscall(SYS_futex, (unsigned *)addr, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* The state of the launch in progress (launches are serialised by
 * g_launch_lock). Worker threads are created on demand and kept for later
 * launches: a pool of up to 1024 threads, parked between blocks. */
struct launch {
  /* written by the coordinator while every worker is parked */
  emu_dim3 grid, block, ctaid;
  unsigned nthreads; /* threads per block in this launch */
  void (*body)(void *);
  void *ctx;
  double timeout_s;

  atomic_uint block_gen; /* bumped (and woken) when a block starts */
  /* (block_gen << 32) | the block's thread count, stored before block_gen:
   * a worker reads the generation and whether it takes part in it
   * together. A worker outside a launch (its index past the block size)
   * wakes at every block too, and may read this while the coordinator
   * already sets up the next launch, with another block size. */
  _Atomic unsigned long long block_word;
  atomic_uint done_gen;  /* bumped (and woken) when a block has finished */

  pthread_mutex_t mu;  /* guards the fields below */
  unsigned running;    /* threads of this block still in the kernel */
  unsigned arrived;    /* threads waiting at the barrier */
  atomic_uint barrier_gen;
  int red_popc, red_and, red_or; /* accumulating */
  int res_popc, res_and, res_or; /* results of the last completed one */
};

static struct launch g_launch = {.mu = PTHREAD_MUTEX_INITIALIZER};
static pthread_mutex_t g_launch_lock = PTHREAD_MUTEX_INITIALIZER;

struct worker_arg {
  unsigned index;     /* linear thread index within a block */
  unsigned first_gen; /* block_gen when the worker was created */
};
static struct worker_arg g_args[EMU_MAX_THREADS];

/* A segmentation fault in a worker's stack guard is a stack overflow (a
 * per-thread array or loop cache larger than EMU_STACK_KB): said so on
 * stderr, on an alternate signal stack, before the default action. */
static _Thread_local char *t_stack_lo, *t_stack_hi;
static size_t g_stack_bytes;

static void on_segv(int sig, siginfo_t *si, void *uc) {
  (void)uc;
  char *a = si->si_addr;
  if (t_stack_lo && a < t_stack_hi && a + (1 << 20) >= t_stack_lo) {
    char msg[256];
    int n = snprintf(msg, sizeof msg,
                     "emu: thread (%u,%u,%u) of block (%u,%u,%u) overflowed its "
                     "%zu KiB stack (EMU_STACK_KB): per-thread arrays or loop "
                     "caches too large for it\n",
                     t_tid.x, t_tid.y, t_tid.z, g_launch.ctaid.x, g_launch.ctaid.y,
                     g_launch.ctaid.z, g_stack_bytes >> 10);
    if (n > 0)
      (void)!write(2, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
  }
  signal(sig, SIG_DFL); /* the fault repeats on return: the default action */
}

/* In a new worker: its stack's bounds and an alternate signal stack. */
static void watch_stack(void) {
  pthread_attr_t attr;
  void *lo;
  size_t size;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    if (pthread_attr_getstack(&attr, &lo, &size) == 0) {
      t_stack_lo = lo;
      t_stack_hi = (char *)lo + size;
    }
    pthread_attr_destroy(&attr);
  }
  stack_t alt = {.ss_sp = malloc(1 << 16), .ss_size = 1 << 16};
  if (alt.ss_sp)
    sigaltstack(&alt, NULL);
}
static unsigned g_pool; /* workers created so far (guarded by g_launch_lock) */

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("emu: error: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  fflush(stderr);
  _exit(3); /* not exit(): other threads may hold the locks atexit needs */
}

static struct launch *current(const char *what) {
  if (!t_in_kernel)
    die("%s called outside a kernel launched by emu_launch", what);
  return &g_launch;
}

static double env_double(const char *name, double dflt) {
  const char *s = getenv(name);
  if (!s || !*s)
    return dflt;
  char *end;
  double v = strtod(s, &end);
  if (*end || v <= 0)
    die("%s=%s is not a positive number", name, s);
  return v;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Completes the pending barrier: called with L->mu held, by the last thread
 * to arrive or by the last thread to leave the kernel; the caller wakes the
 * waiters after unlocking. */
static void release_barrier(struct launch *L) {
  L->res_popc = L->red_popc;
  L->res_and = L->red_and;
  L->res_or = L->red_or;
  L->red_popc = 0;
  L->red_and = 1;
  L->red_or = 0;
  L->arrived = 0;
  atomic_fetch_add_explicit(&L->barrier_gen, 1, memory_order_release);
}

/* The one barrier: every form of bar.sync/bar.red ends here. */
static void barrier(struct launch *L, int p, int *popc, int *all, int *any) {
  pthread_mutex_lock(&L->mu);
  unsigned gen = atomic_load_explicit(&L->barrier_gen, memory_order_relaxed);
  L->red_popc += p ? 1 : 0;
  L->red_and = L->red_and && p;
  L->red_or = L->red_or || p;
  L->arrived++;
  if (L->arrived == L->running) {
    release_barrier(L);
    pthread_mutex_unlock(&L->mu);
    futex_wake_all(&L->barrier_gen);
  } else {
    pthread_mutex_unlock(&L->mu);
    double deadline = now_s() + L->timeout_s;
    struct timespec slice = {1, 0};
    while (atomic_load_explicit(&L->barrier_gen, memory_order_acquire) == gen) {
      futex_wait(&L->barrier_gen, gen, &slice);
      if (atomic_load_explicit(&L->barrier_gen, memory_order_acquire) == gen &&
          now_s() > deadline) {
        pthread_mutex_lock(&L->mu);
        die("deadlock: in block (%u,%u,%u), %u of the %u running threads have "
            "waited at __syncthreads for %.0f s (threads diverging around a "
            "barrier?); set EMU_BARRIER_TIMEOUT to wait longer",
            L->ctaid.x, L->ctaid.y, L->ctaid.z, L->arrived, L->running,
            L->timeout_s);
      }
    }
  }
  /* The results stay valid until the next barrier completes, which needs
   * this thread to arrive first. */
  if (popc)
    *popc = L->res_popc;
  if (all)
    *all = L->res_and;
  if (any)
    *any = L->res_or;
}

static void *worker(void *p) {
  const struct worker_arg *w = p;
  struct launch *L = &g_launch;
  unsigned seen = w->first_gen;
  t_linear = w->index;
  watch_stack();
  for (;;) {
    while (atomic_load_explicit(&L->block_gen, memory_order_acquire) == seen)
      futex_wait(&L->block_gen, seen, NULL);
    unsigned long long word = atomic_load_explicit(&L->block_word, memory_order_acquire);
    seen = (unsigned)(word >> 32);
    if (w->index >= (unsigned)word) /* not part of this launch */
      continue;
    t_tid.x = w->index % L->block.x;
    t_tid.y = (w->index / L->block.x) % L->block.y;
    t_tid.z = w->index / (L->block.x * L->block.y);

    t_in_kernel = 1;
    L->body(L->ctx);
    t_in_kernel = 0;

    pthread_mutex_lock(&L->mu);
    L->running--;
    int last = L->running == 0;
    int release = !last && L->arrived > 0 && L->arrived == L->running;
    if (release) /* everyone still running is waiting for us */
      release_barrier(L);
    if (last)
      atomic_fetch_add_explicit(&L->done_gen, 1, memory_order_release);
    pthread_mutex_unlock(&L->mu);
    if (release)
      futex_wake_all(&L->barrier_gen);
    if (last)
      futex_wake_all(&L->done_gen);
  }
  return NULL;
}

/* Grows the pool to n workers; called with g_launch_lock held, all workers
 * parked. */
static void grow_pool(unsigned n, emu_dim3 block) {
  if (g_pool >= n)
    return;
  size_t stack = (size_t)(env_double("EMU_STACK_KB", 1024.0) * 1024.0);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  if (pthread_attr_setstacksize(&attr, stack) != 0)
    die("EMU_STACK_KB: cannot use a stack of %zu bytes", stack);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  if (g_pool == 0) {
    g_stack_bytes = stack;
    struct sigaction sa = {.sa_sigaction = on_segv, .sa_flags = SA_SIGINFO | SA_ONSTACK};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
  }
  unsigned gen = atomic_load(&g_launch.block_gen);
  for (; g_pool < n; g_pool++) {
    g_args[g_pool].index = g_pool;
    g_args[g_pool].first_gen = gen;
    pthread_t t;
    int rc = pthread_create(&t, &attr, worker, &g_args[g_pool]);
    if (rc != 0)
      die("emu_launch: cannot create thread %u of the %u of a block (%u,%u,%u) "
          "with a %zu-byte stack: %s (check `ulimit -u` and memory limits; "
          "EMU_STACK_KB sets the stack size)",
          g_pool + 1, n, block.x, block.y, block.z, stack, strerror(rc));
  }
  pthread_attr_destroy(&attr);
}

void emu_launch(emu_dim3 grid, emu_dim3 block, void (*body)(void *), void *ctx) {
  if (t_in_kernel)
    die("emu_launch called from inside a kernel (dynamic parallelism is not "
        "emulated)");
  if (!body)
    die("emu_launch: no kernel body");
  unsigned long long nthreads =
      (unsigned long long)block.x * block.y * block.z;
  unsigned long long nblocks = (unsigned long long)grid.x * grid.y * grid.z;
  if (nthreads == 0 || nthreads > EMU_MAX_THREADS)
    die("emu_launch: block (%u,%u,%u) has %llu threads; CUDA allows 1 to %u",
        block.x, block.y, block.z, nthreads, EMU_MAX_THREADS);
  if (block.z > 64)
    die("emu_launch: blockDim.z = %u > 64", block.z);
  if (nblocks == 0)
    die("emu_launch: grid (%u,%u,%u) has no blocks", grid.x, grid.y, grid.z);

  pthread_mutex_lock(&g_launch_lock);
  grow_pool((unsigned)nthreads, block);
  struct launch *L = &g_launch;
  L->grid = grid;
  L->block = block;
  L->nthreads = (unsigned)nthreads;
  L->body = body;
  L->ctx = ctx;
  L->timeout_s = env_double("EMU_BARRIER_TIMEOUT", 120.0);
  for (unsigned bz = 0; bz < grid.z; bz++)
    for (unsigned by = 0; by < grid.y; by++)
      for (unsigned bx = 0; bx < grid.x; bx++) {
        L->ctaid = emu_dim3_of(bx, by, bz);
        pthread_mutex_lock(&L->mu);
        L->running = L->nthreads;
        L->arrived = 0;
        L->red_popc = 0;
        L->red_and = 1;
        L->red_or = 0;
        pthread_mutex_unlock(&L->mu);
        unsigned done = atomic_load_explicit(&L->done_gen, memory_order_acquire);
        unsigned gen = atomic_load_explicit(&L->block_gen, memory_order_relaxed) + 1;
        atomic_store_explicit(&L->block_word,
                              (unsigned long long)gen << 32 | L->nthreads,
                              memory_order_release);
        atomic_store_explicit(&L->block_gen, gen, memory_order_release);
        futex_wake_all(&L->block_gen);
        while (atomic_load_explicit(&L->done_gen, memory_order_acquire) == done)
          futex_wait(&L->done_gen, done, NULL);
      }
  L->body = NULL;
  L->ctx = NULL;
  pthread_mutex_unlock(&g_launch_lock);
}

/* ---- the functions retargeted kernels call ---------------------------- */
int __emu_tid_x(void) { current("threadIdx.x"); return (int)t_tid.x; }
int __emu_tid_y(void) { current("threadIdx.y"); return (int)t_tid.y; }
int __emu_tid_z(void) { current("threadIdx.z"); return (int)t_tid.z; }
int __emu_ntid_x(void) { return (int)current("blockDim.x")->block.x; }
int __emu_ntid_y(void) { return (int)current("blockDim.y")->block.y; }
int __emu_ntid_z(void) { return (int)current("blockDim.z")->block.z; }
int __emu_ctaid_x(void) { return (int)current("blockIdx.x")->ctaid.x; }
int __emu_ctaid_y(void) { return (int)current("blockIdx.y")->ctaid.y; }
int __emu_ctaid_z(void) { return (int)current("blockIdx.z")->ctaid.z; }
int __emu_nctaid_x(void) { return (int)current("gridDim.x")->grid.x; }
int __emu_nctaid_y(void) { return (int)current("gridDim.y")->grid.y; }
int __emu_nctaid_z(void) { return (int)current("gridDim.z")->grid.z; }
int __emu_laneid(void) { current("%laneid"); return (int)(t_linear % 32u); }
int __emu_warpid(void) { current("%warpid"); return (int)(t_linear / 32u); }
int __emu_nwarpid(void) {
  return (int)((current("%nwarpid")->nthreads + 31u) / 32u);
}

void __emu_syncthreads(void) {
  barrier(current("__syncthreads"), 0, NULL, NULL, NULL);
}
void __emu_barrier_sync(int id) {
  (void)id; /* every barrier id is the block-wide barrier */
  barrier(current("__syncthreads"), 0, NULL, NULL, NULL);
}
void __emu_barrier_sync_count(int id, int count) {
  struct launch *L = current("bar.sync with a thread count");
  unsigned whole = (L->nthreads + 31u) / 32u * 32u;
  if (count < 0 || ((unsigned)count != L->nthreads && (unsigned)count != whole))
    die("bar.sync %d, %d: partial barriers (a count other than the block's %u "
        "threads) are not emulated",
        id, count, L->nthreads);
  barrier(L, 0, NULL, NULL, NULL);
}
int __emu_barrier_red_popc(int id, int p) {
  (void)id;
  int r;
  barrier(current("__syncthreads_count"), p & 1, &r, NULL, NULL);
  return r;
}
int __emu_barrier_red_and(int id, int p) {
  (void)id;
  int r;
  barrier(current("__syncthreads_and"), p & 1, NULL, &r, NULL);
  return r;
}
int __emu_barrier_red_or(int id, int p) {
  (void)id;
  int r;
  barrier(current("__syncthreads_or"), p & 1, NULL, NULL, &r);
  return r;
}
void __emu_threadfence(void) { atomic_thread_fence(memory_order_seq_cst); }
int __emu_warpsize(void) { return 32; }

/* NVVM math intrinsics without a generic LLVM equivalent. */
float __emu_rcpf(float x) { return 1.0f / x; }
double __emu_rcp(double x) { return 1.0 / x; }
float __emu_divf(float a, float b) { return a / b; }
double __emu_div(double a, double b) { return a / b; }
float __emu_saturatef(float x) { return x != x ? 0.0f : x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x; }
double __emu_saturate(double x) { return x != x ? 0.0 : x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x; }
