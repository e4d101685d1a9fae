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
// packed table (Zhang & Dong). The fixed-M variant (hx_fixed) is the packed-Delta product with
// the site count known at compile time: straight-line rows with all gathers in flight at once. The couplings are evaluated by the host at the product's time
// and passed as small arrays (pre-scaled: mj = -J, hu = U/2), staged in shared memory.
//
// Shared memory layout (dynamic): D table ((N+1)*(M+1) u64), then real arrays
// mj[bonds], v[M], hu[M], sq[N+2] in the working precision.
//
// Kernel names: fock_<variant>_<scalar>, scalar in {c32, c64}; fock_hx_fixed<M>_<u32|u64>_<scalar>.

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

// ---------------------------------------------------------------------------------------------
// Fixed-M variant: the site count is a template parameter, so every loop over sites and bonds
// is unrolled and each row is straight-line code. The generic loop above issues one gather of
// x per iteration and waits for it before the next (a runtime trip count and a data-dependent
// branch around every hop): per row about 2(M-1) dependent memory latencies. Here the row's
// hop columns are all computed first (hops that do not exist are clamped to the row itself,
// whose x is read anyway, and contribute nothing), then all 2(M-1) + 1 gathers are in flight
// together. The index type I is u32 when D + grid stride < 2^32 (32-bit subtraction, one
// widening multiply per address, a u32 table in shared memory) or u64.
//
// Shared memory layout (dynamic, 8-byte aligned blocks):
//   mj[M]        -J per bond (the ring bond last; 0 when open),
//   sq[N+2]      sqrt(0..N+1),
//   ed[M*(N+1)]  V_k n + U_k/2 n(n-1), the diagonal of site k at occupation n,
//   dt[(M+1)*(N+3)]  (type I) column s holds D(r, s) for r = -1..N+1 at dt[s*(N+3) + r + 1]
//                with D(-1, s) = D(N+1, s) = 0, so that every look-up of a hop that does not
//                exist stays in range without a branch.
// The diagonal sums ed over the sites in the order and with the arithmetic of row_product,
// and the hops are accumulated in its order, so both variants give the same bits.
template <typename R>
__device__ __forceinline__ unsigned fixed_real_words(unsigned n, unsigned m) {
    const unsigned reals = m + (n + 2) + m * (n + 1);
    return (reals * (unsigned)sizeof(R) + 7u) / 8u;  // in 8-byte words
}

