// Spin-1/2 chains in one U(1) sector (K up spins on L sites, hard-core bosons), on the GPU.
//
//   y <- alpha * H * x + beta * y,
//   H = sum_b [ Jxy_b/2 (S+_i S-_j + h.c.) + Jz_b S^z_i S^z_j ] + sum_k h_k S^z_k
//
// A state is an L-bit word (bit k: site k up); states are numbered in ascending numeric order,
// ranked by the combinatorial number system rank(s) = sum_i C(c_i, i) (c_1 < ... < c_K the up
// sites). A flip-flop on bond (j, j+1) shifts the index by +C(j, p) (the up at j moves right)
// or -C(j, p) (the up at j+1 moves left), p the ups below j; the ring's bond (L-1, 0) re-ranks.
// The derivation is in crates/fock/src/spin/basis.rs.
//
// One thread per row (grid-stride, 64-bit indices); each row unranks its word (O(L) shared
// look-ups). Shared memory (dynamic): the binomial table C(n, k), (L+1) rows of K+2 columns
// (u64), then the coefficients in the working precision: jxy/2 (bonds), jz/4 (bonds), h/2 (L).
//
// Also here: the energy <x|H|x> and norm^2 without a second vector (spin_expect), the moments
// sum |x_s|^2 s_k and sum |x_s|^2 s_0 s_k (spin_moments), product states (spin_product),
// the seeded random state (spin_random) and the overlap with a product state
// (spin_overlap_product). Kernel names end in the scalar: f32, f64, c32, c64.

#include <cstdint>

