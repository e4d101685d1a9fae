// Tree reductions in two launches: a partial pass (grid-stride; each block reduces its share
// and writes one partial per block) and a finish pass (one block combines the partials in a
// fixed order). Accumulation is in double precision for every scalar type, so f32 / c32
// reductions carry no float rounding; the order of summation depends only on the grid size,
// so results are reproducible run to run.
//
// Partial layouts (row per block):
//   dot:  2 doubles (re, im) of sum conj(x_i) y_i
//   nrm2: MxSsqPartial (3 doubles), overflow-safe sums of squares
//   amax: 1 double, max |x_i| (NaN if any |x_i| is NaN)
//   sum:  2 doubles (re, im) of sum x_i
//
// The Lanczos step kernels at the end keep their scalars in a coefficient array in device
// memory (c[2j] = alpha_j, c[2j+1] = beta_{j+1}): alpha comes from dot_partial + finish_sum
// written at c + 2j, the update reads it and beta_j from c, beta_{j+1} is finished on the
// device (lanczos_beta) and the scale kernel reads it, so a step needs no host round trip.
#include "common.cuh"

namespace mx {

template <typename T>
__device__ void dot_partial(uint64_t n, const T *__restrict__ x, const T *__restrict__ y,
                            double *__restrict__ partials) {
    double2 s = make_double2(0.0, 0.0);
    const uint64_t g = grid_threads();
    uint64_t i = global_thread();
    // Four independent loads per operand in flight per round: short (f32) elements need them
    // to keep enough bytes moving.
    for (; i + 3 * g < n; i += 4 * g) {
        const T x0 = x[i], x1 = x[i + g], x2 = x[i + 2 * g], x3 = x[i + 3 * g];
        const T y0 = y[i], y1 = y[i + g], y2 = y[i + 2 * g], y3 = y[i + 3 * g];
        s = conj_mad(widen(x0), widen(y0), s);
        s = conj_mad(widen(x1), widen(y1), s);
        s = conj_mad(widen(x2), widen(y2), s);
        s = conj_mad(widen(x3), widen(y3), s);
    }
    for (; i < n; i += g) s = conj_mad(widen(x[i]), widen(y[i]), s);
    double v[2] = {s.x, s.y};
    block_sum<2>(v);
    if (threadIdx.x == 0) {
        partials[2 * blockIdx.x] = v[0];
        partials[2 * blockIdx.x + 1] = v[1];
    }
}

template <typename T>
__device__ void nrm2_partial(uint64_t n, const T *__restrict__ x,
                             MxSsqPartial *__restrict__ partials) {
    MxSsqPartial s = ssq_zero();
    const uint64_t g = grid_threads();
    uint64_t i = global_thread();
    for (; i + 3 * g < n; i += 4 * g) {
        const T x0 = x[i], x1 = x[i + g], x2 = x[i + 2 * g], x3 = x[i + 3 * g];
        ssq_add(s, x0);
        ssq_add(s, x1);
        ssq_add(s, x2);
        ssq_add(s, x3);
    }
    for (; i < n; i += g) ssq_add(s, x[i]);
    block_store_ssq(s, partials + blockIdx.x);
}

template <typename T>
__device__ void amax_partial(uint64_t n, const T *__restrict__ x, double *__restrict__ partials) {
    double m = 0.0;
    const uint64_t g = grid_threads();
    uint64_t i = global_thread();
    for (; i + 3 * g < n; i += 4 * g) {
        const T x0 = x[i], x1 = x[i + g], x2 = x[i + 2 * g], x3 = x[i + 3 * g];
        m = max_nan(max_nan(m, modulus(x0)), modulus(x1));
        m = max_nan(max_nan(m, modulus(x2)), modulus(x3));
    }
    for (; i < n; i += g) m = max_nan(m, modulus(x[i]));
    m = block_max(m);
    if (threadIdx.x == 0) partials[blockIdx.x] = m;
}

template <typename T>
__device__ void sum_partial(uint64_t n, const T *__restrict__ x, double *__restrict__ partials) {
    double2 s = make_double2(0.0, 0.0);
    const uint64_t g = grid_threads();
    uint64_t i = global_thread();
    for (; i + 3 * g < n; i += 4 * g) {
        const T x0 = x[i], x1 = x[i + g], x2 = x[i + 2 * g], x3 = x[i + 3 * g];
        const double2 a = widen(x0), b = widen(x1), c = widen(x2), d = widen(x3);
        s.x += (a.x + b.x) + (c.x + d.x);
        s.y += (a.y + b.y) + (c.y + d.y);
    }
    for (; i < n; i += g) {
        const double2 a = widen(x[i]);
        s.x += a.x;
        s.y += a.y;
    }
    double v[2] = {s.x, s.y};
    block_sum<2>(v);
    if (threadIdx.x == 0) {
        partials[2 * blockIdx.x] = v[0];
        partials[2 * blockIdx.x + 1] = v[1];
    }
}

// sqrt of Blue's three scaled sums (LAPACK dnrm2's combination; ssq_norm on the host does
// the same): huge components absorb the mid-range sum, tiny and mid-range ones are unscaled
// and added as ymax * sqrt(1 + (ymin / ymax)^2). NaN propagates.
__device__ __forceinline__ double ssq_norm(double asml, double amed, double abig) {
    if (abig > 0.0) {
        if (amed > 0.0 || isnan(amed)) abig += (amed * kSbig) * kSbig;
        return sqrt(abig) / kSbig;
    }
    if (asml > 0.0) {
        if (amed > 0.0 || isnan(amed)) {
            const double m = sqrt(amed), t = sqrt(asml) / kSsml;
            const double ymin = t > m ? m : t, ymax = t > m ? t : m;
            return ymax * sqrt(1.0 + (ymin / ymax) * (ymin / ymax));
        }
        return sqrt(asml) / kSsml;
    }
    return sqrt(amed);
}

__device__ __forceinline__ MxScalar real_scalar(double re) {
    MxScalar s = {re, 0.0};
    return s;
}

// w <- w - alpha_j q - beta_j q_prev (alpha_j = c[2j], beta_j = c[2j-1]; no q_prev term when
// q_prev is null), and per-block sums of squares of the new w. One pass: reads 3n (2n
// without q_prev), writes n.
template <typename T>
__device__ void lanczos_update(uint64_t n, const double *__restrict__ c, uint64_t j,
                               const T *__restrict__ q, const T *__restrict__ q_prev,
                               T *__restrict__ w, MxSsqPartial *__restrict__ partials) {
    const T a = make<T>(real_scalar(-c[2 * j]));
    MxSsqPartial s = ssq_zero();
    const uint64_t g = grid_threads();
    if (q_prev != nullptr) {
        const T b = make<T>(real_scalar(-c[2 * j - 1]));
        for (uint64_t i = global_thread(); i < n; i += g) {
            const T t = mad(b, q_prev[i], mad(a, q[i], w[i]));
            w[i] = t;
            ssq_add(s, t);
        }
    } else {
        for (uint64_t i = global_thread(); i < n; i += g) {
            const T t = mad(a, q[i], w[i]);
            w[i] = t;
            ssq_add(s, t);
        }
    }
    block_store_ssq(s, partials + blockIdx.x);
}

// w <- w / beta_{j+1} (beta_{j+1} = c[2j+1]); w <- 0 when beta_{j+1} == 0.
template <typename T>
__device__ void lanczos_scale(uint64_t n, const double *__restrict__ c, uint64_t j,
                              T *__restrict__ w) {
    const double b = c[2 * j + 1];
    const T s = make<T>(real_scalar(b == 0.0 ? 0.0 : 1.0 / b));
    for (uint64_t i = global_thread(); i < n; i += grid_threads()) w[i] = mul(s, w[i]);
}

// The Pythagorean Lanczos step. `sums` (5 doubles) holds d = <q_j, w> (re, im), ||w||^2 and
// ||q_j||^2 of w = A q_j - beta_j q_{j-1}, summed in the product's own pass (or by
// lanczos_sums), and a flag at sums[4]. Then alpha_j = Re d and
//   beta_{j+1}^2 = ||w - alpha_j q_j||^2 = ||w||^2 - 2 alpha_j Re d + alpha_j^2 ||q_j||^2,
// an identity for the vectors at hand (no orthogonality assumed). It is trusted when it
// keeps at least 1/16 of ||w||^2 (the rounding of the sums, ~eps ||w||^2, is then at most
// ~16 eps relative to beta^2) and everything is finite and ||w|| > 0; the update then writes
// q_{j+1} = (w - alpha_j q_j) / beta_{j+1} in one pass. Otherwise (cancellation, breakdown,
// overflow, NaN) the flag is set and the step finishes as before: the update writes
// w - alpha_j q_j with Blue's sums of squares, lanczos_beta_if takes the norm and
// lanczos_scale_if scales; both return at once when the flag is clear.
#define MX_LANCZOS_TRUST (1.0 / 16.0)

__device__ __forceinline__ bool lanczos_pythagoras(const double *sums, double &alpha,
                                                   double &beta) {
    alpha = sums[0];
    const double sw = sums[2], sq = sums[3];
    const double b2 = sw - 2.0 * alpha * sums[0] + alpha * alpha * sq;
    const bool ok = isfinite(alpha) && isfinite(sw) && isfinite(b2) && sw > 0.0 &&
                    b2 >= MX_LANCZOS_TRUST * sw;
    beta = ok ? sqrt(b2) : 0.0;
    return ok;
}

// w <- w - beta_j q_prev (beta_j = c[2j-1]; nothing when q_prev is null) and per-block rows
// (Re <q, w>, Im <q, w>, ||w||^2, ||q||^2) of the new w: the sums of an operator that does not
// fuse them into its product. Reads 3n (2n without q_prev), writes n (none without q_prev).
template <typename T>
__device__ void lanczos_sums(uint64_t n, const double *__restrict__ c, uint64_t j,
                             const T *__restrict__ q, const T *__restrict__ q_prev,
                             T *__restrict__ w, double *__restrict__ partials) {
    double v[4] = {0.0, 0.0, 0.0, 0.0};
    const uint64_t g = grid_threads();
    if (q_prev != nullptr) {
        const T b = make<T>(real_scalar(-c[2 * j - 1]));
        for (uint64_t i = global_thread(); i < n; i += g) {
            const T t = mad(b, q_prev[i], w[i]);
            w[i] = t;
            lanczos_sums_add(v, q[i], t);
        }
    } else {
        for (uint64_t i = global_thread(); i < n; i += g) lanczos_sums_add(v, q[i], w[i]);
    }
    block_sum<4>(v);
    if (threadIdx.x == 0) {
#pragma unroll
        for (int k = 0; k < 4; ++k) partials[4 * blockIdx.x + k] = v[k];
    }
}

// The update of the Pythagorean step (see above): c[2j] = alpha_j, and c[2j+1] = beta_{j+1}
// with w <- (w - alpha_j q) / beta_{j+1} when trusted (reads 2n, writes n); otherwise
// w <- w - alpha_j q with Blue's partial sums of squares and sums[4] = 1. Every block decides
// from the same sums, so all take the same branch. `defer` (the settle of the deferred form)
// leaves a trusted w as it is, for the reader of q_{j+1} to form (sums[4] = 0).
template <typename T>
__device__ void lanczos_pythag_update(uint64_t n, double *__restrict__ c, uint64_t j,
                                      double *__restrict__ sums, const T *__restrict__ q,
                                      T *__restrict__ w, MxSsqPartial *__restrict__ partials,
                                      uint32_t defer) {
    double alpha, beta;
    const bool ok = lanczos_pythagoras(sums, alpha, beta);
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        c[2 * j] = alpha;
        if (ok) c[2 * j + 1] = beta;
        sums[4] = ok ? 0.0 : 1.0;
    }
    const T a = make<T>(real_scalar(-alpha));
    const uint64_t g = grid_threads();
    if (ok) {
        if (defer) return;
        const T s = make<T>(real_scalar(1.0 / beta));
        for (uint64_t i = global_thread(); i < n; i += g) w[i] = lanczos_next(a, s, q[i], w[i]);
    } else {
        MxSsqPartial ss = ssq_zero();
        for (uint64_t i = global_thread(); i < n; i += g) {
            const T t = mad(a, q[i], w[i]);
            w[i] = t;
            ssq_add(ss, t);
        }
        block_store_ssq(ss, partials + blockIdx.x);
    }
}

