// Item 10: cuBLAS bf16 GEMM (f32 compute) reference TFLOP/s.
#include <cublas_v2.h>
#include "common.h"

#define CB(x)                                                                   \
  do {                                                                          \
    cublasStatus_t s_ = (x);                                                    \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                          \
      fprintf(stderr, "cuBLAS error %d at %s:%d: %s\n", (int)s_, __FILE__, __LINE__, #x); \
      exit(1);                                                                  \
    }                                                                           \
  } while (0)

__global__ void fill_bf16(uint16_t* p, size_t n, uint32_t seed) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint32_t x = (uint32_t)i * 2654435761u ^ seed;
    x ^= x >> 15;
    x *= 0x2c1b3c6du;
    x ^= x >> 12;
    // uniform-ish in +-[0.5, 1) * 2^k, k in {-1, 0}
    p[i] = (uint16_t)(0x3f00 | (x & 0x7f) | ((x >> 16) & 0x8000) | (((x >> 8) & 1) << 7));
  }
}

int main() {
  int nsm = num_sms();
  cublasHandle_t h;
  CB(cublasCreate(&h));
  warm_gpu();
  for (int n : {8192, 4096, 2048}) {
    size_t e = (size_t)n * n;
    uint16_t *A, *B, *C;
    CK(cudaMalloc(&A, e * 2));
    CK(cudaMalloc(&B, e * 2));
    CK(cudaMalloc(&C, e * 2));
    fill_bf16<<<nsm * 8, 512>>>(A, e, 1u);
    fill_bf16<<<nsm * 8, 512>>>(B, e, 7u);
    CKLAUNCH();
    float alpha = 1.f, beta = 0.f;
    auto gemm = [&]() {
      CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, A, CUDA_R_16BF, n, B, CUDA_R_16BF, n, &beta, C,
                      CUDA_R_16BF, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    };
    for (int i = 0; i < 5; ++i) gemm();
    CKLAUNCH();
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    std::vector<double> tf, msv;
    for (int r = 0; r < 20; ++r) {
      CK(cudaEventRecord(e0));
      gemm();
      CK(cudaEventRecord(e1));
      CKLAUNCH();
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      msv.push_back(ms);
      tf.push_back(2.0 * n * (double)n * n / (ms * 1e-3) / 1e12);
    }
    char nm[64], me[300];
    snprintf(nm, sizeof nm, "cublas_bf16_gemm_%d_tflops", n);
    snprintf(me, sizeof me,
             "cublasGemmEx NN %dx%dx%d, A/B/C bf16, CUBLAS_COMPUTE_32F, random data, 5 warm-up, 20 timed singly with cudaEvent", n, n, n);
    emit(nm, stats_of(tf), "TFLOP/s", me);
    snprintf(nm, sizeof nm, "cublas_bf16_gemm_%d_ms", n);
    emit(nm, stats_of(msv), "ms", me);
    if (n == 8192) {
      // sustained: 3 x (250 back-to-back GEMMs, ~0.35 s each), mean TFLOP/s of each batch
      std::vector<double> st;
      for (int b = 0; b < 3; ++b) {
        CK(cudaEventRecord(e0));
        for (int i = 0; i < 250; ++i) gemm();
        CK(cudaEventRecord(e1));
        CKLAUNCH();
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        st.push_back(250 * 2.0 * n * (double)n * n / (ms * 1e-3) / 1e12);
      }
      emit("cublas_bf16_gemm_8192_sustained_tflops", stats_of(st), "TFLOP/s",
           "as cublas_bf16_gemm_8192 but 250 back-to-back GEMMs per timed batch (~0.35 s, power-managed clock), 3 batches");
    }
    CK(cudaFree(A));
    CK(cudaFree(B));
    CK(cudaFree(C));
  }
  CB(cublasDestroy(h));
  return 0;
}
