// Level-1 kernels: fill, scale, axpby. Grid-stride loops; any grid size is correct.
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
    }

MX_FOR_EACH_SCALAR(MX_BLAS1)