template <int M, typename I, typename R>
__device__ void hx_fixed(I dim, unsigned n, unsigned periodic,
                         const unsigned long long* __restrict__ table,
                         const R* __restrict__ coeffs,
                         const unsigned long long* __restrict__ keys, unsigned wps, unsigned bits,
                         typename Cplx<R>::T alpha, const typename Cplx<R>::T* __restrict__ x,
                         typename Cplx<R>::T beta, typename Cplx<R>::T* __restrict__ y) {
    typedef typename Cplx<R>::T C;
    static_assert(M >= 2 && M <= 16, "fixed-M kernels cover 2..16 sites");
    extern __shared__ unsigned long long smem[];
    const unsigned bonds = periodic ? M : M - 1;
    const unsigned rows = n + 3;
    R* mj = reinterpret_cast<R*>(smem);
    R* sq = mj + M;
    R* ed = sq + (n + 2);
    I* dt = reinterpret_cast<I*>(smem + fixed_real_words<R>(n, M));
    // coeffs = [-J (bonds), V (M), U/2 (M), sqrt(0..N+1)]
    for (unsigned k = threadIdx.x; k < M; k += blockDim.x) mj[k] = k < bonds ? coeffs[k] : R(0);
    for (unsigned k = threadIdx.x; k < n + 2; k += blockDim.x) sq[k] = coeffs[bonds + 2 * M + k];
    for (unsigned t = threadIdx.x; t < M * (n + 1); t += blockDim.x) {
        const unsigned k = t / (n + 1);
        const R nr = R(t - k * (n + 1));
        ed[t] = coeffs[bonds + k] * nr + coeffs[bonds + M + k] * nr * (nr - R(1));
    }
    for (unsigned t = threadIdx.x; t < (M + 1) * rows; t += blockDim.x) {
        const unsigned s = t / rows, q = t - s * rows;  // q = r + 1
        dt[t] = (q == 0 || q > n + 1) ? I(0) : (I)table[(q - 1) * (M + 1) + s];
    }
    __syncthreads();

    const bool read_y = beta.x != R(0) || beta.y != R(0);
    const unsigned long long mask = (1ull << bits) - 1ull;
    const I stride = (I)gridDim.x * blockDim.x;
    for (I i = (I)blockIdx.x * blockDim.x + threadIdx.x; i < dim; i += stride) {
        // Occupations: site k at bit offset bits*k of the state's words (site 0 on top).
        const unsigned long long w0 = __ldg(keys + (unsigned long long)i * wps);
        unsigned long long w1 = 0;
        if (M * 8 > 64 && wps > 1) w1 = __ldg(keys + (unsigned long long)i * wps + 1);
        unsigned occ[M];
#pragma unroll
        for (int k = 0; k < M; ++k) {
            const unsigned off = bits * k;
            const unsigned long long w = (M * 8 <= 64 || off < 64) ? w0 : w1;
            occ[k] = (unsigned)((w >> (64 - bits - (off & 63))) & mask);
        }
        // right[k]: particles on sites k+1..M-1.
        int right[M];
        right[M - 1] = 0;
#pragma unroll
        for (int k = M - 2; k >= 0; --k) right[k] = right[k + 1] + (int)occ[k + 1];

        // Columns of the hops of bond k: a particle k -> k+1 lands at i - D(right, M-k-1),
        // one k+1 -> k at i + D(right - 1, M-k-1).
        I jr[M - 1], jl[M - 1];
#pragma unroll
        for (int k = 0; k < M - 1; ++k) {
            const I* col = dt + (M - 1 - k) * rows + 1;
            jr[k] = occ[k] != 0 ? i - col[right[k]] : i;
            jl[k] = occ[k + 1] != 0 ? i + col[right[k] - 1] : i;
        }
        // The ring bond: rank the two hopped states site by site (their rank terms differ
        // from the row's by right -/+ 1), D(., M-k) by the hockey-stick identity.
        I jlf = i, jfl = i;
        if (periodic) {
            I rlf = 0, rfl = 0;
#pragma unroll
            for (int k = 0; k < M - 1; ++k) {
                const I* col = dt + (M - k) * rows + 1;
                const int rk = right[k] + (int)occ[k];
                const int a = k == 0 ? (int)n : rk - 1, c = k == 0 ? (int)n : rk + 1;
                rlf += col[a] - col[right[k] - 1];
                rfl += col[c] - col[right[k] + 1];
            }
            if (occ[M - 1] != 0) jlf = rlf;
            if (occ[0] != 0) jfl = rfl;
        }
        // Every gather is issued before the first is used.
        const C xi = __ldg(&x[i]);
        C xr[M - 1], xl[M - 1];
#pragma unroll
        for (int k = 0; k < M - 1; ++k) {
            xr[k] = __ldg(&x[jr[k]]);
            xl[k] = __ldg(&x[jl[k]]);
        }
        C xlf = xi, xfl = xi;
        if (periodic) {
            xlf = __ldg(&x[jlf]);
            xfl = __ldg(&x[jfl]);
        }
        R diag = R(0);
#pragma unroll
        for (int k = 0; k < M; ++k) diag += ed[k * (n + 1) + occ[k]];
        C acc = mk(R(0), R(0));
#pragma unroll
        for (int k = 0; k < M - 1; ++k) {
            const unsigned nk = occ[k], nn = occ[k + 1];
            if (nk != 0) acc = axr(acc, mj[k] * (sq[nn + 1] * sq[nk]), xr[k]);
            if (nn != 0) acc = axr(acc, mj[k] * (sq[nk + 1] * sq[nn]), xl[k]);
        }
        if (periodic) {
            const unsigned n0 = occ[0], nl = occ[M - 1];
            if (nl != 0) acc = axr(acc, mj[M - 1] * (sq[n0 + 1] * sq[nl]), xlf);
            if (n0 != 0) acc = axr(acc, mj[M - 1] * (sq[nl + 1] * sq[n0]), xfl);
        }
        const C hxi = axr(acc, diag, xi);
        y[i] = cmadd(alpha, hxi, beta, read_y ? y[i] : hxi, read_y);
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

// Product states in logarithms (the mean-field state): psi_i = exp(sum_k lnabs[k(N+1) + n_k])
// * e^{i sum_k phase[k(N+1) + n_k]}, the per-site tables computed by the host.
__device__ __forceinline__ double2 product_log_amp(const Shared& s, unsigned n,
                                                   unsigned long long i, const double* lnabs,
                                                   const double* phase, unsigned char* occ) {
    unrank(s, n, i, occ);
    double l = 0.0, ph = 0.0;
    for (unsigned k = 0; k < s.m; ++k) {
        l += lnabs[k * (n + 1) + occ[k]];
        ph += phase[k * (n + 1) + occ[k]];
    }
    const double a = exp(l);
    return make_double2(a * cos(ph), a * sin(ph));
}

__device__ __forceinline__ Shared stage_table(unsigned n, unsigned m, const unsigned long long* table) {
    extern __shared__ unsigned long long smem[];
    const unsigned ntab = (n + 1) * (m + 1);
    for (unsigned k = threadIdx.x; k < ntab; k += blockDim.x) smem[k] = table[k];
    __syncthreads();
    Shared s;
    s.table = smem;
    s.m = m;
    return s;
}

template <typename R>
__device__ void product_log(unsigned long long dim, unsigned n, unsigned m,
                            const unsigned long long* __restrict__ table, const double* lnabs,
                            const double* phase, typename Cplx<R>::T* __restrict__ psi) {
    const Shared s = stage_table(n, m, table);
    unsigned char occ[MAX_SITES];
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < dim;
         i += stride) {
        const double2 z = product_log_amp(s, n, i, lnabs, phase, occ);
        psi[i] = mk((R)z.x, (R)z.y);
    }
}

// partial[2b], partial[2b + 1] = Re, Im of sum conj(phi_i) x_i over block b's rows.
template <typename R>
__device__ void overlap_log(unsigned long long dim, unsigned n, unsigned m,
                            const unsigned long long* __restrict__ table, const double* lnabs,
                            const double* phase, const typename Cplx<R>::T* __restrict__ x,
                            double* __restrict__ partial) {
    const Shared s = stage_table(n, m, table);
    __shared__ double sums[2];
    if (threadIdx.x < 2) sums[threadIdx.x] = 0.0;
    __syncthreads();
    unsigned char occ[MAX_SITES];
    double re = 0.0, im = 0.0;
    const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < dim;
         i += stride) {
        const double2 p = product_log_amp(s, n, i, lnabs, phase, occ);
        const double xr = (double)x[i].x, xi = (double)x[i].y;
        re += p.x * xr + p.y * xi;
        im += p.x * xi - p.y * xr;
    }
    for (int off = 16; off > 0; off >>= 1) {
        re += __shfl_down_sync(0xffffffffu, re, off);
        im += __shfl_down_sync(0xffffffffu, im, off);
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(&sums[0], re);
        atomicAdd(&sums[1], im);
    }
    __syncthreads();
    if (threadIdx.x < 2) partial[2ull * blockIdx.x + threadIdx.x] = sums[threadIdx.x];
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

// Fixed-M kernels: fock_hx_fixed<M>_<index>_<scalar>, M = 2..16, index u32 or u64. At most 256
// threads per block; no minimum of resident blocks (a cap of 128 registers spills at M >= 14).
#define FOCK_HX_FIXED(M, I, IN, R, C)                                                           \
    extern "C" __global__ void __launch_bounds__(256)                                           \
        fock_hx_fixed##M##_##IN##_##C(I dim, unsigned n, unsigned periodic,                     \
                                      const unsigned long long* table, const R* coeffs,         \
                                      const unsigned long long* keys, unsigned wps,             \
                                      unsigned bits, fock::Cplx<R>::T alpha,                    \
                                      const fock::Cplx<R>::T* x, fock::Cplx<R>::T beta,         \
                                      fock::Cplx<R>::T* y) {                                    \
        fock::hx_fixed<M, I, R>(dim, n, periodic, table, coeffs, keys, wps, bits, alpha, x,     \
                                beta, y);                                                       \
    }
