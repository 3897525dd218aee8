// Host driver for gridstride_mixed.cu: gridstride_host.c's.
#define GS(name) gridstride_mixed_##name
#include "gridstride_host.c"
