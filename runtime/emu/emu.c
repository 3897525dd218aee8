/*
 * emu.c -- the CPU SIMT emulator of enz-rs (see emu.h for the semantics).
 *
 * One launch: a pool of blockDim.x*y*z worker pthreads is created; for each
 * block in turn the coordinator (the calling thread) publishes blockIdx,
 * releases the workers, and waits until every worker has returned from the
 * kernel. Within a block, __syncthreads() is a generation-counting barrier
 * (mutex + condition variable) over the threads still running the kernel:
 * a pthread_barrier_t cannot let a thread that has already returned count
 * as arrived, which CUDA code relies on (`if (i >= n) return;` before a
 * barrier). Build: cc -c emu.c -pthread (C11).
 */
#define _GNU_SOURCE
#include "emu.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EMU_MAX_THREADS 1024u

/* Per-thread identity: set once when the worker starts. */
static _Thread_local emu_dim3 t_tid;
static _Thread_local unsigned t_linear; /* linear thread index in the block */
static _Thread_local int t_in_kernel;

struct launch {
  pthread_mutex_t mu;
  pthread_cond_t start_cv;   /* coordinator -> workers: a block starts */
  pthread_cond_t done_cv;    /* workers -> coordinator: block finished */
  pthread_cond_t barrier_cv; /* barrier release */

  emu_dim3 grid, block, ctaid;
  unsigned nthreads;
  void (*body)(void *);
  void *ctx;

  unsigned long block_gen; /* bumped when a block starts */
  int quit;                /* no more blocks: workers exit */
  unsigned running;        /* threads of this block still in the kernel */

  /* the barrier */
  unsigned arrived;
  unsigned long barrier_gen;
  int red_popc, red_and, red_or;     /* accumulating */
  int res_popc, res_and, res_or;     /* results of the last completed one */

  double timeout_s;
};

static pthread_mutex_t g_launch_lock = PTHREAD_MUTEX_INITIALIZER;
/* The launch in progress; read by the __emu_* functions of its workers. */
static struct launch *g_launch;

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
  return g_launch;
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

static void deadline_after(struct timespec *ts, double seconds) {
  clock_gettime(CLOCK_REALTIME, ts);
  long long ns = (long long)(seconds * 1e9) + ts->tv_nsec;
  ts->tv_sec += (time_t)(ns / 1000000000LL);
  ts->tv_nsec = (long)(ns % 1000000000LL);
}

/* Completes the pending barrier: called with the lock held, by the last
 * thread to arrive or by the last thread to leave the kernel. */
static void release_barrier(struct launch *L) {
  L->res_popc = L->red_popc;
  L->res_and = L->red_and;
  L->res_or = L->red_or;
  L->red_popc = 0;
  L->red_and = 1;
  L->red_or = 0;
  L->arrived = 0;
  L->barrier_gen++;
  pthread_cond_broadcast(&L->barrier_cv);
}

/* The one barrier: every form of bar.sync/bar.red ends here. */
static void barrier(struct launch *L, int p, int *popc, int *all, int *any) {
  pthread_mutex_lock(&L->mu);
  L->red_popc += p ? 1 : 0;
  L->red_and = L->red_and && p;
  L->red_or = L->red_or || p;
  L->arrived++;
  if (L->arrived == L->running) {
    release_barrier(L);
  } else {
    unsigned long gen = L->barrier_gen;
    struct timespec ts;
    deadline_after(&ts, L->timeout_s);
    while (gen == L->barrier_gen) {
      int rc = pthread_cond_timedwait(&L->barrier_cv, &L->mu, &ts);
      if (rc == ETIMEDOUT && gen == L->barrier_gen)
        die("deadlock: in block (%u,%u,%u), %u of the %u running threads have "
            "waited at __syncthreads for %.0f s (threads diverging around a "
            "barrier?); set EMU_BARRIER_TIMEOUT to wait longer",
            L->ctaid.x, L->ctaid.y, L->ctaid.z, L->arrived, L->running,
            L->timeout_s);
    }
  }
  if (popc)
    *popc = L->res_popc;
  if (all)
    *all = L->res_and;
  if (any)
    *any = L->res_or;
  pthread_mutex_unlock(&L->mu);
}

