// warpspec generated-code helpers for Blackwell (sm_100a): tensor memory and tcgen05, in
// namespace wsg, after the Hopper helpers. Instruction forms follow the PTX ISA (9.x),
// "Tensor Memory" and "tcgen05" sections. Compile-only here: running needs a B200.
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM100_ALL)
#error "this kernel uses tensor memory (tcgen05): compile it for sm_100a"
#endif
namespace wsg {

// ---------------------------------------------------------------- tensor memory

/// `tcgen05.alloc` of `cols` columns (a power of two, 32 to 512) by the whole warp; the
/// address lands in `*dst`. Then the warp gives up the CTA's right to allocate more.
__device__ __forceinline__ void tmem_alloc(ws::u32* dst, ws::u32 cols) {
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(ws::smem_addr(dst)),
                 "r"(cols)
                 : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
}

/// `tcgen05.dealloc` of the allocation at `taddr` (by the whole warp that allocated it).
__device__ __forceinline__ void tmem_dealloc(ws::u32 taddr, ws::u32 cols) {
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(taddr), "r"(cols) : "memory");
}

/// Orders this thread's tcgen05 operations before a following thread synchronisation
/// (barrier arrive, `bar.sync`) ...
__device__ __forceinline__ void tmem_fence_before_sync() {
    asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
}

/// ... and after a preceding one (barrier wait, `bar.sync`).
__device__ __forceinline__ void tmem_fence_after_sync() {
    asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
}

/// This thread's row of a 128-lane tile: warp `w` of a warpgroup reaches lanes `32 (w % 4)`
/// to `32 (w % 4) + 31` only, one per thread.
__device__ __forceinline__ ws::u32 tmem_row() { return (ws::warp_idx() & 3u) * 32u + ws::lane_idx(); }

/// The address of this warp's 32 lanes at column `taddr` (lane in bits 16-31).
__device__ __forceinline__ ws::u32 tmem_warp_addr(ws::u32 taddr) { return taddr + ((ws::warp_idx() & 3u) << 21); }

/// `tcgen05.ld.32x32b.x32` then `tcgen05.wait::ld`, as one statement (the registers are
/// undefined until the wait): this thread's row, 32 columns from `taddr`.
__device__ __forceinline__ void tmem_ld32(ws::u32 taddr, ws::u32 (&r)[32]) {
    asm volatile(
        "tcgen05.ld.sync.aligned.32x32b.x32.b32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, [%32];\n\t"
        "tcgen05.wait::ld.sync.aligned;"
        : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]), "=r"(r[8]), "=r"(r[9]), "=r"(r[10]), "=r"(r[11]), "=r"(r[12]), "=r"(r[13]), "=r"(r[14]), "=r"(r[15]), "=r"(r[16]), "=r"(r[17]), "=r"(r[18]), "=r"(r[19]), "=r"(r[20]), "=r"(r[21]), "=r"(r[22]), "=r"(r[23]), "=r"(r[24]), "=r"(r[25]), "=r"(r[26]), "=r"(r[27]), "=r"(r[28]), "=r"(r[29]), "=r"(r[30]), "=r"(r[31])
        : "r"(tmem_warp_addr(taddr))
        : "memory");
}

/// `tcgen05.st.32x32b.x32` then `tcgen05.wait::st`: this thread's row, 32 columns from
/// `taddr`.
__device__ __forceinline__ void tmem_st32(ws::u32 taddr, const ws::u32 (&r)[32]) {
    asm volatile(
        "tcgen05.st.sync.aligned.32x32b.x32.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32};\n\t"
        "tcgen05.wait::st.sync.aligned;" ::"r"(tmem_warp_addr(taddr)),
        "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[4]), "r"(r[5]), "r"(r[6]), "r"(r[7]), "r"(r[8]), "r"(r[9]), "r"(r[10]), "r"(r[11]), "r"(r[12]), "r"(r[13]), "r"(r[14]), "r"(r[15]), "r"(r[16]), "r"(r[17]), "r"(r[18]), "r"(r[19]), "r"(r[20]), "r"(r[21]), "r"(r[22]), "r"(r[23]), "r"(r[24]), "r"(r[25]), "r"(r[26]), "r"(r[27]), "r"(r[28]), "r"(r[29]), "r"(r[30]), "r"(r[31])
        : "memory");
}