namespace spin {

typedef unsigned long long u64;

// Scalar operations on real (float, double) and complex (float2, double2) vectors.
template <typename V> struct Ops;
template <> struct Ops<float> {
    typedef float R;
    __device__ static float zero() { return 0.0f; }
    __device__ static float axr(float acc, float r, float x) { return fmaf(r, x, acc); }
    __device__ static float mul(float a, float b) { return a * b; }
    __device__ static float add(float a, float b) { return a + b; }
    __device__ static double abs2(float a) { return (double)a * (double)a; }
    __device__ static double dot_re(float a, float b) { return (double)a * (double)b; }
    __device__ static double dot_im(float, float) { return 0.0; }
    __device__ static float make(double re, double) { return (float)re; }
};
template <> struct Ops<double> {
    typedef double R;
    __device__ static double zero() { return 0.0; }
    __device__ static double axr(double acc, double r, double x) { return fma(r, x, acc); }
    __device__ static double mul(double a, double b) { return a * b; }
    __device__ static double add(double a, double b) { return a + b; }
    __device__ static double abs2(double a) { return a * a; }
    __device__ static double dot_re(double a, double b) { return a * b; }
    __device__ static double dot_im(double, double) { return 0.0; }
    __device__ static double make(double re, double) { return re; }
};
template <typename C, typename RR> struct CplxOps {
    typedef RR R;
    __device__ static C zero() { C z; z.x = 0; z.y = 0; return z; }
    __device__ static C axr(C acc, RR r, C x) {
        acc.x = fma(r, x.x, acc.x);
        acc.y = fma(r, x.y, acc.y);
        return acc;
    }
    __device__ static C mul(C a, C b) {
        C z;
        z.x = a.x * b.x - a.y * b.y;
        z.y = a.x * b.y + a.y * b.x;
        return z;
    }
    __device__ static C add(C a, C b) { a.x += b.x; a.y += b.y; return a; }
    __device__ static double abs2(C a) { return (double)a.x * (double)a.x + (double)a.y * (double)a.y; }
    // Re and Im of conj(a) * b
    __device__ static double dot_re(C a, C b) { return (double)a.x * (double)b.x + (double)a.y * (double)b.y; }
    __device__ static double dot_im(C a, C b) { return (double)a.x * (double)b.y - (double)a.y * (double)b.x; }
    __device__ static C make(double re, double im) { C z; z.x = (RR)re; z.y = (RR)im; return z; }
};
template <> struct Ops<float2> : CplxOps<float2, float> {};
template <> struct Ops<double2> : CplxOps<double2, double> {};

template <typename R> struct Chain {
    const u64* binom;  // C(n, k) at n * cols + k
    unsigned cols;     // K + 2
    unsigned sites, ups, nb;
    bool periodic;
    const R* jxy2;
    const R* jz4;
    const R* h2;
    __device__ u64 c(unsigned n, unsigned k) const { return binom[n * cols + k]; }
};

// Stages the binomial table (and, when coeffs != null, the coefficients) in shared memory.
template <typename R>
__device__ Chain<R> stage(unsigned sites, unsigned ups, unsigned periodic, const u64* binom,
                          const R* coeffs) {
    extern __shared__ u64 smem[];
    Chain<R> ch;
    ch.cols = ups + 2;
    ch.sites = sites;
    ch.ups = ups;
    ch.periodic = periodic != 0;
    ch.nb = periodic ? sites : (sites > 0 ? sites - 1 : 0);
    const unsigned ntab = (sites + 1) * ch.cols;
    for (unsigned k = threadIdx.x; k < ntab; k += blockDim.x) smem[k] = binom[k];
    R* rc = reinterpret_cast<R*>(smem + ntab);
    const unsigned ncoef = 2 * ch.nb + sites;
    if (coeffs)
        for (unsigned k = threadIdx.x; k < ncoef; k += blockDim.x) rc[k] = coeffs[k];
    __syncthreads();
    ch.binom = smem;
    ch.jxy2 = rc;
    ch.jz4 = rc + ch.nb;
    ch.h2 = rc + 2 * ch.nb;
    return ch;
}

template <typename R> __device__ u64 unrank(const Chain<R>& ch, u64 r) {
    u64 s = 0;
    int c = (int)ch.sites;
    for (unsigned i = ch.ups; i >= 1; --i) {
        --c;
        while (ch.c((unsigned)c, i) > r) --c;
        r -= ch.c((unsigned)c, i);
        s |= 1ull << c;
    }
    return s;
}

template <typename R> __device__ u64 rank(const Chain<R>& ch, u64 s) {
    u64 idx = 0;
    unsigned i = 1;
    while (s) {
        idx += ch.c((unsigned)__ffsll((long long)s) - 1, i);
        s &= s - 1;
        ++i;
    }
    return idx;
}

// Per-thread constants of a row: the Ising sum of the aligned open chain, sum_b jz/4 over
// b < L - 1, and -sum_k h_k/2 (every spin down), formed once per thread.
template <typename R> struct RowConst {
    R jz_open;
    R h_down;
    bool field;
    u64 open_mask;
};

template <typename R> __device__ RowConst<R> row_const(const Chain<R>& ch) {
    RowConst<R> rc;
    rc.jz_open = 0;
    for (unsigned j = 0; j + 1 < ch.sites; ++j) rc.jz_open += ch.jz4[j];
    rc.h_down = 0;
    rc.field = false;
    for (unsigned k = 0; k < ch.sites; ++k) {
        rc.h_down -= ch.h2[k];
        rc.field = rc.field || ch.h2[k] != (R)0;
    }
    rc.open_mask = ch.sites >= 2 ? (1ull << (ch.sites - 1)) - 1ull : 0ull;
    return rc;
}

// (H x)_i for row i with word s. Bit j of `flips` marks bond (j, j+1) with opposite spins:
// -jz/4 instead of +jz/4 and one flip-flop; only those bonds and the up sites are visited
// (the host product walks the same bonds in the same order).
template <typename V, typename R>
__device__ V hrow(const Chain<R>& ch, const RowConst<R>& rc, u64 i, u64 s,
                  const V* __restrict__ x) {
    typedef Ops<V> O;
    V acc = O::zero();
    R diag = rc.jz_open;
    u64 flips = (s ^ (s >> 1)) & rc.open_mask;
    while (flips) {
        const unsigned j = (unsigned)__ffsll((long long)flips) - 1u;
        flips &= flips - 1ull;
        diag -= (R)2 * ch.jz4[j];
        const u64 d = ch.c(j, (unsigned)__popcll(s & ((1ull << j) - 1ull)));
        acc = O::axr(acc, ch.jxy2[j], x[((s >> j) & 1ull) ? i + d : i - d]);
    }
    if (ch.periodic) {
        const unsigned last = ch.sites - 1;
        if (((s ^ (s >> last)) & 1ull) == 0ull) {
            diag += ch.jz4[last];
        } else {
            diag -= ch.jz4[last];
            acc = O::axr(acc, ch.jxy2[last], x[rank(ch, s ^ (1ull | (1ull << last)))]);
        }
    }
    if (rc.field) {
        diag += rc.h_down;
        for (u64 u = s; u; u &= u - 1ull) diag += (R)2 * ch.h2[__ffsll((long long)u) - 1];
    }
    return O::axr(acc, diag, x[i]);
}

template <typename V>
__device__ void hx(u64 dim, unsigned sites, unsigned ups, unsigned periodic, const u64* binom,
                   const typename Ops<V>::R* coeffs, V alpha, const V* __restrict__ x, V beta,
                   V* __restrict__ y, unsigned read_y) {
    typedef Ops<V> O;
    const Chain<typename O::R> ch = stage(sites, ups, periodic, binom, coeffs);
    const RowConst<typename O::R> rc = row_const(ch);
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < dim; i += stride) {
        const V h = hrow(ch, rc, i, unrank(ch, i), x);
        V r = O::mul(alpha, h);
        if (read_y) r = O::add(r, O::mul(beta, y[i]));
        y[i] = r;
    }
}