struct worker_arg {
  struct launch *L;
  unsigned linear;
};

static void *worker(void *p) {
  struct worker_arg *w = p;
  struct launch *L = w->L;
  t_linear = w->linear;
  t_tid.x = w->linear % L->block.x;
  t_tid.y = (w->linear / L->block.x) % L->block.y;
  t_tid.z = w->linear / (L->block.x * L->block.y);
  unsigned long seen = 0;
  for (;;) {
    pthread_mutex_lock(&L->mu);
    while (L->block_gen == seen && !L->quit)
      pthread_cond_wait(&L->start_cv, &L->mu);
    if (L->block_gen == seen && L->quit) {
      pthread_mutex_unlock(&L->mu);
      return NULL;
    }
    seen = L->block_gen;
    pthread_mutex_unlock(&L->mu);

    t_in_kernel = 1;
    L->body(L->ctx);
    t_in_kernel = 0;

    pthread_mutex_lock(&L->mu);
    L->running--;
    if (L->running == 0)
      pthread_cond_signal(&L->done_cv);
    else if (L->arrived > 0 && L->arrived == L->running)
      release_barrier(L); /* everyone still running is waiting for us */
    pthread_mutex_unlock(&L->mu);
  }
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
  struct launch L;
  memset(&L, 0, sizeof L);
  pthread_mutex_init(&L.mu, NULL);
  pthread_cond_init(&L.start_cv, NULL);
  pthread_cond_init(&L.done_cv, NULL);
  pthread_cond_init(&L.barrier_cv, NULL);
  L.grid = grid;
  L.block = block;
  L.nthreads = (unsigned)nthreads;
  L.body = body;
  L.ctx = ctx;
  L.red_and = 1;
  L.timeout_s = env_double("EMU_BARRIER_TIMEOUT", 120.0);
  g_launch = &L;

  size_t stack = (size_t)(env_double("EMU_STACK_KB", 1024.0) * 1024.0);
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  if (pthread_attr_setstacksize(&attr, stack) != 0)
    die("EMU_STACK_KB: cannot use a stack of %zu bytes", stack);
  pthread_t *threads = calloc(L.nthreads, sizeof *threads);
  struct worker_arg *args = calloc(L.nthreads, sizeof *args);
  if (!threads || !args)
    die("emu_launch: out of memory for %u threads", L.nthreads);
  for (unsigned i = 0; i < L.nthreads; i++) {
    args[i].L = &L;
    args[i].linear = i;
    int rc = pthread_create(&threads[i], &attr, worker, &args[i]);
    if (rc != 0)
      die("emu_launch: cannot create thread %u of the %u of a block (%u,%u,%u) "
          "with a %zu-byte stack: %s (check `ulimit -u` and memory limits; "
          "EMU_STACK_KB sets the stack size)",
          i + 1, L.nthreads, block.x, block.y, block.z, stack, strerror(rc));
  }
  pthread_attr_destroy(&attr);

  for (unsigned bz = 0; bz < grid.z; bz++)
    for (unsigned by = 0; by < grid.y; by++)
      for (unsigned bx = 0; bx < grid.x; bx++) {
        pthread_mutex_lock(&L.mu);
        L.ctaid = emu_dim3_of(bx, by, bz);
        L.running = L.nthreads;
        L.arrived = 0;
        L.block_gen++;
        pthread_cond_broadcast(&L.start_cv);
        while (L.running > 0)
          pthread_cond_wait(&L.done_cv, &L.mu);
        pthread_mutex_unlock(&L.mu);
      }

  pthread_mutex_lock(&L.mu);
  L.quit = 1;
  pthread_cond_broadcast(&L.start_cv);
  pthread_mutex_unlock(&L.mu);
  for (unsigned i = 0; i < L.nthreads; i++)
    pthread_join(threads[i], NULL);
  free(threads);
  free(args);
  g_launch = NULL;
  pthread_cond_destroy(&L.barrier_cv);
  pthread_cond_destroy(&L.done_cv);
  pthread_cond_destroy(&L.start_cv);
  pthread_mutex_destroy(&L.mu);
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