/// A fragment row (`C` f32 columns, `C` a multiple of 32) from tensor memory.
template <int C>
__device__ __forceinline__ void tmem_load(ws::u32 taddr, float (&d)[C]) {
    static_assert(C % 32 == 0, "tensor-memory fragments come in 32-column chunks");
#pragma unroll
    for (int c = 0; c < C / 32; ++c) {
        ws::u32 r[32];
        tmem_ld32(taddr + 32u * c, r);
#pragma unroll
        for (int i = 0; i < 32; ++i) d[32 * c + i] = __uint_as_float(r[i]);
    }
}

/// A fragment row into tensor memory as f32, one column per element.
template <int C>
__device__ __forceinline__ void tmem_store(ws::u32 taddr, const float (&d)[C]) {
    static_assert(C % 32 == 0, "tensor-memory fragments come in 32-column chunks");
#pragma unroll
    for (int c = 0; c < C / 32; ++c) {
        ws::u32 r[32];
#pragma unroll
        for (int i = 0; i < 32; ++i) r[i] = __float_as_uint(d[32 * c + i]);
        tmem_st32(taddr + 32u * c, r);
    }
}

/// Elements `base .. base + 2N` of `d` as `N` 16-bit pairs (bf16, or f16 with `F16`),
/// rounded to nearest even, element `base + 2i` in the low half of `out[i]`.
template <bool F16, int N, int C>
__device__ __forceinline__ void pack_pairs(const float (&d)[C], int base, ws::u32 (&out)[N]) {
#pragma unroll
    for (int i = 0; i < N; ++i) {
        const float lo = d[base + 2 * i], hi = d[base + 2 * i + 1];
        out[i] = F16 ? ws::pack_f16x2(lo, hi) : ws::pack_bf16x2(lo, hi);
    }
}

/// 32 columns of this thread's row from `src`, each through `f`.
template <typename F>
__device__ __forceinline__ void tmem_ld32_map(ws::u32 src, float (&d)[32], F f) {
    ws::u32 r[32];
    tmem_ld32(src, r);
#pragma unroll
    for (int i = 0; i < 32; ++i) d[i] = f(__uint_as_float(r[i]));
}

/// A fragment row into tensor memory as 16-bit pairs (bf16, or f16 with `F16`), element
/// `2j` in the low half of column `j`: the layout in which `tcgen05.mma` reads an A operand
/// from tensor memory (K along the columns, two elements per 32-bit column).
template <bool F16, int C>
__device__ __forceinline__ void tmem_store_packed(ws::u32 taddr, const float (&d)[C]) {
    static_assert(C % 64 == 0, "packed fragments come in 64-element chunks");
#pragma unroll
    for (int c = 0; c < C / 64; ++c) {
        ws::u32 r[32];
        pack_pairs<F16>(d, 64 * c, r);
        tmem_st32(taddr + 32u * c, r);
    }
}

/// Columns `0 .. C` of this thread's row from `src` to `dst` (which may be `src`), each
/// through `f`, 32 columns at a time: a rescale in place without holding the row.
template <int C, typename F>
__device__ __forceinline__ void tmem_map_copy(ws::u32 src, ws::u32 dst, F f) {
    static_assert(C % 32 == 0, "tensor-memory fragments come in 32-column chunks");
#pragma unroll 1
    for (int c = 0; c < C; c += 32) {
        float d[32];
        tmem_ld32_map(src + ws::u32(c), d, f);
        ws::u32 r[32];
#pragma unroll
        for (int i = 0; i < 32; ++i) r[i] = __float_as_uint(d[i]);
        tmem_st32(dst + ws::u32(c), r);
    }
}

