// One fused Newton-Leja step on a CSR matrix: a single pass computes, for each row i,
//   y_next[i] = inv_gamma * (A y_prev)[i] + shift * y_prev[i]
//   p[i]     += coeff * y_next[i]
// and accumulates the overflow-safe sum of squares of y_next per block (MxSsqPartial), so
// that ||y_next|| costs one small finish launch instead of another pass over memory.
// Unfused, the same step reads and writes y_next three more times.
//
// Pointers: `x` is the full input vector (gathered through col_idx); `x_rows`, `y_next`
// and `acc` point at the first row this launch handles, so a row block of a partitioned
// matrix (multi-GPU) uses the same kernel with offset pointers. With one device,
// x_rows == x.
//
// Grid-stride over row groups with a grid that just fills the device (the host launches
// as many blocks as can be resident at once, at most MX_MAX_PARTIALS): every block stays
// busy to the end, and the norm's finish combines one partial per resident block (about a
// thousand) instead of one per row group, which a single finish block would read serially
// after the step (tens of microseconds at 16384 partials). lanes_log2 = 0 gives one thread
// per row.
//
// Latency: the row's own operands x_rows[row] and acc[row], loaded after the group sum,
// would add a dependent round trip to device memory per row group, a phase in which the
// warp has little else in flight. Real scalars load them into registers before the gather
// through the row (one coalesced warp instruction each when lanes = 1); complex scalars
// would need 8 more registers and fall below full occupancy, so with several lanes per row
// the owning lane only prefetches their lines into L2 (registers free, one request per
// row), and the later loads wait for L2 instead of device memory. With one lane per row
// (complex), a prefetch per thread is not coalesced and would cost more than it saves.
#include "common.cuh"

namespace mx {

template <typename T, typename I, bool VALUES>
__device__ void leja_step(MxLejaParams p, const I *__restrict__ row_ptr,
                          const I *__restrict__ col_idx, const T *__restrict__ values,
                          const T *__restrict__ x, const T *__restrict__ x_rows,
                          T *__restrict__ y_next, T *__restrict__ acc,
                          MxSsqPartial *__restrict__ partials) {
    const unsigned lanes = 1u << p.lanes_log2;
    const unsigned lane = threadIdx.x & (lanes - 1);
    const uint64_t rows_per_block = blockDim.x >> p.lanes_log2;
    const T inv_gamma = make<T>(p.inv_gamma), shift = make<T>(p.shift), coeff = make<T>(p.coeff);
    MxSsqPartial ssq = ssq_zero();
    // Early register loads of the row's own operands for real scalars (see the top).
    constexpr bool kEarlyLoads = !is_complex<T>::value;
    // `base` is the same for the whole block, so every lane runs the same number of
    // iterations and the shuffles inside group_sum see full warps.
    for (uint64_t base = blockIdx.x * rows_per_block; base < p.nrows;
         base += (uint64_t)gridDim.x * rows_per_block) {
        const uint64_t row = base + (threadIdx.x >> p.lanes_log2);
        const bool owner = lane == 0 && row < p.nrows;
        T s = zero<T>(), xr = zero<T>(), ac = zero<T>();
        if (kEarlyLoads) {
            if (owner) {
                xr = x_rows[row];
                ac = acc[row];
            }
        } else if (p.lanes_log2 > 0 && owner) {
            prefetch_l2(x_rows + row);
            prefetch_l2(acc + row);
        }
        if (row < p.nrows) {
            const I end = row_ptr[row + 1];
            for (I j = row_ptr[row] + lane; j < end; j += lanes) {
                const T xv = x[col_idx[j]];
                s = VALUES ? mad(values[j], xv, s) : add(s, xv);
            }
        }
        s = group_sum(s, lanes);
        if (owner) {
            if (!kEarlyLoads) {
                xr = x_rows[row];
                ac = acc[row];
            }
            const T yn = mad(inv_gamma, s, mul(shift, xr));
            y_next[row] = yn;
            acc[row] = mad(coeff, yn, ac);
            ssq_add(ssq, yn);
        }
    }
    block_store_ssq(ssq, partials + blockIdx.x);
}

} // namespace mx

#define MX_LEJA(name, T, iname, I)                                                               \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS, 8)                            \
        leja_csr_##name##_##iname(MxLejaParams p, const I *row_ptr, const I *col_idx,            \
                                  const T *values, const T *x, const T *x_rows, T *y_next,       \
                                  T *acc, MxSsqPartial *partials) {                              \
        mx::leja_step<T, I, true>(p, row_ptr, col_idx, values, x, x_rows, y_next, acc,           \
                                  partials);                                                     \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS, 8)                            \
        leja_pattern_##name##_##iname(MxLejaParams p, const I *row_ptr, const I *col_idx,        \
                                      const T *x, const T *x_rows, T *y_next, T *acc,            \
                                      MxSsqPartial *partials) {                                  \
        mx::leja_step<T, I, false>(p, row_ptr, col_idx, nullptr, x, x_rows, y_next, acc,         \
                                   partials);                                                    \
    }

MX_FOR_EACH_SCALAR_INDEX(MX_LEJA)
