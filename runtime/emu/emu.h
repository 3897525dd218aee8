/*
 * emu.h -- the CPU SIMT emulator of enz-rs: runs CUDA kernels compiled for
 * NVPTX on the host, without a GPU.
 *
 * A kernel module is first retargeted to the host
 * (`enz-rs k.bc -o k.emu.ll -S --emulate-host`, or
 * `enz_core::retarget_to_host`): every `llvm.nvvm.read.ptx.sreg.*` read
 * becomes a call to one of the __emu_* functions below, every barrier a call
 * to __emu_barrier_sync & co, address spaces are dropped and kernels become
 * plain C functions (`void kernel(float *x, int n)`). The host program then
 * runs a kernel with
 *
 *     struct args { float *x; int n; } a = { x, n };
 *     static void run(void *p) { struct args *a = p; kernel(a->x, a->n); }
 *     emu_launch(emu_dim3_of(blocks, 1, 1), emu_dim3_of(threads, 1, 1), run, &a);
 *
 * Semantics:
 *   - blocks run one after the other (blockIdx in x-fastest order). Because
 *     of that, a `__shared__` array (an ordinary global after retargeting)
 *     has exactly one copy, and that is right: only one block is alive at a
 *     time. Its content at block start is what the previous block left
 *     (undefined in CUDA too);
 *   - the threads of a block are real OS threads (pthreads), blockDim.x *
 *     blockDim.y * blockDim.z of them (at most 1024), all running at once, so
 *     data races and missing atomics show as wrong results, as on a GPU. They
 *     are created when first needed and reused for every block and launch
 *     (a pool of up to 1024 threads, parked between launches);
 *   - __syncthreads() is a real barrier across the block's threads. A thread
 *     that has returned from the kernel counts as arrived (as on the
 *     hardware), so `if (i >= n) return; ... __syncthreads();` works. All
 *     barrier ids (bar.sync N) are the same barrier; a partial barrier
 *     (bar.sync N, count) must count the whole block;
 *   - atomics are the host's atomics (the module's atomicrmw instructions);
 *   - a barrier that waits longer than EMU_BARRIER_TIMEOUT seconds (default
 *     120) is reported as a deadlock (threads diverging around a barrier),
 *     and the program aborts;
 *   - each emulated thread gets EMU_STACK_KB KiB of stack (default 1024);
 *     one that overflows it is named on stderr (a SIGSEGV handler on an
 *     alternate stack) before the program dies of the fault.
 * Launches are serialised (a process-wide lock); a kernel cannot launch.
 */
#ifndef ENZ_EMU_H
#define ENZ_EMU_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
  unsigned x, y, z;
} emu_dim3;

static inline emu_dim3 emu_dim3_of(unsigned x, unsigned y, unsigned z) {
  emu_dim3 d = {x, y, z};
  return d;
}

/* Runs body(ctx) once per thread of a grid x block launch and returns when
 * all threads have finished. Errors (bad dimensions, thread creation
 * failure, deadlock) are printed to stderr and end the process with exit
 * status 3. */
void emu_launch(emu_dim3 grid, emu_dim3 block, void (*body)(void *), void *ctx);

/* ---- called by retargeted kernels (see enz_core::retarget_to_host) ---- */
int __emu_tid_x(void);
int __emu_tid_y(void);
int __emu_tid_z(void);
int __emu_ntid_x(void);
int __emu_ntid_y(void);
int __emu_ntid_z(void);
int __emu_ctaid_x(void);
int __emu_ctaid_y(void);
int __emu_ctaid_z(void);
int __emu_nctaid_x(void);
int __emu_nctaid_y(void);
int __emu_nctaid_z(void);
int __emu_laneid(void);
int __emu_warpid(void);
int __emu_nwarpid(void);
int __emu_warpsize(void);
void __emu_syncthreads(void);
void __emu_barrier_sync(int id);
void __emu_barrier_sync_count(int id, int count);
/* Reduction barriers; `p` is an i1 in IR, only its low bit counts. */
int __emu_barrier_red_popc(int id, int p);
int __emu_barrier_red_and(int id, int p);
int __emu_barrier_red_or(int id, int p);
void __emu_threadfence(void);
float __emu_rcpf(float x);
double __emu_rcp(double x);
float __emu_divf(float a, float b);
double __emu_div(double a, double b);
float __emu_saturatef(float x);
double __emu_saturate(double x);

#ifdef __cplusplus
}
#endif

#endif /* ENZ_EMU_H */