template <bool F16, int ROW_BYTES, int PANEL_COLS, int C>
__device__ __forceinline__ void store_tile(const float (&d)[C], unsigned char* tile, ws::u32 rows, ws::u32 c0);

/// Columns `0 .. C` of this thread's row from tensor memory at `src`, each through `f`,
/// into a 16-bit tile (see `store_tile`), 32 columns at a time.
template <bool F16, int ROW_BYTES, int PANEL_COLS, int C, typename F>
__device__ __forceinline__ void tmem_map_store_tile(ws::u32 src, unsigned char* tile, ws::u32 rows, F f) {
    static_assert(C % 32 == 0, "tensor-memory fragments come in 32-column chunks");
#pragma unroll 1
    for (int c = 0; c < C; c += 32) {
        float d[32];
        tmem_ld32_map(src + ws::u32(c), d, f);
        store_tile<F16, ROW_BYTES, PANEL_COLS>(d, tile, rows, ws::u32(c));
    }
}

// ---------------------------------------------------------------- tcgen05.mma

/// sm_100 shared-memory matrix descriptor of the tile at `p`: its start address (>> 4, 14
/// bits) or-ed into `fields`, the rest of the descriptor (offsets, version, swizzle) that
/// the generator encodes (`codegen::tmem::umma_desc_fields`).
__device__ __forceinline__ ws::u64 umma_desc(const void* p, ws::u64 fields) {
    return ((ws::u64(ws::smem_addr(p)) & 0x3FFFFull) >> 4) | fields;
}

/// `tcgen05.mma.cta_group::1.kind::f16`, A and B in shared memory: `D (+)= A B` into the
/// tensor memory at `d`, as instruction descriptor `idesc` says; `accumulate` false
/// overwrites `D`. Issued by one thread.
__device__ __forceinline__ void umma_ss(ws::u32 d, ws::u64 a, ws::u64 b, ws::u32 idesc, bool accumulate) {
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
        "tcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, p;\n\t}" ::"r"(d),
        "l"(a), "l"(b), "r"(idesc), "r"(ws::u32(accumulate))
        : "memory");
}

/// `tcgen05.mma.cta_group::1.kind::f16` with A in tensor memory at `a`.
__device__ __forceinline__ void umma_ts(ws::u32 d, ws::u32 a, ws::u64 b, ws::u32 idesc, bool accumulate) {
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\t"
        "tcgen05.mma.cta_group::1.kind::f16 [%0], [%1], %2, %3, p;\n\t}" ::"r"(d),
        "r"(a), "l"(b), "r"(idesc), "r"(ws::u32(accumulate))
        : "memory");
}

/// `tcgen05.commit`: one arrival on `bar` once every tcgen05 operation this thread issued
/// before has completed.
__device__ __forceinline__ void umma_commit(ws::u64* bar) {
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(
                     ws::smem_addr(bar))
                 : "memory");
}

// ---------------------------------------------------------------- one row per thread
// A fragment read from a 128-lane tile is one row per thread (`float d[C]`), a row vector
// one value per thread (`float r[1]`): row reductions need no shuffles.

template <int N>
__device__ __forceinline__ void fill(float (&d)[N], float v) {
#pragma unroll
    for (int i = 0; i < N; ++i) d[i] = v;
}

template <int N>
__device__ __forceinline__ void copy(float (&dst)[N], const float (&src)[N]) {
#pragma unroll
    for (int i = 0; i < N; ++i) dst[i] = src[i];
}

template <int N, typename F>
__device__ __forceinline__ void map(float (&d)[N], F f) {
#pragma unroll
    for (int i = 0; i < N; ++i) d[i] = f(d[i]);
}

