// hmlstm_chunk.cu's loop in reverse mode: every iteration's intermediate
// values (85 of them at -O2, 326 bytes, among them the steps of the device
// expf and tanhf) cached per thread, where mixed mode caches 28
// bytes of partials.
// enz-args: --mode-per-loop reverse --gpu-thread-cache 65536
// enz-no-extra-atomics
// (scripts/gpu-check.sh's timed run: 128 elements a thread, 42 KB)
#define HMLSTM_CHUNK(name) hmlstm_chunk_reverse_##name
#include "hmlstm_chunk.cu"