// q_next <- q_{j+1} of a settled deferred step: formed from w and q_j when sums[4] = 0
// (alpha_j = c[2j], beta_{j+1} = c[2j+1]), else w itself (the settle took the exact norm).
// Reads 2n (n), writes n.
template <typename T>
__device__ void lanczos_form(uint64_t n, const double *__restrict__ c, uint64_t j,
                             const double *__restrict__ sums, const T *__restrict__ q,
                             const T *__restrict__ w, T *__restrict__ q_next) {
    const uint64_t g = grid_threads();
    if (sums[4] != 0.0) {
        for (uint64_t i = global_thread(); i < n; i += g) q_next[i] = w[i];
        return;
    }
    const T a = make<T>(real_scalar(-c[2 * j]));
    const T s = make<T>(real_scalar(1.0 / c[2 * j + 1]));
    for (uint64_t i = global_thread(); i < n; i += g) q_next[i] = lanczos_next(a, s, q[i], w[i]);
}

// w <- w / beta_{j+1} when the flag is set (beta_{j+1} = c[2j+1] from lanczos_beta_if).
template <typename T>
__device__ void lanczos_scale_if(uint64_t n, const double *__restrict__ c, uint64_t j,
                                 const double *__restrict__ sums, T *__restrict__ w) {
    if (sums[4] == 0.0) return;
    lanczos_scale<T>(n, c, j, w);
}

} // namespace mx

