// Host side of the TMA microbenchmarks: cuTensorMapEncodeTiled fetched through
// cudaGetDriverEntryPointByVersion (no -lcuda needed), and the one tensor map they use, a 2D
// bf16 row-major tensor read in boxes of 64 columns (128 bytes, 128-byte swizzle).
#pragma once
#include <cuda.h>

#include <cstdio>
#include <cstdlib>

#include "common.h"

typedef CUresult (*PFN_encodeTiled)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                    const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                    CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

// The driver's encoder; exits with a message if the driver has none.
static inline PFN_encodeTiled tensor_map_encoder() {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q;
  CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &q));
  if (!fn || q != cudaDriverEntryPointSuccess) {
    fprintf(stderr, "cuTensorMapEncodeTiled not found\n");
    exit(1);
  }
  return (PFN_encodeTiled)fn;
}

// A `rows` x `cols` bf16 row-major tensor at `base` in boxes of `box_rows` x 64; exits with a
// message if the driver refuses it.
static inline CUtensorMap bf16_2d_map(PFN_encodeTiled encode, void* base, long long rows, long long cols, int box_rows) {
  CUtensorMap map;
  cuuint64_t gdim[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
  cuuint64_t gstride[1] = {(cuuint64_t)cols * 2};
  cuuint32_t box[2] = {64, (cuuint32_t)box_rows};
  cuuint32_t estride[2] = {1, 1};
  CUresult r = encode(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, base, gdim, gstride, box, estride,
                      CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    fprintf(stderr, "cuTensorMapEncodeTiled failed: %d\n", (int)r);
    exit(1);
  }
  return map;
}
