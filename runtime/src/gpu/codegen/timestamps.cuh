// warpspec op-timestamp helpers (namespace wsg), after the prelude of a timestamped rendering.
namespace wsg {

/// Op timestamps (timestamped renderings only). Each recording warp owns a row of `ROW`
/// words (a power of two) of the global buffer: a header `(smid << 32) | marks kept`, the
/// 64-bit clock as its role returned, the global timer (`%globaltimer`, ns, one time base for
/// every SM) read right after it, then one mark per op, `(site << 32) | clock` (the clock's
/// low 32 bits; the reader unwraps them back from the end clock).
///
/// The warp keeps one register, `slot`: the buffer word its next mark goes to, or
/// `TIMESTAMPS_OFF` in CTAs that do not record; the row is full when `slot` reaches the next
/// row. `slot` is broadcast from lane 0 when it is made, so the compiler knows it is the same
/// in every lane and keeps it on the uniform datapath. A mark has no branch: a clock read, a
/// store predicated on `slot` (every lane stores the same word to the same address) and an
/// increment by 0 or 1. Branches around each op would cut the kernel's code into blocks the
/// compiler schedules one by one, and cost the kernel far more than the marks themselves.
constexpr ws::u32 TIMESTAMPS_OFF = 0xFFFFFFFFu;

template <ws::u32 ROW>
__device__ __forceinline__ ws::u32 timestamps_open(ws::u32 ctas) {
    const ws::u32 cta = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    const ws::u32 slot = cta >= ctas ? TIMESTAMPS_OFF : (cta * (blockDim.x / 32u) + threadIdx.x / 32u) * ROW + 3u;
    return __shfl_sync(0xFFFFFFFFu, slot, 0);
}

/// Records the start of op `site`. The clock read is `volatile` with a memory clobber, so
/// the compiler keeps the op's memory operations (barrier waits, copies) after it.
template <ws::u32 ROW>
__device__ __forceinline__ void timestamp(ws::u64* buf, ws::u32& slot, ws::u32 site) {
    ws::u32 c;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(c)::"memory");
    const bool on = slot != TIMESTAMPS_OFF && (slot & (ROW - 1u)) != 0u;
    if (on) reinterpret_cast<uint2*>(buf)[slot] = make_uint2(c, site);
    slot += on ? 1u : 0u;
}

/// Ends a warp's record: the header, the clock as its role returns and the global timer.
template <ws::u32 ROW>
__device__ __forceinline__ void timestamps_close(ws::u64* buf, ws::u32 slot) {
    ws::u64 c, g;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(c)::"memory");
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g)::"memory");
    if (slot == TIMESTAMPS_OFF || (threadIdx.x & 31u) != 0u) return;
    const ws::u32 header = (slot - 1u) & ~(ROW - 1u);
    ws::u32 sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    buf[header] = (ws::u64(sm) << 32) | (slot - header - 3u);
    buf[header + 1u] = c;
    buf[header + 2u] = g;
}

}  // namespace wsg