// Sums `count` per-thread doubles over the block into partial[blockIdx.x * count + k].
// `sums` is shared scratch of `count` doubles, zeroed by the caller before a __syncthreads.
__device__ void block_sum(double* local, unsigned count, double* sums, double* partial) {
    for (unsigned k = 0; k < count; ++k) {
        double v = local[k];
        for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
        if ((threadIdx.x & 31) == 0) atomicAdd(&sums[k], v);
    }
    __syncthreads();
    for (unsigned k = threadIdx.x; k < count; k += blockDim.x)
        partial[(u64)blockIdx.x * count + k] = sums[k];
}

// partial[2b] = sum Re conj(x_i) (Hx)_i, partial[2b + 1] = sum |x_i|^2 over block b's rows.
template <typename V>
__device__ void expect(u64 dim, unsigned sites, unsigned ups, unsigned periodic,
                       const u64* binom, const typename Ops<V>::R* coeffs,
                       const V* __restrict__ x, double* partial) {
    typedef Ops<V> O;
    const Chain<typename O::R> ch = stage(sites, ups, periodic, binom, coeffs);
    const RowConst<typename O::R> rc = row_const(ch);
    __shared__ double sums[2];
    if (threadIdx.x < 2) sums[threadIdx.x] = 0.0;
    __syncthreads();
    double local[2] = {0.0, 0.0};
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < dim; i += stride) {
        const V xi = x[i];
        local[0] += O::dot_re(xi, hrow(ch, rc, i, unrank(ch, i), x));
        local[1] += O::abs2(xi);
    }
    block_sum(local, 2, sums, partial);
}

// Per block: sum |x_s|^2 s_k (k < L), sum |x_s|^2 s_0 s_k (k < L), sum |x_s|^2: 2L + 1 values.
template <typename V>
__device__ void moments(u64 dim, unsigned sites, unsigned ups, const u64* binom,
                        const V* __restrict__ x, double* partial) {
    typedef Ops<V> O;
    const Chain<double> ch = stage<double>(sites, ups, 0, binom, nullptr);
    __shared__ double sums[2 * 64 + 1];
    const unsigned count = 2 * sites + 1;
    for (unsigned k = threadIdx.x; k < count; k += blockDim.x) sums[k] = 0.0;
    __syncthreads();
    double local[2 * 64 + 1];
    for (unsigned k = 0; k < count; ++k) local[k] = 0.0;
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < dim; i += stride) {
        const double p = O::abs2(x[i]);
        const u64 s = unrank(ch, i);
        const double p0 = (s & 1ull) ? p : 0.0;
        for (unsigned k = 0; k < sites; ++k) {
            if ((s >> k) & 1ull) {
                local[k] += p;
                local[sites + k] += p0;
            }
        }
        local[2 * sites] += p;
    }
    block_sum(local, count, sums, partial);
}

// psi_s = prod_k amp[k][s_k] (amp: 2 complex per site, (re, im) pairs: 4L doubles).
template <typename V> __device__ V product_amp(const double* amp, unsigned sites, u64 s) {
    double re = 1.0, im = 0.0;
    for (unsigned k = 0; k < sites; ++k) {
        const unsigned b = (unsigned)(s >> k) & 1u;
        const double ar = amp[4 * k + 2 * b], ai = amp[4 * k + 2 * b + 1];
        const double nr = re * ar - im * ai;
        im = re * ai + im * ar;
        re = nr;
    }
    return Ops<V>::make(re, im);
}