#define MX_REDUCE(name, T)                                                                       \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        dot_partial_##name(uint64_t n, const T *x, const T *y, double *partials) {               \
        mx::dot_partial<T>(n, x, y, partials);                                                   \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        nrm2_partial_##name(uint64_t n, const T *x, MxSsqPartial *partials) {                    \
        mx::nrm2_partial<T>(n, x, partials);                                                     \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        amax_partial_##name(uint64_t n, const T *x, double *partials) {                          \
        mx::amax_partial<T>(n, x, partials);                                                     \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        sum_partial_##name(uint64_t n, const T *x, double *partials) {                           \
        mx::sum_partial<T>(n, x, partials);                                                      \
    }

MX_FOR_EACH_SCALAR(MX_REDUCE)

#define MX_LANCZOS(name, T)                                                                      \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        lanczos_update_##name(uint64_t n, const double *c, uint64_t j, const T *q,               \
                              const T *q_prev, T *w, MxSsqPartial *partials) {                   \
        mx::lanczos_update<T>(n, c, j, q, q_prev, w, partials);                                  \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        lanczos_scale_##name(uint64_t n, const double *c, uint64_t j, T *w) {                    \
        mx::lanczos_scale<T>(n, c, j, w);                                                        \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        lanczos_sums_##name(uint64_t n, const double *c, uint64_t j, const T *q,                 \
                            const T *q_prev, T *w, double *partials) {                           \
        mx::lanczos_sums<T>(n, c, j, q, q_prev, w, partials);                                    \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        lanczos_pythag_update_##name(uint64_t n, double *c, uint64_t j, double *sums,            \
                                     const T *q, T *w, MxSsqPartial *partials, uint32_t defer) { \
        mx::lanczos_pythag_update<T>(n, c, j, sums, q, w, partials, defer);                      \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        lanczos_form_##name(uint64_t n, const double *c, uint64_t j, const double *sums,         \
                            const T *q, const T *w, T *q_next) {                                 \
        mx::lanczos_form<T>(n, c, j, sums, q, w, q_next);                                        \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)                              \
        lanczos_scale_if_##name(uint64_t n, const double *c, uint64_t j, const double *sums,     \
                                T *w) {                                                          \
        mx::lanczos_scale_if<T>(n, c, j, sums, w);                                               \
    }

