// Two loops of remote mbarrier arrivals (mapa into the cluster window, then arrive), one
// with a release at cluster scope, one with the default semantics (release at CTA scope).
// compile.py compiles them for sm_90a; remote_arrive.dis is nvdisasm's listing.
typedef unsigned int u32; typedef unsigned long long u64;
__device__ __forceinline__ u32 sa(const void* p){ return (u32)__cvta_generic_to_shared(p); }
extern "C" __global__ void __cluster_dims__(2,1,1) rel_cluster(int n){
  __shared__ u64 bar;
  for (int i=0;i<n;++i){
    asm volatile("{\n\t.reg .b32 r;\n\tmapa.shared::cluster.u32 r, %0, %1;\n\tmbarrier.arrive.release.cluster.shared::cluster.b64 _, [r];\n\t}"::"r"(sa(&bar)),"r"(i&1):"memory");
  }
}
extern "C" __global__ void __cluster_dims__(2,1,1) rel_cta(int n){
  __shared__ u64 bar;
  for (int i=0;i<n;++i){
    asm volatile("{\n\t.reg .b32 r;\n\tmapa.shared::cluster.u32 r, %0, %1;\n\tmbarrier.arrive.shared::cluster.b64 _, [r];\n\t}"::"r"(sa(&bar)),"r"(i&1):"memory");
  }
}
