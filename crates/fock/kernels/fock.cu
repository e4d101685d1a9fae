// The Bose–Hubbard Hamiltonian on the Fock basis, matrix-free, on the GPU.
//
//   y <- alpha * H * x + beta * y,
//   H = -sum_k J_k (b+_k b_{k+1} + h.c.) + sum_k V_k n_k + sum_k U_k/2 n_k (n_k - 1)
//
// One thread per row (grid-stride loop, 64-bit row indices). A row needs the occupations of
// its state, obtained either from the packed state table (4 or 8 bits per site, site 0 in the
// top bits of word 0) or by unranking the row index on the fly; the hops then find their
// column by the Delta table in O(1) (D(r, s) table in shared memory, Delta(r, s) = D(r, s-1)),
// (the stepped variant unranks the first of 4 consecutive rows per thread into a packed key
// in a register and steps to the others by the lexicographic successor),
// or, in the comparison variant, by binary search of the hopped state's key in the sorted
// packed table (Zhang & Dong). The couplings are evaluated by the host at the product's time
// and passed as small arrays (pre-scaled: mj = -J, hu = U/2), staged in shared memory.
//
// Shared memory layout (dynamic): D table ((N+1)*(M+1) u64), then real arrays
// mj[bonds], v[M], hu[M], sq[N+2] in the working precision.
//
// Kernel names: fock_<variant>_<scalar>, scalar in {c32, c64}.

#include <cstdint>