template <typename V>
__device__ void product(u64 dim, unsigned sites, unsigned ups, const u64* binom,
                        const double* amp, V* psi) {
    const Chain<double> ch = stage<double>(sites, ups, 0, binom, nullptr);
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < dim; i += stride)
        psi[i] = product_amp<V>(amp, sites, unrank(ch, i));
}

// partial[2b], partial[2b+1] = Re, Im of sum conj(phi_s) x_s with phi the product state.
template <typename V>
__device__ void overlap_product(u64 dim, unsigned sites, unsigned ups, const u64* binom,
                                const double* amp, const V* __restrict__ x, double* partial) {
    typedef Ops<V> O;
    const Chain<double> ch = stage<double>(sites, ups, 0, binom, nullptr);
    __shared__ double sums[2];
    if (threadIdx.x < 2) sums[threadIdx.x] = 0.0;
    __syncthreads();
    double local[2] = {0.0, 0.0};
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < dim; i += stride) {
        const double2 phi = product_amp<double2>(amp, sites, unrank(ch, i));
        const double2 xi = Ops<double2>::make(O::dot_re(O::make(1.0, 0.0), x[i]),
                                              O::dot_im(O::make(1.0, 0.0), x[i]));
        local[0] += Ops<double2>::dot_re(phi, xi);
        local[1] += Ops<double2>::dot_im(phi, xi);
    }
    block_sum(local, 2, sums, partial);
}

__device__ __forceinline__ double unit(u64 seed, u64 n) {
    u64 z = seed + (n + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z = z ^ (z >> 31);
    return 2.0 * ((double)(z >> 11) * (1.0 / 9007199254740992.0)) - 1.0;
}

template <typename V> __device__ void random(u64 dim, u64 seed, unsigned complex_, V* psi) {
    const u64 stride = (u64)gridDim.x * blockDim.x;
    for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < dim; i += stride)
        psi[i] = Ops<V>::make(unit(seed, 2 * i), complex_ ? unit(seed, 2 * i + 1) : 0.0);
}

}  // namespace spin

#define SPIN_ALL(V, R, S)                                                                        \
    extern "C" __global__ void spin_hx_##S(unsigned long long dim, unsigned sites, unsigned ups, \
                                           unsigned periodic, const unsigned long long* binom,   \
                                           const R* coeffs, V alpha, const V* x, V beta, V* y,    \
                                           unsigned read_y) {                                     \
        spin::hx<V>(dim, sites, ups, periodic, binom, coeffs, alpha, x, beta, y, read_y);        \
    }                                                                                            \
    extern "C" __global__ void spin_expect_##S(unsigned long long dim, unsigned sites,           \
                                               unsigned ups, unsigned periodic,                  \
                                               const unsigned long long* binom, const R* coeffs, \
                                               const V* x, double* partial) {                    \
        spin::expect<V>(dim, sites, ups, periodic, binom, coeffs, x, partial);                   \
    }                                                                                            \
    extern "C" __global__ void spin_moments_##S(unsigned long long dim, unsigned sites,          \
                                                unsigned ups, const unsigned long long* binom,   \
                                                const V* x, double* partial) {                   \
        spin::moments<V>(dim, sites, ups, binom, x, partial);                                    \
    }                                                                                            \
    extern "C" __global__ void spin_product_##S(unsigned long long dim, unsigned sites,          \
                                                unsigned ups, const unsigned long long* binom,   \
                                                const double* amp, V* psi) {                     \
        spin::product<V>(dim, sites, ups, binom, amp, psi);                                      \
    }                                                                                            \
    extern "C" __global__ void spin_overlap_product_##S(                                         \
        unsigned long long dim, unsigned sites, unsigned ups, const unsigned long long* binom,   \
        const double* amp, const V* x, double* partial) {                                        \
        spin::overlap_product<V>(dim, sites, ups, binom, amp, x, partial);                       \
    }                                                                                            \
    extern "C" __global__ void spin_random_##S(unsigned long long dim, unsigned long long seed,  \
                                               unsigned complex_, V* psi) {                      \
        spin::random<V>(dim, seed, complex_, psi);                                               \
    }

SPIN_ALL(float, float, f32)
SPIN_ALL(double, double, f64)
SPIN_ALL(float2, float, c32)
SPIN_ALL(double2, double, c64)
