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
#include "real_values.cuh"

namespace mx {

// x at an index, read from memory.
template <typename T> struct Stored {
    const T *__restrict__ x;
    __device__ __forceinline__ T operator()(uint64_t i) const { return x[i]; }
};

// q_{j+1} at an index, formed from w and q_j where it is read (the deferred Lanczos step).
template <typename T> struct Formed {
    const T *__restrict__ w;
    const T *__restrict__ q;
    T neg_alpha, inv_beta;
    __device__ __forceinline__ T operator()(uint64_t i) const {
        return lanczos_next(neg_alpha, inv_beta, q[i], w[i]);
    }
};

// Partial sum over the entries j = start + lane, start + lane + lanes, ... of one row, x
// read through `x` (Stored or Formed). Values of type V: T, or T's real type for a real
// matrix acting on complex vectors (the "rcsr" kernels, 12 bytes per c64 entry, not 20).
template <typename T, typename V, typename I, bool VALUES, typename X>
__device__ __forceinline__ T row_partial_of(const I *__restrict__ row_ptr,
                                            const I *__restrict__ col_idx,
                                            const V *__restrict__ values, X x, uint64_t row,
                                            unsigned lane, unsigned lanes) {
    T s = zero<T>();
    const I end = row_ptr[row + 1];
    for (I j = row_ptr[row] + lane; j < end; j += lanes) {
        const T xv = x(col_idx[j]);
        s = VALUES ? mad(values[j], xv, s) : add(s, xv);
    }
    return s;
}

template <typename T, typename V, typename I, bool VALUES>
__device__ __forceinline__ T row_partial(const I *__restrict__ row_ptr,
                                         const I *__restrict__ col_idx,
                                         const V *__restrict__ values, const T *__restrict__ x,
                                         uint64_t row, unsigned lane, unsigned lanes) {
    return row_partial_of<T, V, I, VALUES>(row_ptr, col_idx, values, Stored<T>{x}, row, lane,
                                        lanes);
}

template <typename T>
__device__ __forceinline__ T axpby_one(T alpha, T ax, MxScalar beta, const T *y) {
    return is_zero(beta) ? mul(alpha, ax) : mad(alpha, ax, mul(make<T>(beta), *y));
}

template <typename T, typename V, typename I, bool VALUES>
__device__ void spmv_scalar(MxSpmvParams p, const I *__restrict__ row_ptr,
                            const I *__restrict__ col_idx, const V *__restrict__ values,
                            const T *__restrict__ x, T *__restrict__ y) {
    const uint64_t row = global_thread();
    if (row >= p.nrows) return;
    const T s = row_partial<T, V, I, VALUES>(row_ptr, col_idx, values, x, row, 0, 1);
    y[row] = axpby_one(make<T>(p.alpha), s, p.beta, y + row);
}

// The grid covers all rows: block b handles rows [b * rows_per_block, (b+1) * rows_per_block).
template <typename T, typename V, typename I, bool VALUES>
__device__ void spmv_vector(MxSpmvParams p, const I *__restrict__ row_ptr,
                            const I *__restrict__ col_idx, const V *__restrict__ values,
                            const T *__restrict__ x, T *__restrict__ y) {
    const unsigned lanes = 1u << p.lanes_log2;
    const unsigned lane = threadIdx.x & (lanes - 1);
    const uint64_t rows_per_block = blockDim.x >> p.lanes_log2;
    const uint64_t row = blockIdx.x * rows_per_block + (threadIdx.x >> p.lanes_log2);
    T s = zero<T>();
    if (row < p.nrows)
        s = row_partial<T, V, I, VALUES>(row_ptr, col_idx, values, x, row, lane, lanes);
    // Every lane takes part in the shuffles, also those past the last row.
    s = group_sum(s, lanes);
    if (lane == 0 && row < p.nrows) y[row] = axpby_one(make<T>(p.alpha), s, p.beta, y + row);
}

// ---------------------------------------------------------------------------------------
// Pattern SpMV for skewed row lengths (power-law graphs): rows binned by length once, at
// upload, into three tiers served by one launch.
//   blocks [0, n_block):              one block per long row (rows[0 .. n_block), longest
//                                     first), reduced through shared memory;
//   next ceil(n_warp / warps) blocks: one warp per medium row (rows[n_block ..
//                                     n_block + n_warp));
//   the rest:                         all rows in natural order, 1 << lanes_log2 lanes per
//                                     row as in the vector kernel, skipping every row longer
//                                     than light_max (exactly the rows of the two lists).
// Each row is summed by one group in a fixed order and written once: no atomics, results
// reproducible. The long rows' blocks come first so that their chains of dependent loads
// overlap the light rows instead of trailing the launch.

// Sum of x[col_idx[j]] over j = begin + lane, begin + lane + lanes, ... < end, four
// independent gathers in flight per lane. 64-bit positions: j + 3 * lanes cannot wrap.
template <typename T, typename I>
__device__ __forceinline__ T pattern_partial(const I *__restrict__ col_idx,
                                             const T *__restrict__ x, uint64_t begin,
                                             uint64_t end, unsigned lane, unsigned lanes) {
    T s0 = zero<T>(), s1 = zero<T>();
    uint64_t j = begin + lane;
    for (; j + 3ull * lanes < end; j += 4ull * lanes) {
        const I c0 = col_idx[j];
        const I c1 = col_idx[j + lanes];
        const I c2 = col_idx[j + 2ull * lanes];
        const I c3 = col_idx[j + 3ull * lanes];
        s0 = add(s0, add(x[c0], x[c1]));
        s1 = add(s1, add(x[c2], x[c3]));
    }
    for (; j < end; j += lanes) s0 = add(s0, x[col_idx[j]]);
    return add(s0, s1);
}

template <typename T, typename I>
__device__ void spmv_pattern_hybrid(MxSpmvParams p, const I *__restrict__ row_ptr,
                                    const I *__restrict__ col_idx,
                                    const uint64_t *__restrict__ rows, uint64_t n_block,
                                    uint64_t n_warp, uint64_t light_max,
                                    const T *__restrict__ x, T *__restrict__ y) {
    constexpr unsigned WARPS = MX_REDUCE_THREADS / 32;
    const uint64_t b = blockIdx.x;
    const unsigned warp = threadIdx.x >> 5;
    const unsigned wl = threadIdx.x & 31;
    if (b < n_block) {
        // Block-uniform branch: the barrier below is reached by the whole block.
        __shared__ T part[WARPS];
        const uint64_t row = rows[b];
        T s = pattern_partial<T, I>(col_idx, x, row_ptr[row], row_ptr[row + 1], threadIdx.x,
                                    MX_REDUCE_THREADS);
        s = group_sum(s, 32u);
        if (wl == 0) part[warp] = s;
        __syncthreads();
        if (warp == 0) {
            s = wl < WARPS ? part[wl] : zero<T>();
            s = group_sum(s, 32u);
            if (wl == 0) y[row] = axpby_one(make<T>(p.alpha), s, p.beta, y + row);
        }
        return;
    }
    const uint64_t warp_blocks = (n_warp + WARPS - 1) / WARPS;
    if (b < n_block + warp_blocks) {
        const uint64_t k = (b - n_block) * WARPS + warp;
        T s = zero<T>();
        uint64_t row = 0;
        if (k < n_warp) {
            row = rows[n_block + k];
            s = pattern_partial<T, I>(col_idx, x, row_ptr[row], row_ptr[row + 1], wl, 32u);
        }
        s = group_sum(s, 32u);
        if (wl == 0 && k < n_warp) y[row] = axpby_one(make<T>(p.alpha), s, p.beta, y + row);
        return;
    }
    const unsigned lanes = 1u << p.lanes_log2;
    const unsigned lane = threadIdx.x & (lanes - 1);
    const uint64_t rows_per_block = MX_REDUCE_THREADS >> p.lanes_log2;
    const uint64_t row =
        (b - n_block - warp_blocks) * rows_per_block + (threadIdx.x >> p.lanes_log2);
    T s = zero<T>();
    bool mine = false;
    if (row < p.nrows) {
        const uint64_t begin = row_ptr[row];
        const uint64_t end = row_ptr[row + 1];
        mine = end - begin <= light_max;
        if (mine) s = pattern_partial<T, I>(col_idx, x, begin, end, lane, lanes);
    }
    // Every lane takes part in the shuffles, also those of skipped rows and past the end.
    s = group_sum(s, lanes);
    if (lane == 0 && mine) y[row] = axpby_one(make<T>(p.alpha), s, p.beta, y + row);
}

// The product of a Lanczos step with its sums in the same pass: y = A x - beta x_prev
// (no subtraction when x_prev is null) and per-block rows of (Re <x, y>, Im <x, y>, ||y||^2,
// ||x||^2) for the Pythagorean step of reduce.cu, so that no second pass reads x and y. x is
// read through `x` (Stored, or Formed from the previous w and q in the deferred step, which
// then also writes the row's x to x_out). x(row) and x_prev[row] are the row's own entries
// (x(row) is usually just loaded by the row's gather). Grid-stride over row groups with a
// capped grid (the host's LANCZOS_GRID, measured: too few blocks leave the memory underused,
// too many pay a block reduction per 256 rows), the per-block rows folded 256 to one
// (fold_rows) before the finish. lanes_log2 = 0 gives a thread per row.
template <typename T, typename V, typename I, bool VALUES, typename X>
__device__ void spmv_lanczos_body(uint64_t nrows, uint32_t lanes_log2,
                                  const I *__restrict__ row_ptr, const I *__restrict__ col_idx,
                                  const V *__restrict__ values, T b, X x,
                                  const T *__restrict__ x_prev, T *__restrict__ x_out,
                                  T *__restrict__ y, double *__restrict__ partials) {
    const unsigned lanes = 1u << lanes_log2;
    const unsigned lane = threadIdx.x & (lanes - 1);
    const uint64_t rows_per_block = blockDim.x >> lanes_log2;
    double v[4] = {0.0, 0.0, 0.0, 0.0};
    // `base` is the same for the whole block, so the shuffles see full warps.
    for (uint64_t base = blockIdx.x * rows_per_block; base < nrows;
         base += (uint64_t)gridDim.x * rows_per_block) {
        const uint64_t row = base + (threadIdx.x >> lanes_log2);
        const bool mine = lane == 0 && row < nrows;
        // The row's own entries are loaded before its gather, so that their latency overlaps
        // it instead of trailing it (measured: loaded after, they cost 80 us a product on the
        // 256^3 Laplacian, 2.6x their bytes).
        const T xr = mine ? x(row) : zero<T>();
        const T xp = mine && x_prev != nullptr ? x_prev[row] : zero<T>();
        T s = zero<T>();
        if (row < nrows)
            s = row_partial_of<T, V, I, VALUES>(row_ptr, col_idx, values, x, row, lane, lanes);
        s = group_sum(s, lanes);
        if (mine) {
            if (x_prev != nullptr) s = mad(b, xp, s);
            y[row] = s;
            if (x_out != nullptr) x_out[row] = xr;
            lanczos_sums_add(v, xr, s);
        }
    }
    block_sum<4>(v);
    if (threadIdx.x == 0) {
#pragma unroll
        for (int k = 0; k < 4; ++k) partials[4 * blockIdx.x + k] = v[k];
    }
}

// Step j of the Lanczos product: y = A x - beta_j x_prev (beta_j = c[2j-1]).
template <typename T, typename V, typename I, bool VALUES>
__device__ void spmv_lanczos(uint64_t nrows, uint32_t lanes_log2, const I *__restrict__ row_ptr,
                             const I *__restrict__ col_idx, const V *__restrict__ values,
                             const double *__restrict__ c, uint64_t j, const T *__restrict__ x,
                             const T *__restrict__ x_prev, T *__restrict__ y,
                             double *__restrict__ partials) {
    const T b = make<T>(MxScalar{x_prev != nullptr ? -c[2 * j - 1] : 0.0, 0.0});
    spmv_lanczos_body<T, V, I, VALUES>(nrows, lanes_log2, row_ptr, col_idx, values, b,
                                       Stored<T>{x}, x_prev, nullptr, y, partials);
}

// Step j + 1 of the deferred form, once step j is settled (lanczos_pythag_update with defer,
// reduce.cu): q_{j+1} is gathered as (w_prev - alpha_j q) / beta_{j+1} where sums[4] = 0, as
// w_prev where the settle took the exact norm (sums[4] = 1), and written to q_next by the
// row's owner; y = A q_{j+1} - beta_{j+1} q with the sums of step j + 1. Reads A, w_prev
// and q; writes q_next and y: one vector of traffic more than the product alone, against
// three for a separate update pass. Every block reads the same flag: a uniform branch.
template <typename T, typename V, typename I, bool VALUES>
__device__ void spmv_lanczos_advance(uint64_t nrows, uint32_t lanes_log2,
                                     const I *__restrict__ row_ptr, const I *__restrict__ col_idx,
                                     const V *__restrict__ values, const double *__restrict__ c,
                                     uint64_t j, const double *__restrict__ sums,
                                     const T *__restrict__ q, const T *__restrict__ w_prev,
                                     T *__restrict__ q_next, T *__restrict__ y,
                                     double *__restrict__ partials) {
    const T b = make<T>(MxScalar{-c[2 * j + 1], 0.0});
    if (sums[4] != 0.0) {
        spmv_lanczos_body<T, V, I, VALUES>(nrows, lanes_log2, row_ptr, col_idx, values, b,
                                           Stored<T>{w_prev}, q, q_next, y, partials);
    } else {
        const Formed<T> x{w_prev, q, make<T>(MxScalar{-c[2 * j], 0.0}),
                          make<T>(MxScalar{1.0 / c[2 * j + 1], 0.0})};
        spmv_lanczos_body<T, V, I, VALUES>(nrows, lanes_log2, row_ptr, col_idx, values, b, x,
                                           q, q_next, y, partials);
    }
}

} // namespace mx