namespace fock {

template <typename R> struct Cplx;
template <> struct Cplx<float> { typedef float2 T; };
template <> struct Cplx<double> { typedef double2 T; };

__device__ __forceinline__ float2 mk(float a, float b) { return make_float2(a, b); }
__device__ __forceinline__ double2 mk(double a, double b) { return make_double2(a, b); }

template <typename C, typename R> __device__ __forceinline__ C axr(C acc, R a, C x) {
    acc.x = fma(a, x.x, acc.x);
    acc.y = fma(a, x.y, acc.y);
    return acc;
}

// alpha * s + beta * y, complex
template <typename C> __device__ __forceinline__ C cmadd(C alpha, C s, C beta, C y, bool read_y) {
    C r = mk(alpha.x * s.x - alpha.y * s.y, alpha.x * s.y + alpha.y * s.x);
    if (read_y) {
        r.x = fma(beta.x, y.x, fma(-beta.y, y.y, r.x));
        r.y = fma(beta.x, y.y, fma(beta.y, y.x, r.y));
    }
    return r;
}

constexpr int MAX_SITES = 64;

struct Shared {
    const unsigned long long* table;  // D(r, s) at r * (m + 1) + s
    unsigned m;
};

__device__ __forceinline__ unsigned long long dtab(const Shared& s, int r, int col) {
    return r < 0 ? 0ull : s.table[(unsigned)r * (s.m + 1) + col];
}

// Occupations of row i by unranking: site k holds x particles where the block sizes
// D(rem - x, M - k - 1) of smaller occupations sum to at most the remaining index.
__device__ __forceinline__ void unrank(const Shared& s, unsigned n, unsigned long long i,
                                       unsigned char* occ) {
    int rem = (int)n;
    const unsigned m = s.m;
    for (unsigned k = 0; k + 1 < m; ++k) {
        int x = 0;
        for (;;) {
            unsigned long long block = dtab(s, rem - x, m - k - 1);
            if (i < block) break;
            i -= block;
            ++x;
        }
        occ[k] = (unsigned char)x;
        rem -= x;
    }
    occ[m - 1] = (unsigned char)rem;
}

enum Variant { DELTA_PACKED = 0, DELTA_UNRANK = 1, SEARCH_PACKED = 2, DELTA_STEPPED = 3 };

// The occupations of one row, site by site in increasing order, from the packed table or by
// unranking, held in registers (no per-thread array).
template <int VARIANT> struct OccStream {
    const unsigned long long* keys;
    unsigned long long row, rest, word;
    unsigned wps, bits, per;
    int rem;

    __device__ __forceinline__ OccStream(const unsigned long long* k, unsigned w, unsigned b,
                                         unsigned long long i, unsigned n)
        : keys(k), row(i), rest(i), word(0), wps(w), bits(b), per(b ? 64 / b : 0), rem((int)n) {}

    __device__ __forceinline__ unsigned next(const Shared& s, unsigned k) {
        if (VARIANT == DELTA_UNRANK) {
            if (k + 1 == s.m) return (unsigned)rem;
            int x = 0;
            for (;;) {
                const unsigned long long block = dtab(s, rem - x, s.m - k - 1);
                if (rest < block) break;
                rest -= block;
                ++x;
            }
            rem -= x;
            return (unsigned)x;
        } else {
            const unsigned j = k % per;
            if (VARIANT != DELTA_STEPPED && j == 0) word = __ldg(keys + row * wps + k / per);
            return (unsigned)((word >> (64 - bits * (j + 1))) & ((1ull << bits) - 1ull));
        }
    }
};

// Index of a key (one word per state) in the sorted packed table.
__device__ __forceinline__ unsigned long long search(const unsigned long long* __restrict__ keys,
                                                     unsigned long long dim,
                                                     unsigned long long key) {
    unsigned long long lo = 0, hi = dim;
    while (lo < hi) {
        const unsigned long long mid = lo + ((hi - lo) >> 1);
        if (__ldg(keys + mid) < key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// s = H x at row i (before alpha/beta). Bond k's hops read x[i - Delta(r, M-k)] (a particle
// moves right) and x[i + Delta(r-1, M-k)] (moves left), r = particles right of site k; the
// periodic bond re-ranks the two hopped states alongside the walk (their rank terms differ
// from the row's by R_k -/+ 1 on sites 1..M-1). The search variant finds every hopped key by
// binary search instead (one word per state).
template <int VARIANT, typename R>
__device__ __forceinline__ typename Cplx<R>::T row_product(
    const Shared& s, unsigned n, unsigned periodic, const R* mj, const R* v, const R* hu,
    const R* sq, const unsigned long long* __restrict__ keys, unsigned wps, unsigned bits,
    unsigned long long dim, const typename Cplx<R>::T* __restrict__ x, unsigned long long i,
    unsigned long long key_reg = 0) {
    typedef typename Cplx<R>::T C;
    const unsigned m = s.m;
    OccStream<VARIANT> occ(keys, wps, bits, i, n);
    if (VARIANT == DELTA_STEPPED) occ.word = key_reg;
    unsigned nk = occ.next(s, 0);
    const unsigned n0 = nk;
    unsigned long long key = 0;
    if (VARIANT == SEARCH_PACKED) key = __ldg(keys + i);
    C acc = mk(R(0), R(0));
    R diag = R(0);
    int r = (int)n;
    unsigned long long rank_lf = 0, rank_fl = 0;
    for (unsigned k = 0; k < m; ++k) {
        const R nr = R(nk);
        diag += v[k] * nr + hu[k] * nr * (nr - R(1));
        const int rk = r;
        r -= (int)nk;
        if (k + 1 < m) {
            if (periodic && VARIANT != SEARCH_PACKED) {
                const int a = k == 0 ? (int)n : rk - 1, b = r - 1;
                rank_lf += dtab(s, a, m - k) - dtab(s, b, m - k);
                if (n0 != 0) {
                    const int c = k == 0 ? (int)n : rk + 1, d = r + 1;
                    rank_fl += dtab(s, c, m - k) - dtab(s, d, m - k);
                }
            }
            const unsigned nn = occ.next(s, k + 1);
            if (nk != 0) {
                unsigned long long j;
                if (VARIANT == SEARCH_PACKED)
                    j = search(keys, dim,
                               key - (1ull << (64 - bits * (k + 1))) + (1ull << (64 - bits * (k + 2))));
                else
                    j = i - dtab(s, r, m - k - 1);
                acc = axr(acc, mj[k] * (sq[nn + 1] * sq[nk]), __ldg(&x[j]));
            }
            if (nn != 0) {
                unsigned long long j;
                if (VARIANT == SEARCH_PACKED)
                    j = search(keys, dim,
                               key + (1ull << (64 - bits * (k + 1))) - (1ull << (64 - bits * (k + 2))));
                else
                    j = i + dtab(s, r - 1, m - k - 1);
                acc = axr(acc, mj[k] * (sq[nk + 1] * sq[nn]), __ldg(&x[j]));
            }
            nk = nn;
        }
    }
    if (periodic) {
        const unsigned nl = nk;  // occupation of the last site
        if (nl != 0) {           // last -> first
            const unsigned long long j =
                VARIANT == SEARCH_PACKED
                    ? search(keys, dim, key + (1ull << (64 - bits)) - (1ull << (64 - bits * m)))
                    : rank_lf;
            acc = axr(acc, mj[m - 1] * (sq[n0 + 1] * sq[nl]), __ldg(&x[j]));
        }
        if (n0 != 0) {  // first -> last
            const unsigned long long j =
                VARIANT == SEARCH_PACKED
                    ? search(keys, dim, key - (1ull << (64 - bits)) + (1ull << (64 - bits * m)))
                    : rank_fl;
            acc = axr(acc, mj[m - 1] * (sq[nl + 1] * sq[n0]), __ldg(&x[j]));
        }
    }
    return axr(acc, diag, __ldg(&x[i]));
}

// The packed key (one word, site 0 in the top bits) of row i, by streaming unranking.
__device__ __forceinline__ unsigned long long unrank_key(const Shared& s, unsigned n,
                                                         unsigned bits, unsigned long long i) {
    OccStream<DELTA_UNRANK> occ(nullptr, 0, 0, i, n);
    unsigned long long key = 0;
    for (unsigned k = 0; k < s.m; ++k)
        key |= (unsigned long long)occ.next(s, k) << (64 - bits * (k + 1));
    return key;
}

// The key of the next state in lexicographic order: with p the last occupied site, one
// particle moves from p to p-1 and the rest of p's particles go to the last site. The
// caller never asks past the last state.
__device__ __forceinline__ unsigned long long successor(unsigned long long key, unsigned m,
                                                        unsigned bits) {
    const unsigned long long low = key >> (64 - bits * m);
    const unsigned p = m - 1 - (unsigned)(__ffsll((long long)low) - 1) / bits;
    const unsigned long long right = (key >> (64 - bits * (p + 1))) & ((1ull << bits) - 1ull);
    key -= right << (64 - bits * (p + 1));
    key += 1ull << (64 - bits * p);
    key += (right - 1ull) << (64 - bits * m);
    return key;
}

// Rows per thread of the stepped variant: the first is unranked, the rest follow by successor.
constexpr unsigned STEP_ROWS = 4;

// Stages the D table and the couplings in shared memory; returns pointers into it.
template <typename R>
__device__ __forceinline__ void stage(unsigned n, unsigned m, unsigned bonds,
                                      const unsigned long long* __restrict__ table,
                                      const R* __restrict__ coeffs, Shared& s, const R*& mj,
                                      const R*& v, const R*& hu, const R*& sq) {
    extern __shared__ unsigned long long smem[];
    const unsigned ntab = (n + 1) * (m + 1);
    const unsigned ncoef = bonds + 2 * m + n + 2;
    R* rs = reinterpret_cast<R*>(smem + ntab);
    for (unsigned k = threadIdx.x; k < ntab; k += blockDim.x) smem[k] = table[k];
    for (unsigned k = threadIdx.x; k < ncoef; k += blockDim.x) rs[k] = coeffs[k];
    __syncthreads();
    s.table = smem;
    s.m = m;
    mj = rs;
    v = rs + bonds;
    hu = v + m;
    sq = hu + m;
}

// y <- alpha * H x + beta * y; `coeffs` = [-J (bonds), V (M), U/2 (M), sqrt(0..N+1)].
template <int VARIANT, typename R>
__device__ void hx(unsigned long long dim, unsigned n, unsigned m, unsigned periodic,
                   const unsigned long long* __restrict__ table, const R* __restrict__ coeffs,
                   const unsigned long long* __restrict__ keys, unsigned wps, unsigned bits,
                   typename Cplx<R>::T alpha, const typename Cplx<R>::T* __restrict__ x,
                   typename Cplx<R>::T beta, typename Cplx<R>::T* __restrict__ y) {
    Shared s;
    const R *mj, *v, *hu, *sq;
    const unsigned bonds = periodic ? m : m - 1;
    stage<R>(n, m, bonds, table, coeffs, s, mj, v, hu, sq);
    const bool read_y = beta.x != R(0) || beta.y != R(0);
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    if constexpr (VARIANT == DELTA_STEPPED) {
        for (unsigned long long g = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
             g * STEP_ROWS < dim; g += stride) {
            const unsigned long long i0 = g * STEP_ROWS;
            unsigned long long key = unrank_key(s, n, bits, i0);
            for (unsigned q = 0; q < STEP_ROWS && i0 + q < dim; ++q) {
                if (q > 0) key = successor(key, m, bits);
                const unsigned long long i = i0 + q;
                const typename Cplx<R>::T hxi = row_product<VARIANT, R>(
                    s, n, periodic, mj, v, hu, sq, keys, wps, bits, dim, x, i, key);
                y[i] = cmadd(alpha, hxi, beta, read_y ? y[i] : hxi, read_y);
            }
        }
    } else {
        for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
             i < dim; i += stride) {
            const typename Cplx<R>::T hxi = row_product<VARIANT, R>(s, n, periodic, mj, v, hu, sq,
                                                                    keys, wps, bits, dim, x, i);
            y[i] = cmadd(alpha, hxi, beta, read_y ? y[i] : hxi, read_y);
        }
    }
}

// One fused Runge-Kutta stage (the seed's listing A.5): with s = gamma * H x,
//   acc  <- acc + w * s          (skipped when w = 0)
//   next <- base + c * s         (skipped when next is null)
// so a stage of RK4 is one pass: the product, the weighted sum and the next stage input.
template <typename R>
__device__ void rk_stage(unsigned long long dim, unsigned n, unsigned m, unsigned periodic,
                         const unsigned long long* __restrict__ table,
                         const R* __restrict__ coeffs, typename Cplx<R>::T gamma,
                         const typename Cplx<R>::T* __restrict__ x, R w,
                         typename Cplx<R>::T* __restrict__ acc, R c,
                         const typename Cplx<R>::T* __restrict__ base,
                         typename Cplx<R>::T* __restrict__ next) {
    typedef typename Cplx<R>::T C;
    Shared s;
    const R *mj, *v, *hu, *sq;
    const unsigned bonds = periodic ? m : m - 1;
    stage<R>(n, m, bonds, table, coeffs, s, mj, v, hu, sq);
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    const C zero = mk(R(0), R(0));
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < dim;
         i += stride) {
        const C hxi = row_product<DELTA_UNRANK, R>(s, n, periodic, mj, v, hu, sq, nullptr, 0, 0,
                                                   dim, x, i);
        const C si = cmadd(gamma, hxi, zero, zero, false);
        if (w != R(0)) acc[i] = axr(acc[i], w, si);
        if (next != nullptr) next[i] = axr(base[i], c, si);
    }
}

// Site densities: partial[b * m + k] = sum over the rows of block b of |psi_i|^2 n_k(i),
// in double precision; the host (or a second pass) sums the gridDim.x partials.
template <typename R>
__device__ void densities(unsigned long long dim, unsigned n, unsigned m,
                          const unsigned long long* __restrict__ table,
                          const typename Cplx<R>::T* __restrict__ psi, double* __restrict__ partial) {
    extern __shared__ unsigned long long smem[];
    const unsigned ntab = (n + 1) * (m + 1);
    double* sums = reinterpret_cast<double*>(smem + ntab);
    for (unsigned k = threadIdx.x; k < ntab; k += blockDim.x) smem[k] = table[k];
    for (unsigned k = threadIdx.x; k < m; k += blockDim.x) sums[k] = 0.0;
    __syncthreads();
    Shared s;
    s.table = smem;
    s.m = m;
    double local[MAX_SITES];
    for (unsigned k = 0; k < m; ++k) local[k] = 0.0;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    unsigned char occ[MAX_SITES];
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < dim;
         i += stride) {
        const typename Cplx<R>::T z = psi[i];
        const double p = (double)z.x * (double)z.x + (double)z.y * (double)z.y;
        unrank(s, n, i, occ);
        for (unsigned k = 0; k < m; ++k) local[k] += p * (double)occ[k];
    }
    for (unsigned k = 0; k < m; ++k) {
        double val = local[k];
        for (int off = 16; off > 0; off >>= 1) val += __shfl_down_sync(0xffffffffu, val, off);
        if ((threadIdx.x & 31) == 0) atomicAdd(&sums[k], val);
    }
    __syncthreads();
    for (unsigned k = threadIdx.x; k < m; k += blockDim.x) partial[(unsigned long long)blockIdx.x * m + k] = sums[k];
}

}  // namespace fock