MX_FOR_EACH_SCALAR(MX_LANCZOS)

namespace mx {
// c[2j+1] <- beta_{j+1} = sqrt of the column sums of nparts MxSsqPartial rows (the partials
// of a Lanczos update), overflow-safe. Called by one whole block.
__device__ __forceinline__ void lanczos_beta_into(uint32_t nparts,
                                                  const MxSsqPartial *__restrict__ partials,
                                                  double *__restrict__ c, uint64_t j) {
    double v[3] = {0.0, 0.0, 0.0};
    for (uint32_t i = threadIdx.x; i < nparts; i += blockDim.x) {
        v[0] += partials[i].small;
        v[1] += partials[i].medium;
        v[2] += partials[i].big;
    }
    block_sum<3>(v);
    if (threadIdx.x == 0) c[2 * j + 1] = ssq_norm(v[0], v[1], v[2]);
}
} // namespace mx

// beta_{j+1} of the classical step (lanczos_update's partials). One block of
// MX_REDUCE_THREADS threads.
extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)
    lanczos_beta(uint32_t nparts, const MxSsqPartial *__restrict__ partials,
                 double *__restrict__ c, uint64_t j) {
    mx::lanczos_beta_into(nparts, partials, c, j);
}

// lanczos_beta when the Pythagorean step's flag (sums[4]) is set; nothing otherwise.
extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)
    lanczos_beta_if(uint32_t nparts, const MxSsqPartial *__restrict__ partials,
                    double *__restrict__ c, uint64_t j, const double *__restrict__ sums) {
    if (sums[4] == 0.0) return;
    mx::lanczos_beta_into(nparts, partials, c, j);
}

