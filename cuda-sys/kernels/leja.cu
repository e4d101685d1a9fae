// One fused Newton-Leja step on a CSR matrix: a single pass computes, for each row i,
//   y_next[i] = inv_gamma * (A y_prev)[i] + shift * y_prev[i]
//   p[i]     += coeff * y_next[i]
// and accumulates the overflow-safe sum of squares of y_next per block (MxSsqPartial), so
// that ||y_next|| costs one small finish launch instead of another pass over memory.
// Unfused, the same step reads and writes y_next three more times.
//
// Values of type V: T, or T's real type for a real matrix on complex vectors (leja_rcsr).
//
// Pointers: `x` is the full input vector (gathered through col_idx); `x_rows`, `y_next`
// and `acc` point at the first row this launch handles, so a row block of a partitioned
// matrix (multi-GPU) uses the same kernel with offset pointers. With one device,
// x_rows == x.
//
// Grid-stride over row groups with a capped grid (at most MX_MAX_PARTIALS blocks), the
// per-block rows folded 256 to one (fold_rows) before the one-block finish. lanes_log2 = 0
// gives one thread per row.
#include "real_values.cuh"

namespace mx {

template <typename T, typename V, typename I, bool VALUES>
__device__ void leja_step(MxLejaParams p, const I *__restrict__ row_ptr,
                          const I *__restrict__ col_idx, const V *__restrict__ values,
                          const T *__restrict__ x, const T *__restrict__ x_rows,
                          T *__restrict__ y_next, T *__restrict__ acc,
                          MxSsqPartial *__restrict__ partials) {
    const unsigned lanes = 1u << p.lanes_log2;
    const unsigned lane = threadIdx.x & (lanes - 1);
    const uint64_t rows_per_block = blockDim.x >> p.lanes_log2;
    const T inv_gamma = make<T>(p.inv_gamma), shift = make<T>(p.shift), coeff = make<T>(p.coeff);
    MxSsqPartial ssq = ssq_zero();
    // `base` is the same for the whole block, so every lane runs the same number of
    // iterations and the shuffles inside group_sum see full warps.
    for (uint64_t base = blockIdx.x * rows_per_block; base < p.nrows;
         base += (uint64_t)gridDim.x * rows_per_block) {
        const uint64_t row = base + (threadIdx.x >> p.lanes_log2);
        const bool mine = lane == 0 && row < p.nrows;
        // The row's own entries are loaded before its gather so that their latency overlaps
        // it (loaded after, the Lanczos product's measured 2.6x their bytes in time).
        const T xr = mine ? x_rows[row] : zero<T>();
        const T ar = mine ? acc[row] : zero<T>();
        T s = zero<T>();
        const I *rp = row_ptr;
        if (row < p.nrows) {
            const I end = rp[row + 1];
            for (I j = rp[row] + lane; j < end; j += lanes) {
                const T xv = x[col_idx[j]];
                s = VALUES ? mad(values[j], xv, s) : add(s, xv);
            }
        }
        s = group_sum(s, lanes);
        if (mine) {
            const T yn = mad(inv_gamma, s, mul(shift, xr));
            y_next[row] = yn;
            acc[row] = mad(coeff, yn, ar);
            ssq_add(ssq, yn);
        }
    }
    block_store_ssq(ssq, partials + blockIdx.x);
}

} // namespace mx

#define MX_LEJA(name, T, iname, I)                                                               \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        leja_csr_##name##_##iname(MxLejaParams p, const I *row_ptr, const I *col_idx,            \
                                  const T *values, const T *x, const T *x_rows, T *y_next,       \
                                  T *acc, MxSsqPartial *partials) {                              \
        mx::leja_step<T, T, I, true>(p, row_ptr, col_idx, values, x, x_rows, y_next, acc,           \
                                  partials);                                                     \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        leja_pattern_##name##_##iname(MxLejaParams p, const I *row_ptr, const I *col_idx,        \
                                      const T *x, const T *x_rows, T *y_next, T *acc,            \
                                      MxSsqPartial *partials) {                                  \
        mx::leja_step<T, T, I, false>(p, row_ptr, col_idx, nullptr, x, x_rows, y_next, acc,         \
                                   partials);                                                    \
    }

MX_FOR_EACH_SCALAR_INDEX(MX_LEJA)

// A real matrix acting on complex vectors: values of the vectors' real type V.
#define MX_LEJA_REAL(name, T, V, iname, I)                                                       \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        leja_rcsr_##name##_##iname(MxLejaParams p, const I *row_ptr, const I *col_idx,           \
                                   const V *values, const T *x, const T *x_rows, T *y_next,      \
                                   T *acc, MxSsqPartial *partials) {                             \
        mx::leja_step<T, V, I, true>(p, row_ptr, col_idx, values, x, x_rows, y_next, acc,        \
                                     partials);                                                  \
    }

MX_FOR_EACH_COMPLEX_INDEX(MX_LEJA_REAL)