#define FOCK_HX(NAME, VARIANT, R, C)                                                            \
    extern "C" __global__ void NAME(unsigned long long dim, unsigned n, unsigned m,             \
                                    unsigned periodic, const unsigned long long* table,         \
                                    const R* coeffs, const unsigned long long* keys,            \
                                    unsigned wps, unsigned bits, C alpha, const C* x, C beta,   \
                                    C* y) {                                                     \
        fock::hx<VARIANT, R>(dim, n, m, periodic, table, coeffs, keys, wps, bits, alpha, x,     \
                             beta, y);                                                          \
    }

FOCK_HX(fock_hx_delta_packed_c64, fock::DELTA_PACKED, double, double2)
FOCK_HX(fock_hx_delta_packed_c32, fock::DELTA_PACKED, float, float2)
FOCK_HX(fock_hx_delta_unrank_c64, fock::DELTA_UNRANK, double, double2)
FOCK_HX(fock_hx_delta_unrank_c32, fock::DELTA_UNRANK, float, float2)
FOCK_HX(fock_hx_search_packed_c64, fock::SEARCH_PACKED, double, double2)
FOCK_HX(fock_hx_search_packed_c32, fock::SEARCH_PACKED, float, float2)
FOCK_HX(fock_hx_delta_stepped_c64, fock::DELTA_STEPPED, double, double2)
FOCK_HX(fock_hx_delta_stepped_c32, fock::DELTA_STEPPED, float, float2)

#define FOCK_RK(NAME, R, C)                                                                     \
    extern "C" __global__ void NAME(unsigned long long dim, unsigned n, unsigned m,             \
                                    unsigned periodic, const unsigned long long* table,         \
                                    const R* coeffs, C gamma, const C* x, R w, C* acc, R c,     \
                                    const C* base, C* next) {                                   \
        fock::rk_stage<R>(dim, n, m, periodic, table, coeffs, gamma, x, w, acc, c, base, next); \
    }

FOCK_RK(fock_rk_stage_c64, double, double2)
FOCK_RK(fock_rk_stage_c32, float, float2)

#define FOCK_DENS(NAME, R, C)                                                                   \
    extern "C" __global__ void NAME(unsigned long long dim, unsigned n, unsigned m,             \
                                    const unsigned long long* table, const C* psi,              \
                                    double* partial) {                                          \
        fock::densities<R>(dim, n, m, table, psi, partial);                                     \
    }

FOCK_DENS(fock_densities_c64, double, double2)
FOCK_DENS(fock_densities_c32, float, float2)