/// The row's maximum, in a tree (exact in any order).
template <int C>
__device__ __forceinline__ void row_max(const float (&d)[C], float (&out)[1]) {
    float m[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) m[j] = neg_inf();
#pragma unroll
    for (int i = 0; i < C; ++i) m[i % 8] = fmaxf(m[i % 8], d[i]);
#pragma unroll
    for (int s = 4; s > 0; s /= 2)
#pragma unroll
        for (int j = 0; j < s; ++j) m[j] = fmaxf(m[j], m[j + s]);
    out[0] = m[0];
}

/// The row's sum: eight partial sums over columns `i % 8` (independent adds), then a tree.
template <int C>
__device__ __forceinline__ void row_sum(const float (&d)[C], float (&out)[1]) {
    float s8[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) s8[j] = 0.0f;
#pragma unroll
    for (int i = 0; i < C; ++i) s8[i % 8] += d[i];
#pragma unroll
    for (int s = 4; s > 0; s /= 2)
#pragma unroll
        for (int j = 0; j < s; ++j) s8[j] += s8[j + s];
    out[0] = s8[0];
}

template <int C, typename F>
__device__ __forceinline__ void zip_rows(float (&d)[C], const float (&rows)[1], F f) {
#pragma unroll
    for (int i = 0; i < C; ++i) d[i] = f(d[i], rows[0]);
}

template <typename F>
__device__ __forceinline__ void rows_zip(const float (&a)[1], const float (&b)[1], float (&out)[1], F f) {
    out[0] = f(a[0], b[0]);
}

__device__ __forceinline__ void rows_fma(const float (&a)[1], const float (&b)[1], const float (&c)[1],
                                         float (&out)[1]) {
    out[0] = a[0] * b[0] + c[0];
}

/// Whether any row of the instance's `threads` threads (a warp, or a warpgroup meeting on
/// named barrier `bar`) is below `bound`: `vote.any` in a warp, `bar.red.or.pred` across
/// warps. Every thread of the instance gets the same answer.
__device__ __forceinline__ bool any_below(const float (&a)[1], float bound, ws::u32 bar, ws::u32 threads) {
    const ws::u32 below = a[0] < bound ? 1u : 0u;
    if (threads == 32u) return __any_sync(0xffffffffu, below) != 0;
    ws::u32 any;
    asm volatile(
        "{\n\t.reg .pred p, q;\n\tsetp.ne.u32 p, %1, 0;\n\t"
        "bar.red.or.pred q, %2, %3, p;\n\tselp.u32 %0, 1, 0, q;\n\t}"
        : "=r"(any)
        : "r"(below), "r"(bar), "r"(threads)
        : "memory");
    return any != 0;
}

/// This thread's row of an `R x 1` f32 tile.
__device__ __forceinline__ void store_rows(const float (&r)[1], unsigned char* tile) {
    reinterpret_cast<float*>(tile)[tmem_row()] = r[0];
}
__device__ __forceinline__ void load_rows(float (&r)[1], const unsigned char* tile) {
    r[0] = reinterpret_cast<const float*>(tile)[tmem_row()];
}

