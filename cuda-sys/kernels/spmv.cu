// CSR sparse matrix-vector products y <- alpha A x + beta y, for matrices with values
// ("csr") and pattern-only matrices whose stored entries are all 1 ("pattern", graphs).
//
// Two mappings of rows to threads:
//   scalar: one thread per row (good for very short rows, poor coalescing otherwise);
//   vector: a group of 1 << lanes_log2 consecutive lanes per row (Bell & Garland's vector
//           kernel with sub-warp groups), the lanes stride through the row so that loads of
//           values and column indices are coalesced, and the group's partial sums are
//           combined with warp shuffles (no shared memory, no implicit warp synchrony).
// The lane count is a run-time parameter so that one kernel serves every row-length profile
// (the host picks it from the mean row length).
//
// Bytes per product (floor): row_ptr (n+1)*|I| + col_idx nnz*|I| + values nnz*|T| + x
// gathered (>= n*|T|, more when columns scatter beyond the caches) + y written n*|T|
// (+ read when beta != 0).
#include "common.cuh"

namespace mx {

// Partial sum over the entries j = start + lane, start + lane + lanes, ... of one row.
template <typename T, typename I, bool VALUES>
__device__ __forceinline__ T row_partial(const I *__restrict__ row_ptr,
                                         const I *__restrict__ col_idx,
                                         const T *__restrict__ values, const T *__restrict__ x,
                                         uint64_t row, unsigned lane, unsigned lanes) {
    T s = zero<T>();
    const I end = row_ptr[row + 1];
    for (I j = row_ptr[row] + lane; j < end; j += lanes) {
        const T xv = x[col_idx[j]];
        s = VALUES ? mad(values[j], xv, s) : add(s, xv);
    }
    return s;
}

template <typename T>
__device__ __forceinline__ T axpby_one(T alpha, T ax, MxScalar beta, const T *y) {
    return is_zero(beta) ? mul(alpha, ax) : mad(alpha, ax, mul(make<T>(beta), *y));
}

template <typename T, typename I, bool VALUES>
__device__ void spmv_scalar(MxSpmvParams p, const I *__restrict__ row_ptr,
                            const I *__restrict__ col_idx, const T *__restrict__ values,
                            const T *__restrict__ x, T *__restrict__ y) {
    const uint64_t row = global_thread();
    if (row >= p.nrows) return;
    const T s = row_partial<T, I, VALUES>(row_ptr, col_idx, values, x, row, 0, 1);
    y[row] = axpby_one(make<T>(p.alpha), s, p.beta, y + row);
}

// The grid covers all rows: block b handles rows [b * rows_per_block, (b+1) * rows_per_block).
template <typename T, typename I, bool VALUES>
__device__ void spmv_vector(MxSpmvParams p, const I *__restrict__ row_ptr,
                            const I *__restrict__ col_idx, const T *__restrict__ values,
                            const T *__restrict__ x, T *__restrict__ y) {
    const unsigned lanes = 1u << p.lanes_log2;
    const unsigned lane = threadIdx.x & (lanes - 1);
    const uint64_t rows_per_block = blockDim.x >> p.lanes_log2;
    const uint64_t row = blockIdx.x * rows_per_block + (threadIdx.x >> p.lanes_log2);
    T s = zero<T>();
    if (row < p.nrows) s = row_partial<T, I, VALUES>(row_ptr, col_idx, values, x, row, lane, lanes);
    // Every lane takes part in the shuffles, also those past the last row.
    s = group_sum(s, lanes);
    if (lane == 0 && row < p.nrows) y[row] = axpby_one(make<T>(p.alpha), s, p.beta, y + row);
}

} // namespace mx

#define MX_SPMV(name, T, iname, I)                                                               \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        spmv_csr_scalar_##name##_##iname(MxSpmvParams p, const I *row_ptr, const I *col_idx,     \
                                         const T *values, const T *x, T *y) {                    \
        mx::spmv_scalar<T, I, true>(p, row_ptr, col_idx, values, x, y);                          \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        spmv_csr_vector_##name##_##iname(MxSpmvParams p, const I *row_ptr, const I *col_idx,     \
                                         const T *values, const T *x, T *y) {                    \
        mx::spmv_vector<T, I, true>(p, row_ptr, col_idx, values, x, y);                          \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        spmv_pattern_scalar_##name##_##iname(MxSpmvParams p, const I *row_ptr,                   \
                                             const I *col_idx, const T *x, T *y) {               \
        mx::spmv_scalar<T, I, false>(p, row_ptr, col_idx, nullptr, x, y);                        \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        spmv_pattern_vector_##name##_##iname(MxSpmvParams p, const I *row_ptr,                   \
                                             const I *col_idx, const T *x, T *y) {               \
        mx::spmv_vector<T, I, false>(p, row_ptr, col_idx, nullptr, x, y);                        \
    }

MX_FOR_EACH_SCALAR_INDEX(MX_SPMV)