#define FOCK_HX_FIXED_ALL(M)                                                                    \
    FOCK_HX_FIXED(M, unsigned, u32, float, c32)                                                 \
    FOCK_HX_FIXED(M, unsigned, u32, double, c64)                                                \
    FOCK_HX_FIXED(M, unsigned long long, u64, float, c32)                                       \
    FOCK_HX_FIXED(M, unsigned long long, u64, double, c64)

FOCK_HX_FIXED_ALL(2)
FOCK_HX_FIXED_ALL(3)
FOCK_HX_FIXED_ALL(4)
FOCK_HX_FIXED_ALL(5)
FOCK_HX_FIXED_ALL(6)
FOCK_HX_FIXED_ALL(7)
FOCK_HX_FIXED_ALL(8)
FOCK_HX_FIXED_ALL(9)
FOCK_HX_FIXED_ALL(10)
FOCK_HX_FIXED_ALL(11)
FOCK_HX_FIXED_ALL(12)
FOCK_HX_FIXED_ALL(13)
FOCK_HX_FIXED_ALL(14)
FOCK_HX_FIXED_ALL(15)
FOCK_HX_FIXED_ALL(16)

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

#define FOCK_PRODUCT(R, C, S)                                                                   \
    extern "C" __global__ void fock_product_log_##S(unsigned long long dim, unsigned n,         \
                                                    unsigned m, const unsigned long long* table, \
                                                    const double* lnabs, const double* phase,   \
                                                    C* psi) {                                   \
        fock::product_log<R>(dim, n, m, table, lnabs, phase, psi);                              \
    }                                                                                           \
    extern "C" __global__ void fock_overlap_log_##S(unsigned long long dim, unsigned n,         \
                                                    unsigned m, const unsigned long long* table, \
                                                    const double* lnabs, const double* phase,   \
                                                    const C* x, double* partial) {              \
        fock::overlap_log<R>(dim, n, m, table, lnabs, phase, x, partial);                       \
    }

FOCK_PRODUCT(double, double2, c64)
FOCK_PRODUCT(float, float2, c32)
