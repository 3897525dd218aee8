// Host driver for strided.cu: gridstride_host.c's (the same update).
#define GS(name) strided_##name
#include "gridstride_host.c"