/// Columns `c0 .. c0 + C` of this thread's row into a 16-bit tile in TMA's layout: panels
/// of `PANEL_COLS` columns, `rows` rows of `ROW_BYTES` (64 or 128) bytes each, the 16-byte
/// chunks of a row XOR-swizzled (128: by `row % 8`; 64: by `(row / 2) % 4`). Eight
/// elements (one chunk, rounded to nearest even) per 16-byte store. `c0` is a multiple of 8.
template <bool F16, int ROW_BYTES, int PANEL_COLS, int C>
__device__ __forceinline__ void store_tile(const float (&d)[C], unsigned char* tile, ws::u32 rows, ws::u32 c0) {
    static_assert(C % 8 == 0, "rows are stored in 16-byte chunks of eight elements");
    const ws::u32 row = tmem_row();
    const ws::u32 swz = ROW_BYTES == 128 ? (row & 7u) : ((row >> 1) & 3u);
#pragma unroll
    for (int g = 0; g < C / 8; ++g) {
        ws::u32 v[4];
        pack_pairs<F16>(d, 8 * g, v);
        const ws::u32 col = c0 + 8u * g;
        const ws::u32 chunk = (col % PANEL_COLS) / 8u;
        const ws::u32 off = (col / PANEL_COLS) * rows * ROW_BYTES + row * ROW_BYTES + ((chunk ^ swz) * 16u);
        asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};" ::"r"(ws::smem_addr(tile + off)), "r"(v[0]),
                     "r"(v[1]), "r"(v[2]), "r"(v[3])
                     : "memory");
    }
}

// ---------------------------------------------------------------- software exp2

/// `2^x` on the FMA and ALU pipes instead of MUFU, as FlashAttention-4 computes part of its
/// exponentials (Zadouri et al., arXiv 2603.05451; `ex2_emulation`,
/// `flash_attn/cute/utils.py`): Cody-Waite range reduction (Cody and Waite, "Software Manual
/// for the Elementary Functions", 1980) `2^x = 2^j 2^f` with `j = floor(x)`, computed by one
/// round-down add of `1.5 * 2^23` that leaves `j` in the low mantissa bits; a degree-3
/// polynomial for `2^f` on `[0, 1)` in Horner form (three FMAs, the coefficients of
/// `warpspec::dsl::exp2_poly`); `j` added to the exponent field (a shift and an integer
/// add). Inputs clamp to `[-127, inf)`; the result is meaningful for `x <= 127`.
__device__ __forceinline__ float exp2_poly(float x) {
    x = fmaxf(x, -127.0f);
    float t;
    asm("add.rm.f32 %0, %1, 0f4B400000;" : "=f"(t) : "f"(x));  // 1.5 * 2^23 + floor(x)
    const float f = x - (t - 12582912.0f);
    const float p = fmaf(fmaf(fmaf(0.077119089663028717041015625f, f, 0.227564394474029541015625f), f,
                              0.695146143436431884765625f),
                         f, 1.0f);
    return __int_as_float(__float_as_int(p) + (__float_as_int(t) << 23));
}

/// `exp2` of a row, split as `Ctx::exp2_split` does: in chunks of 8 columns, the first
/// columns of each chunk (its share of `poly_cols`, pairs spread evenly over the chunks) in
/// software, the rest on MUFU. With `poly_cols` known only at run time each element selects
/// between the two; an operand fence after every pair of columns keeps ptxas from
/// interleaving the temporaries of many elements (which spills beside a 128-column row).
template <int C>
__device__ __forceinline__ void exp2_split(float (&d)[C], int poly_cols) {
    constexpr int CHUNK = 8, CHUNKS = (C + CHUNK - 1) / CHUNK;
    const int pairs = (poly_cols < C ? (poly_cols > 0 ? poly_cols : 0) : C) / 2;
#pragma unroll
    for (int i = 0; i < CHUNKS; ++i) {
        const int soft = ::min(2 * (pairs * (i + 1) / CHUNKS - pairs * i / CHUNKS), CHUNK);
#pragma unroll
        for (int j = 0; j < CHUNK && CHUNK * i + j < C; ++j) {
            const int k = CHUNK * i + j;
            d[k] = j < soft ? exp2_poly(d[k]) : exp2(d[k]);
            // Pair `k - 1, k` done before pair `k + 1, k + 2` starts.
            if (k % 2 == 1 && k + 1 < C) {
                asm volatile("" : "+f"(d[k - 1]), "+f"(d[k]), "+f"(d[k + 1]), "+f"(d[k + 2 < C ? k + 2 : k + 1])::"memory");
            }
        }
    }
}

}  // namespace wsg
