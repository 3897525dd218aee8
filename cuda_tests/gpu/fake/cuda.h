/*
 * A stand-in for the CUDA driver API's cuda.h, declaring only what
 * gpu_driver.c uses. With fake_cuda.c it runs gpu_driver.c's GPU side on the
 * CPU SIMT emulator: `scripts/gpu-check.sh --fake-gpu` tests the script and
 * the driver on a machine without a GPU. Not for real GPUs.
 */
#ifndef ENZ_FAKE_CUDA_H
#define ENZ_FAKE_CUDA_H
#include <stddef.h>

#define CUDA_VERSION 12000
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef unsigned long long CUdeviceptr;
typedef int CUjit_option;
typedef int CUlimit;
typedef int CUfunction_attribute;
enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_OUT_OF_MEMORY = 2,
  CUDA_ERROR_NOT_FOUND = 500,
  CUDA_ERROR_NOT_SUPPORTED = 801,
  CU_JIT_ERROR_LOG_BUFFER = 5,
  CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
  CU_EVENT_DEFAULT = 0,
  CU_LIMIT_STACK_SIZE = 0,
  CU_LIMIT_MALLOC_HEAP_SIZE = 2,
  CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
  CU_FUNC_ATTRIBUTE_NUM_REGS = 4
};

CUresult cuInit(unsigned flags);
CUresult cuDeviceGet(CUdevice *d, int ordinal);
CUresult cuDeviceGetName(char *name, int len, CUdevice d);
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d);
CUresult cuDevicePrimaryCtxRelease(CUdevice d);
CUresult cuCtxSetCurrent(CUcontext c);
CUresult cuCtxSynchronize(void);
CUresult cuCtxGetLimit(size_t *value, CUlimit limit);
CUresult cuFuncGetAttribute(int *value, CUfunction_attribute attr, CUfunction f);
CUresult cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned n, CUjit_option *opts,
                            void **vals);
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name);
CUresult cuModuleUnload(CUmodule m);
CUresult cuMemAlloc(CUdeviceptr *p, size_t bytes);
CUresult cuMemFree(CUdeviceptr p);
CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t bytes);
CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t bytes);
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shmem, CUstream s, void **params,
                        void **extra);
CUresult cuEventCreate(CUevent *e, unsigned flags);
CUresult cuEventRecord(CUevent e, CUstream s);
CUresult cuEventSynchronize(CUevent e);
CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent stop);
CUresult cuEventDestroy(CUevent e);
CUresult cuGetErrorName(CUresult r, const char **s);
CUresult cuGetErrorString(CUresult r, const char **s);
#endif
