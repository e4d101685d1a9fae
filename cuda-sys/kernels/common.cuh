// Scalar arithmetic, warp / block reductions and instantiation macros shared by the kernels.
//
// Kernels are templates over the element type T (float, double, float2, double2 for
// f32, f64, c32, c64) and the index type I (uint32_t, uint64_t); `extern "C"` wrappers give
// every instantiation a stable, unmangled name `<kernel>_<scalar>[_<index>]` that the Rust
// side builds from `Scalar::NAME`.
#pragma once

#include "matexp_params.h"

namespace mx {

// ---------------------------------------------------------------------------------------
// Scalar arithmetic. Complex numbers are float2 / double2 with (x, y) = (re, im).

template <typename T> __device__ __forceinline__ T zero();
template <> __device__ __forceinline__ float zero<float>() { return 0.0f; }
template <> __device__ __forceinline__ double zero<double>() { return 0.0; }
template <> __device__ __forceinline__ float2 zero<float2>() { return make_float2(0.0f, 0.0f); }
template <> __device__ __forceinline__ double2 zero<double2>() { return make_double2(0.0, 0.0); }

// Rounds a host scalar argument to the kernel's precision.
template <typename T> __device__ __forceinline__ T make(MxScalar s);
template <> __device__ __forceinline__ float make<float>(MxScalar s) { return (float)s.re; }
template <> __device__ __forceinline__ double make<double>(MxScalar s) { return s.re; }
template <> __device__ __forceinline__ float2 make<float2>(MxScalar s) {
    return make_float2((float)s.re, (float)s.im);
}
template <> __device__ __forceinline__ double2 make<double2>(MxScalar s) {
    return make_double2(s.re, s.im);
}

__device__ __forceinline__ bool is_zero(MxScalar s) { return s.re == 0.0 && s.im == 0.0; }

__device__ __forceinline__ float add(float a, float b) { return a + b; }
__device__ __forceinline__ double add(double a, double b) { return a + b; }
__device__ __forceinline__ float2 add(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ double2 add(double2 a, double2 b) {
    return make_double2(a.x + b.x, a.y + b.y);
}

__device__ __forceinline__ float mul(float a, float b) { return a * b; }
__device__ __forceinline__ double mul(double a, double b) { return a * b; }
__device__ __forceinline__ float2 mul(float2 a, float2 b) {
    return make_float2(fmaf(a.x, b.x, -a.y * b.y), fmaf(a.x, b.y, a.y * b.x));
}
__device__ __forceinline__ double2 mul(double2 a, double2 b) {
    return make_double2(fma(a.x, b.x, -a.y * b.y), fma(a.x, b.y, a.y * b.x));
}

// a * b + c
__device__ __forceinline__ float mad(float a, float b, float c) { return fmaf(a, b, c); }
__device__ __forceinline__ double mad(double a, double b, double c) { return fma(a, b, c); }
__device__ __forceinline__ float2 mad(float2 a, float2 b, float2 c) {
    return make_float2(fmaf(a.x, b.x, fmaf(-a.y, b.y, c.x)), fmaf(a.x, b.y, fmaf(a.y, b.x, c.y)));
}
__device__ __forceinline__ double2 mad(double2 a, double2 b, double2 c) {
    return make_double2(fma(a.x, b.x, fma(-a.y, b.y, c.x)), fma(a.x, b.y, fma(a.y, b.x, c.y)));
}

// Widening to double precision, the accumulation type of every reduction.
__device__ __forceinline__ double2 widen(float a) { return make_double2((double)a, 0.0); }
__device__ __forceinline__ double2 widen(double a) { return make_double2(a, 0.0); }
__device__ __forceinline__ double2 widen(float2 a) { return make_double2((double)a.x, (double)a.y); }
__device__ __forceinline__ double2 widen(double2 a) { return a; }

// conj(a) * b + c in double precision.
__device__ __forceinline__ double2 conj_mad(double2 a, double2 b, double2 c) {
    return make_double2(fma(a.x, b.x, fma(a.y, b.y, c.x)), fma(a.x, b.y, fma(-a.y, b.x, c.y)));
}

// ---------------------------------------------------------------------------------------
// Warp shuffles; `width` is a power of two <= 32 (sub-warp groups of `width` lanes).

__device__ __forceinline__ float shfl_down(float v, unsigned d, int width) {
    return __shfl_down_sync(0xffffffffu, v, d, width);
}
__device__ __forceinline__ double shfl_down(double v, unsigned d, int width) {
    return __shfl_down_sync(0xffffffffu, v, d, width);
}
__device__ __forceinline__ float2 shfl_down(float2 v, unsigned d, int width) {
    return make_float2(__shfl_down_sync(0xffffffffu, v.x, d, width),
                       __shfl_down_sync(0xffffffffu, v.y, d, width));
}
__device__ __forceinline__ double2 shfl_down(double2 v, unsigned d, int width) {
    return make_double2(__shfl_down_sync(0xffffffffu, v.x, d, width),
                        __shfl_down_sync(0xffffffffu, v.y, d, width));
}

// Sum over each group of `lanes` consecutive lanes; the result is valid in the group's
// first lane. Every lane of the warp must call it (full-mask shuffles).
template <typename T> __device__ __forceinline__ T group_sum(T v, unsigned lanes) {
    for (unsigned d = lanes >> 1; d > 0; d >>= 1) v = add(v, shfl_down(v, d, (int)lanes));
    return v;
}

// ---------------------------------------------------------------------------------------
// Overflow-safe sums of squares (see MxSsqPartial in matexp_params.h).

__device__ __forceinline__ MxSsqPartial ssq_zero() {
    MxSsqPartial s;
    s.small = 0.0;
    s.medium = 0.0;
    s.big = 0.0;
    return s;
}

// 2^e as a compile-time constant (exact for the exponents used here).
__host__ __device__ constexpr double pow2(int e) {
    double r = 1.0;
    for (; e > 0; --e) r *= 2.0;
    for (; e < 0; ++e) r *= 0.5;
    return r;
}
constexpr double kTbig = pow2(MX_SSQ_TBIG_EXP2);
constexpr double kTsml = pow2(MX_SSQ_TSML_EXP2);
constexpr double kSbig = pow2(MX_SSQ_SBIG_EXP2);
constexpr double kSsml = pow2(MX_SSQ_SSML_EXP2);

// Adds a^2. A NaN fails both comparisons and lands in `medium`, so it propagates.
__device__ __forceinline__ void ssq_add(MxSsqPartial &s, double a) {
    const double m = fabs(a);
    if (m > kTbig) {
        const double t = a * kSbig;
        s.big = fma(t, t, s.big);
    } else if (m < kTsml) {
        const double t = a * kSsml;
        s.small = fma(t, t, s.small);
    } else {
        s.medium = fma(a, a, s.medium);
    }
}
__device__ __forceinline__ void ssq_add(MxSsqPartial &s, float a) { ssq_add(s, (double)a); }
__device__ __forceinline__ void ssq_add(MxSsqPartial &s, double2 a) {
    ssq_add(s, a.x);
    ssq_add(s, a.y);
}
__device__ __forceinline__ void ssq_add(MxSsqPartial &s, float2 a) {
    ssq_add(s, (double)a.x);
    ssq_add(s, (double)a.y);
}

// |a| in double precision, without overflow (hypot for complex).
__device__ __forceinline__ double modulus(float a) { return fabs((double)a); }
__device__ __forceinline__ double modulus(double a) { return fabs(a); }
__device__ __forceinline__ double modulus(float2 a) { return hypot((double)a.x, (double)a.y); }
__device__ __forceinline__ double modulus(double2 a) { return hypot(a.x, a.y); }

// max that propagates NaN from either side (fmax would drop it).
__device__ __forceinline__ double max_nan(double a, double b) {
    return (isnan(b) || b > a) ? b : a;
}

// ---------------------------------------------------------------------------------------
// Block reductions over MX_REDUCE_THREADS threads: warp shuffles, then one shared-memory
// round across warps. The result is valid in thread 0. Every thread must call them.

constexpr int kWarps = MX_REDUCE_THREADS / 32;

__device__ __forceinline__ double warp_sum(double v) {
    for (int d = 16; d > 0; d >>= 1) v += __shfl_down_sync(0xffffffffu, v, d);
    return v;
}
__device__ __forceinline__ double warp_max(double v) {
    for (int d = 16; d > 0; d >>= 1) v = max_nan(v, __shfl_down_sync(0xffffffffu, v, d));
    return v;
}

// Sums `K` values per thread across the block, in a fixed order (reproducible results).
template <int K> __device__ __forceinline__ void block_sum(double (&v)[K]) {
    __shared__ double buf[K][kWarps];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
#pragma unroll
    for (int k = 0; k < K; ++k) v[k] = warp_sum(v[k]);
    if (lane == 0) {
#pragma unroll
        for (int k = 0; k < K; ++k) buf[k][warp] = v[k];
    }
    __syncthreads();
    if (warp == 0) {
#pragma unroll
        for (int k = 0; k < K; ++k) v[k] = warp_sum(lane < kWarps ? buf[k][lane] : 0.0);
    }
}

__device__ __forceinline__ double block_max(double v) {
    __shared__ double buf[kWarps];
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    v = warp_max(v);
    if (lane == 0) buf[warp] = v;
    __syncthreads();
    if (warp == 0) v = warp_max(lane < kWarps ? buf[lane] : 0.0);
    return v;
}

// Reduces a thread's sum of squares over the block and stores it at `out` (thread 0).
__device__ __forceinline__ void block_store_ssq(MxSsqPartial s, MxSsqPartial *out) {
    double v[3] = {s.small, s.medium, s.big};
    block_sum<3>(v);
    if (threadIdx.x == 0) {
        out->small = v[0];
        out->medium = v[1];
        out->big = v[2];
    }
}

// Global index and stride of a grid-stride loop, in 64 bits.
__device__ __forceinline__ uint64_t global_thread() {
    return (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ uint64_t grid_threads() { return (uint64_t)gridDim.x * blockDim.x; }

} // namespace mx

// Instantiation lists: X(name, type) for each scalar, and X(name, type, iname, itype) for
// each scalar and index type.
#define MX_FOR_EACH_SCALAR(X) X(f32, float) X(f64, double) X(c32, float2) X(c64, double2)

#define MX_FOR_EACH_SCALAR_INDEX(X)                                                              \
    X(f32, float, u32, uint32_t)                                                                 \
    X(f64, double, u32, uint32_t)                                                                \
    X(c32, float2, u32, uint32_t)                                                                \
    X(c64, double2, u32, uint32_t)                                                               \
    X(f32, float, u64, uint64_t)                                                                 \
    X(f64, double, u64, uint64_t)                                                                \
    X(c32, float2, u64, uint64_t)                                                                \
    X(c64, double2, u64, uint64_t)

namespace mx {
// q_{j+1} = (w - alpha_j q_j) * (1 / beta_{j+1}) at one index: the one expression of the
// Pythagorean update, the deferred form (lanczos_form) and the fused products that gather
// q_{j+1} from w and q_j (spmv_csr_lanczos_advance), so that all give the same bits.
template <typename T>
__device__ __forceinline__ T lanczos_next(T neg_alpha, T inv_beta, T q, T w) {
    return mul(inv_beta, mad(neg_alpha, q, w));
}

// Adds one element's terms of a Lanczos step's sums: (Re conj(q) w, Im conj(q) w, |w|^2, |q|^2).
template <typename T>
__device__ __forceinline__ void lanczos_sums_add(double (&v)[4], T qi, T wi) {
    const double2 q = widen(qi), w = widen(wi);
    v[0] += q.x * w.x + q.y * w.y;
    v[1] += q.x * w.y - q.y * w.x;
    v[2] += w.x * w.x + w.y * w.y;
    v[3] += q.x * q.x + q.y * q.y;
}
} // namespace mx
