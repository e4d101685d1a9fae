// Level-1 kernels: fill, scale, axpby, combine. Grid-stride loops; any grid size is correct.
//
// Each is one pass over memory: fill writes n elements, scale reads and writes n, axpby
// reads 2n (n when beta == 0) and writes n.
#include "common.cuh"

namespace mx {

template <typename T> __device__ void fill(MxBlas1Params p, T *__restrict__ x) {
    const T a = make<T>(p.alpha);
    for (uint64_t i = global_thread(); i < p.n; i += grid_threads()) x[i] = a;
}

template <typename T> __device__ void scale(MxBlas1Params p, T *__restrict__ x) {
    const T a = make<T>(p.alpha);
    for (uint64_t i = global_thread(); i < p.n; i += grid_threads()) x[i] = mul(a, x[i]);
}

// y <- alpha x + beta y; with beta == 0, y is written without being read (BLAS convention:
// a NaN already in y does not propagate).
template <typename T>
__device__ void axpby(MxBlas1Params p, const T *__restrict__ x, T *__restrict__ y) {
    const T a = make<T>(p.alpha), b = make<T>(p.beta);
    if (is_zero(p.beta)) {
        for (uint64_t i = global_thread(); i < p.n; i += grid_threads()) y[i] = mul(a, x[i]);
    } else {
        for (uint64_t i = global_thread(); i < p.n; i += grid_threads())
            y[i] = mad(a, x[i], mul(b, y[i]));
    }
}

// Most vectors one combine launch takes (their addresses and coefficients sit in shared
// memory: 512 * 24 bytes).
#define MX_COMBINE_MAX 512

// y <- sum_j c_j x_j (+ y when accumulate != 0) for count <= MX_COMBINE_MAX vectors whose
// device addresses are ptrs[0..count) and coefficients coeffs[0..count). One pass: reads
// each x_j once (and y when accumulating), writes y once; the terms are added in order j =
// 0, 1, ... as repeated axpby would, in the precision of T.
template <typename T>
__device__ void combine(uint64_t n, uint32_t count, const uint64_t *__restrict__ ptrs,
                        const MxScalar *__restrict__ coeffs, uint32_t accumulate,
                        T *__restrict__ y) {
    __shared__ const T *xs[MX_COMBINE_MAX];
    __shared__ T cs[MX_COMBINE_MAX];
    for (uint32_t t = threadIdx.x; t < count; t += blockDim.x) {
        xs[t] = reinterpret_cast<const T *>(ptrs[t]);
        cs[t] = make<T>(coeffs[t]);
    }
    __syncthreads();
    for (uint64_t i = global_thread(); i < n; i += grid_threads()) {
        T acc = accumulate ? y[i] : zero<T>();
        uint32_t j = 0;
        // Four independent loads in flight per round.
        for (; j + 3 < count; j += 4) {
            const T x0 = xs[j][i], x1 = xs[j + 1][i], x2 = xs[j + 2][i], x3 = xs[j + 3][i];
            acc = mad(cs[j], x0, acc);
            acc = mad(cs[j + 1], x1, acc);
            acc = mad(cs[j + 2], x2, acc);
            acc = mad(cs[j + 3], x3, acc);
        }
        for (; j < count; ++j) acc = mad(cs[j], xs[j][i], acc);
        y[i] = acc;
    }
}

} // namespace mx

#define MX_BLAS1(name, T)                                                                        \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        fill_##name(MxBlas1Params p, T *x) {                                                     \
        mx::fill<T>(p, x);                                                                       \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        scale_##name(MxBlas1Params p, T *x) {                                                    \
        mx::scale<T>(p, x);                                                                      \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        axpby_##name(MxBlas1Params p, const T *x, T *y) {                                        \
        mx::axpby<T>(p, x, y);                                                                   \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        combine_##name(uint64_t n, uint32_t count, const uint64_t *ptrs, const MxScalar *coeffs, \
                       uint32_t accumulate, T *y) {                                              \
        mx::combine<T>(n, count, ptrs, coeffs, accumulate, y);                                   \
    }

MX_FOR_EACH_SCALAR(MX_BLAS1)