// One level of a tree of column sums: block b sums rows [b * blockDim.x, (b + 1) *
// blockDim.x) of `in` (nrows rows of `width` <= 4 doubles) into row b of `out`, in a fixed
// order. A fused product with many blocks (their count keeps its memory busy) leaves one row
// per block; folding 256 rows into one first keeps the one-block finish short (16384 rows
// of four cost it 29 us on an H200; 64 rows a few).
extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)
    fold_rows(uint32_t nrows, uint32_t width, const double *__restrict__ in,
              double *__restrict__ out) {
    double v[4] = {0.0, 0.0, 0.0, 0.0};
    const uint32_t r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < nrows) {
#pragma unroll
        for (uint32_t k = 0; k < 4; ++k)
            if (k < width) v[k] = in[(uint64_t)width * r + k];
    }
    mx::block_sum<4>(v);
    if (threadIdx.x == 0) {
        for (uint32_t k = 0; k < width && k < 4; ++k) out[(uint64_t)width * blockIdx.x + k] = v[k];
    }
}

// Column sums of a row-major [nparts][width] array of partials into out[0..width).
// Launch with one block of MX_REDUCE_THREADS threads; width <= 4.
extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)
    finish_sum(uint32_t nparts, uint32_t width, const double *__restrict__ partials,
               double *__restrict__ out) {
    double v[4] = {0.0, 0.0, 0.0, 0.0};
    for (uint32_t i = threadIdx.x; i < nparts; i += blockDim.x) {
#pragma unroll
        for (uint32_t k = 0; k < 4; ++k)
            if (k < width) v[k] += partials[(uint64_t)i * width + k];
    }
    mx::block_sum<4>(v);
    if (threadIdx.x == 0) {
        for (uint32_t k = 0; k < width && k < 4; ++k) out[k] = v[k];
    }
}

// NaN-propagating maximum of nparts partials into out[0]; one block of MX_REDUCE_THREADS.
extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)
    finish_max(uint32_t nparts, const double *__restrict__ partials, double *__restrict__ out) {
    double m = 0.0;
    for (uint32_t i = threadIdx.x; i < nparts; i += blockDim.x) m = mx::max_nan(m, partials[i]);
    m = mx::block_max(m);
    if (threadIdx.x == 0) out[0] = m;
}