#define MX_SPMV(name, T, iname, I)                                                               \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        spmv_csr_scalar_##name##_##iname(MxSpmvParams p, const I *row_ptr, const I *col_idx,     \
                                         const T *values, const T *x, T *y) {                    \
        mx::spmv_scalar<T, T, I, true>(p, row_ptr, col_idx, values, x, y);                          \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        spmv_csr_vector_##name##_##iname(MxSpmvParams p, const I *row_ptr, const I *col_idx,     \
                                         const T *values, const T *x, T *y) {                    \
        mx::spmv_vector<T, T, I, true>(p, row_ptr, col_idx, values, x, y);                          \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        spmv_csr_lanczos_##name##_##iname(uint64_t nrows, uint32_t lanes_log2,                   \
                                          const I *row_ptr, const I *col_idx, const T *values,   \
                                          const double *c, uint64_t j, const T *x,               \
                                          const T *x_prev, T *y, double *partials) {             \
        mx::spmv_lanczos<T, T, I, true>(nrows, lanes_log2, row_ptr, col_idx, values, c, j, x,       \
                                     x_prev, y, partials);                                       \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        spmv_csr_lanczos_advance_##name##_##iname(                                               \
            uint64_t nrows, uint32_t lanes_log2, const I *row_ptr, const I *col_idx,             \
            const T *values, const double *c, uint64_t j, const double *sums, const T *q,        \
            const T *w_prev, T *q_next, T *y, double *partials) {                                \
        mx::spmv_lanczos_advance<T, T, I, true>(nrows, lanes_log2, row_ptr, col_idx, values, c, j,  \
                                             sums, q, w_prev, q_next, y, partials);              \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        spmv_pattern_scalar_##name##_##iname(MxSpmvParams p, const I *row_ptr,                   \
                                             const I *col_idx, const T *x, T *y) {               \
        mx::spmv_scalar<T, T, I, false>(p, row_ptr, col_idx, nullptr, x, y);                        \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        spmv_pattern_vector_##name##_##iname(MxSpmvParams p, const I *row_ptr,                   \
                                             const I *col_idx, const T *x, T *y) {               \
        mx::spmv_vector<T, T, I, false>(p, row_ptr, col_idx, nullptr, x, y);                        \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        spmv_pattern_hybrid_##name##_##iname(MxSpmvParams p, const I *row_ptr,                   \
                                             const I *col_idx, const uint64_t *rows,             \
                                             uint64_t n_block, uint64_t n_warp,                  \
                                             uint64_t light_max, const T *x, T *y) {             \
        mx::spmv_pattern_hybrid<T, I>(p, row_ptr, col_idx, rows, n_block, n_warp, light_max, x,  \
                                      y);                                                        \
    }

