// Host driver for hmlstm_chunk.cu on the CPU SIMT emulator: hmlstm_host.c's
// checks (analytic values and central differences, every branch), with a
// grid of fewer threads than elements (96 threads for 384 elements, 4 each,
// through the loop in the kernel's body).
#ifndef HMLSTM_CHUNK
#define HMLSTM_CHUNK(name) hmlstm_chunk_##name
#endif
#define hmlstm_primal HMLSTM_CHUNK(primal)
#define hmlstm_grad HMLSTM_CHUNK(grad)
#define HMLSTM_BLOCK 32
#define HMLSTM_GRID 3
#include "hmlstm_host.c"
