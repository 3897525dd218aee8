// Host driver for hmlstm_chunk_reverse.cu: hmlstm_chunk_host.c's.
#define HMLSTM_CHUNK(name) hmlstm_chunk_reverse_##name
#include "hmlstm_chunk_host.c"