MX_FOR_EACH_SCALAR_INDEX(MX_SPMV)

// Real matrices acting on complex vectors: the same four CSR kernels with values of the
// vectors' real type V (8 bytes a c64 entry's value instead of 16).
#define MX_SPMV_REAL(name, T, V, iname, I)                                                       \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        spmv_rcsr_scalar_##name##_##iname(MxSpmvParams p, const I *row_ptr, const I *col_idx,    \
                                          const V *values, const T *x, T *y) {                   \
        mx::spmv_scalar<T, V, I, true>(p, row_ptr, col_idx, values, x, y);                       \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        spmv_rcsr_vector_##name##_##iname(MxSpmvParams p, const I *row_ptr, const I *col_idx,    \
                                          const V *values, const T *x, T *y) {                   \
        mx::spmv_vector<T, V, I, true>(p, row_ptr, col_idx, values, x, y);                       \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        spmv_rcsr_lanczos_##name##_##iname(uint64_t nrows, uint32_t lanes_log2,                  \
                                           const I *row_ptr, const I *col_idx, const V *values,  \
                                           const double *c, uint64_t j, const T *x,              \
                                           const T *x_prev, T *y, double *partials) {            \
        mx::spmv_lanczos<T, V, I, true>(nrows, lanes_log2, row_ptr, col_idx, values, c, j, x,    \
                                        x_prev, y, partials);                                    \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        spmv_rcsr_lanczos_advance_##name##_##iname(                                              \
            uint64_t nrows, uint32_t lanes_log2, const I *row_ptr, const I *col_idx,             \
            const V *values, const double *c, uint64_t j, const double *sums, const T *q,        \
            const T *w_prev, T *q_next, T *y, double *partials) {                                \
        mx::spmv_lanczos_advance<T, V, I, true>(nrows, lanes_log2, row_ptr, col_idx, values, c,  \
                                                j, sums, q, w_prev, q_next, y, partials);        \
    }

MX_FOR_EACH_COMPLEX_INDEX(MX_SPMV_REAL)
