// y = sin(x)·x elementwise: the kernel of the crate that shows how a crate outside
// matexp-gpu ships its own PTX. Compiled by `cargo xtask cuda` into ../ptx/sin_x.ptx.
#include "common.cuh"

namespace {

__device__ __forceinline__ float sin_x(float x) { return sinf(x) * x; }
__device__ __forceinline__ double sin_x(double x) { return sin(x) * x; }

template <typename T>
__device__ void sin_times_x(uint64_t n, const T *__restrict__ x, T *__restrict__ y) {
    const uint64_t g = mx::grid_threads();
    for (uint64_t i = mx::global_thread(); i < n; i += g) y[i] = sin_x(x[i]);
}

} // namespace

extern "C" __global__ void sin_times_x_f32(uint64_t n, const float *x, float *y) {
    sin_times_x<float>(n, x, y);
}

extern "C" __global__ void sin_times_x_f64(uint64_t n, const double *x, double *y) {
    sin_times_x<double>(n, x, y);
}
