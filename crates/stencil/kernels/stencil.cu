// Matrix-free 5-point (2D) and 7-point (3D) Laplacians on [0,1]^d with boundary conditions,
// a position-dependent coefficient and affine boundary terms (seed 003), and the fused
// shifted step of the polynomial f(tA)v methods. See stencil_params.h for the operations.
//
// Three kernels per boundary kind and precision:
// * naive: one thread per point, every neighbour loaded from global memory (7 loads + 1
//   store per point; the caches absorb most of the re-reads). The seed's "naive" kernel.
// * opt (2.5D blocking): a 32 x 8 tile of threads marches along z through `zchunk` planes;
//   the values at z-1, z, z+1 of a thread's column stay in registers and the tile of plane z
//   with its one-point rim sits in shared memory, so each value is read from global memory
//   about once (plus the rim and 2 planes per chunk). The seed's "optimized" kernel. Its
//   two barriers per plane and one load in flight per thread leave it latency-bound.
// * march (streaming): the same z-march without shared memory or barriers, the column's
//   ring of registers running several planes ahead so that enough bytes are in flight to
//   stream at DRAM speed; the in-plane neighbours come through L1. See `march` below.
// Neighbours outside the grid are resolved by the boundary kind, a template argument, so
// the inner loop has no boundary branches: Dirichlet reads 0 (its data is the affine term),
// Neumann reads the point itself (zero face flux), periodic wraps; frame rows are zero.
#include "common.cuh"
#include "stencil_params.h"

namespace mxs {

// The neighbour index j of an axis of n points, resolved; -1 for a Dirichlet boundary.
template <int BC> __device__ __forceinline__ int resolve(int j, int n) {
    if (j >= 0 && j < n) return j;
    if (BC == MX_BC_NEUMANN) return j < 0 ? 0 : n - 1;
    if (BC == MX_BC_PERIODIC) return j < 0 ? n - 1 : 0;
    return -1;
}

// Coordinate of axis index i (see the Rust `Grid` documentation).
template <int BC> __device__ __forceinline__ double coord(int i, double h) {
    if (BC == MX_BC_DIRICHLET) return (i + 1) * h;
    if (BC == MX_BC_NEUMANN) return (i + 0.5) * h;
    return i * h;
}

// The plane of global index jz (already resolved): the slab, or a halo plane.
template <typename T>
__device__ __forceinline__ const T *plane_of(const MxStencilParams &p, const T *x, const T *lo,
                                             const T *hi, int jz) {
    const int local = jz - (int)p.z0;
    if (local >= 0 && local < (int)p.nz) return x + (size_t)local * p.n * p.n;
    if (lo != nullptr && jz == ((int)p.z0 + (int)p.n - 1) % (int)p.n) return lo;
    return hi;
}

// x at (jx, jy) of a plane, resolved in x and y.
template <typename T, int BC>
__device__ __forceinline__ T load_xy(const T *plane, int jx, int jy, int n) {
    jx = resolve<BC>(jx, n);
    jy = resolve<BC>(jy, n);
    if (jx < 0 || jy < 0) return T(0);
    return plane[(size_t)jy * n + jx];
}

// x at (ix, iy) of global plane jz, resolved in z.
template <typename T, int BC>
__device__ __forceinline__ T load_z(const MxStencilParams &p, const T *x, const T *lo,
                                    const T *hi, int ix, int iy, int jz) {
    jz = resolve<BC>(jz, (int)p.n);
    if (jz < 0) return T(0);
    return plane_of(p, x, lo, hi, jz)[(size_t)iy * p.n + ix];
}

__device__ __forceinline__ float sin_pi(float z) { return sinpif(z); }
__device__ __forceinline__ double sin_pi(double z) { return sinpi(z); }

// Seed 003's boundary functions, in the kernel's precision.
template <typename T> __device__ __forceinline__ T boundary_value(uint32_t bfun, T x, T y, T z) {
    if (bfun == MX_BFUN_POLYNOMIAL) return z * (T(1) - z) * x * y;
    return sin_pi(z) * exp(-x * y);
}

// Sum of g over the boundary points next to (ix, iy, iz) (Dirichlet grids only).
template <typename T>
__device__ T boundary_sum(const MxStencilParams &p, int ix, int iy, int iz) {
    const int n = (int)p.n;
    const T x = (T)coord<MX_BC_DIRICHLET>(ix, p.h), y = (T)coord<MX_BC_DIRICHLET>(iy, p.h);
    const T z = p.dim == 3 ? (T)coord<MX_BC_DIRICHLET>(iz, p.h) : T(0.5);
    T s = T(0);
    if (ix == 0) s += boundary_value<T>(p.bfun, T(0), y, z);
    if (ix == n - 1) s += boundary_value<T>(p.bfun, T(1), y, z);
    if (iy == 0) s += boundary_value<T>(p.bfun, x, T(0), z);
    if (iy == n - 1) s += boundary_value<T>(p.bfun, x, T(1), z);
    if (p.dim == 3) {
        if (iz == 0) s += boundary_value<T>(p.bfun, x, y, T(0));
        if (iz == n - 1) s += boundary_value<T>(p.bfun, x, y, T(1));
    }
    return s;
}

// D * h^-2 at a point.
template <typename T, int BC>
__device__ __forceinline__ T scale_at(const MxStencilParams &p, const T *coef, size_t o, int ix,
                                      int iy) {
    const T inv_h2 = (T)p.inv_h2;
    if (p.coef == MX_COEF_SEED) {
        const T x = (T)coord<BC>(ix, p.h), y = (T)coord<BC>(iy, p.h);
        return inv_h2 / sqrt(T(1) + x * x + y * y);
    }
    if (p.coef == MX_COEF_FIELD) return inv_h2 * coef[o];
    return inv_h2;
}

// (A x)_i + b_i from the stencil sum `lap` (sum of neighbours - 2d x_i). FN: Dirichlet data
// evaluated here (the seed's two functions); kept out of the other kernels so that their
// register count does not pay for sin and exp.
template <typename T, int BC, bool FN>
__device__ __forceinline__ T product_at(const MxStencilParams &p, const T *coef, const T *b,
                                        size_t o, int ix, int iy, int iz, T lap) {
    const int n = (int)p.n;
    const bool edge = ix == 0 || iy == 0 || ix == n - 1 || iy == n - 1 ||
                      (p.dim == 3 && (iz == 0 || iz == n - 1));
    if (BC == MX_BC_FRAME && edge) return T(0);
    if (FN && edge) lap += boundary_sum<T>(p, ix, iy, iz);
    T ax = scale_at<T, BC>(p, coef, o, ix, iy) * lap;
    // The precomputed b is nonzero next to the boundary only: no read elsewhere.
    if (BC == MX_BC_DIRICHLET && edge && p.bfun == MX_BFUN_VECTOR) ax += b[o];
    return ax;
}

// Reduces the block's sums of squares into *out. The 32 x 8 block is two-dimensional, so
// warps are numbered by the linear thread index (mx::block_store_ssq assumes 1D blocks).
constexpr int kTileWarps = MX_STENCIL_BX * MX_STENCIL_BY / 32;

__device__ __forceinline__ void store_ssq_2d(MxSsqPartial s, MxSsqPartial *out) {
    __shared__ double buf[3][kTileWarps];
    const int tid = threadIdx.x + blockDim.x * threadIdx.y;
    const int warp = tid >> 5, lane = tid & 31;
    double v[3] = {s.small, s.medium, s.big};
#pragma unroll
    for (int k = 0; k < 3; ++k) v[k] = mx::warp_sum(v[k]);
    if (lane == 0) {
#pragma unroll
        for (int k = 0; k < 3; ++k) buf[k][warp] = v[k];
    }
    __syncthreads();
    if (warp == 0) {
#pragma unroll
        for (int k = 0; k < 3; ++k) v[k] = mx::warp_sum(lane < kTileWarps ? buf[k][lane] : 0.0);
        if (lane == 0) {
            out->small = v[0];
            out->medium = v[1];
            out->big = v[2];
        }
    }
}

// ---------------------------------------------------------------------------------------

template <typename T, int BC, bool FN>
__device__ void naive(MxStencilParams p, const T *__restrict__ x, const T *__restrict__ lo,
                      const T *__restrict__ hi, const T *__restrict__ coef,
                      const T *__restrict__ b, T *__restrict__ y) {
    const int n = (int)p.n;
    const int ix = blockIdx.x * blockDim.x + threadIdx.x;
    const int iy = blockIdx.y * blockDim.y + threadIdx.y;
    const int lz = blockIdx.z;
    if (ix >= n || iy >= n) return;
    const int iz = (int)p.z0 + lz;
    const size_t o = ((size_t)lz * n + iy) * n + ix;
    const T *xp = x + (size_t)lz * n * n;
    const T c = xp[(size_t)iy * n + ix];
    T lap = load_xy<T, BC>(xp, ix - 1, iy, n) + load_xy<T, BC>(xp, ix + 1, iy, n) +
            load_xy<T, BC>(xp, ix, iy - 1, n) + load_xy<T, BC>(xp, ix, iy + 1, n);
    if (p.dim == 3)
        lap += load_z<T, BC>(p, x, lo, hi, ix, iy, iz - 1) +
               load_z<T, BC>(p, x, lo, hi, ix, iy, iz + 1);
    lap -= T(2 * p.dim) * c;
    const T ax = product_at<T, BC, FN>(p, coef, b, o, ix, iy, iz, lap);
    const T alpha = (T)p.alpha, beta = (T)p.beta;
    if (p.step)
        y[o] = alpha * ax + beta * c;
    else
        y[o] = p.beta == 0.0 ? alpha * ax : alpha * ax + beta * y[o];
}

template <typename T, int BC, bool FN>
__device__ void opt(MxStencilParams p, const T *__restrict__ x, const T *__restrict__ lo,
                    const T *__restrict__ hi, const T *__restrict__ coef,
                    const T *__restrict__ b, T *__restrict__ y, T *__restrict__ acc,
                    MxSsqPartial *__restrict__ partials) {
    __shared__ T tile[MX_STENCIL_BY + 2][MX_STENCIL_BX + 2];
    const int n = (int)p.n, tx = threadIdx.x, ty = threadIdx.y;
    const int ix = blockIdx.x * MX_STENCIL_BX + tx, iy = blockIdx.y * MX_STENCIL_BY + ty;
    const bool active = ix < n && iy < n;
    const bool three = p.dim == 3;
    const int zs = blockIdx.z * (int)p.zchunk;
    const int ze = min(zs + (int)p.zchunk, (int)p.nz);
    const size_t pl = (size_t)n * n;
    const T alpha = (T)p.alpha, beta = (T)p.beta, coeff = (T)p.coeff, diag = T(2 * p.dim);
    MxSsqPartial ssq = mx::ssq_zero();
    // Rim of the tile: only edge threads of the tile load one (west, east, south, north).
    const bool w_rim = tx == 0, e_rim = tx == MX_STENCIL_BX - 1 || ix == n - 1;
    const bool s_rim = ty == 0, n_rim = ty == MX_STENCIL_BY - 1 || iy == n - 1;
    // Software pipeline of depth one: the values of plane lz + 1 (its rim, and the centre
    // of plane lz + 2) are loaded at the top of iteration lz and land during its two
    // barriers and its arithmetic, so no load latency is exposed per plane.
    T below = T(0), cur = T(0), above = T(0), rw = T(0), re = T(0), rs = T(0), rn = T(0);
    if (active && zs < ze) {
        const int iz = (int)p.z0 + zs;
        const T *xp = x + zs * pl;
        cur = xp[(size_t)iy * n + ix];
        if (three) {
            below = load_z<T, BC>(p, x, lo, hi, ix, iy, iz - 1);
            above = load_z<T, BC>(p, x, lo, hi, ix, iy, iz + 1);
        }
        if (w_rim) rw = load_xy<T, BC>(xp, ix - 1, iy, n);
        if (e_rim) re = load_xy<T, BC>(xp, ix + 1, iy, n);
        if (s_rim) rs = load_xy<T, BC>(xp, ix, iy - 1, n);
        if (n_rim) rn = load_xy<T, BC>(xp, ix, iy + 1, n);
    }
    for (int lz = zs; lz < ze; ++lz) {
        const int iz = (int)p.z0 + lz;
        T next_above = T(0), nw = T(0), ne = T(0), ns = T(0), nn = T(0);
        const bool more = active && three && lz + 1 < ze;
        if (more) {
            const T *xn = x + (lz + 1) * pl;
            next_above = load_z<T, BC>(p, x, lo, hi, ix, iy, iz + 2);
            if (w_rim) nw = load_xy<T, BC>(xn, ix - 1, iy, n);
            if (e_rim) ne = load_xy<T, BC>(xn, ix + 1, iy, n);
            if (s_rim) ns = load_xy<T, BC>(xn, ix, iy - 1, n);
            if (n_rim) nn = load_xy<T, BC>(xn, ix, iy + 1, n);
        }
        if (active) {
            tile[ty + 1][tx + 1] = cur;
            if (w_rim) tile[ty + 1][0] = rw;
            if (e_rim) tile[ty + 1][tx + 2] = re;
            if (s_rim) tile[0][tx + 1] = rs;
            if (n_rim) tile[ty + 2][tx + 1] = rn;
        }
        __syncthreads();
        if (active) {
            T lap = tile[ty + 1][tx] + tile[ty + 1][tx + 2] + tile[ty][tx + 1] +
                    tile[ty + 2][tx + 1];
            if (three) lap += below + above;
            lap -= diag * cur;
            const size_t o = lz * pl + (size_t)iy * n + ix;
            const T ax = product_at<T, BC, FN>(p, coef, b, o, ix, iy, iz, lap);
            if (p.step) {
                const T yn = alpha * ax + beta * cur;
                y[o] = yn;
                if (acc != nullptr) {
                    acc[o] = coeff * yn + acc[o];
                    mx::ssq_add(ssq, yn);
                }
            } else {
                y[o] = p.beta == 0.0 ? alpha * ax : alpha * ax + beta * y[o];
            }
        }
        __syncthreads();
        if (more) {
            below = cur;
            cur = above;
            above = next_above;
            rw = nw;
            re = ne;
            rs = ns;
            rn = nn;
        }
    }
    if (partials != nullptr)
        store_ssq_2d(ssq, partials + blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z));
}

// ---------------------------------------------------------------------------------------
// The streaming (register-marching) kernel.
//
// A thread owns one column (ix, iy) of a block's z-chunk and walks it plane by plane. The
// column's values stay in a register ring `r`, r[k] = x(lz - 1 + k), so u(z-1), u(z), u(z+1)
// never come from memory twice; the ring runs kAhead planes beyond z + 1, so every thread has
// kAhead loads of the stream in flight (a streaming kernel is bound by bytes in flight per SM:
// about 4.8 TB/s x 0.7 us / 132 SMs = 25 KB, and 1024 threads x 32 B = 32 KB).
// The x +- 1, y +- 1 neighbours of plane z are read straight from global memory through the
// read-only path, one plane ahead: the block's own threads loaded those lines as ring values
// a few planes earlier, so they hit L1, and only the tile's rim comes from L2 (its owner block
// marches the same planes at about the same time). No shared memory, no barriers: each
// value crosses DRAM once (plus the rim's L2 reads and two ring planes per chunk).
// Boundaries cost nothing in the loop: the four in-plane neighbour offsets (and whether they
// exist, for Dirichlet and frame) are resolved once per column, and planes outside the slab
// are resolved only when the ring fetches them (a uniform branch). Offsets are 32-bit; the
// column pointer carries the 64-bit base.
// Loads in flight per thread: the products keep their ring A = 2 planes ahead of z + 1 and
// load the in-plane neighbours at their plane (measured on an H200 at 256^3 with the running
// pointers below: f64 82-84 us, f32 58-60 us; the f32 ring 6 planes ahead with the
// neighbours a plane ahead, the layout before them, took 73 us). The kernel with the seed's
// boundary functions keeps a shorter ring with the neighbours a plane ahead (its sin/exp
// registers).
// The fused step streams two vectors (x and acc) at 2 + 1 doubles or 3 + 1 floats (its
// reduction leaves fewer registers).
// Tried and measured slower (benches/experiments/stencil_march_variants.cu, figures in
// bench-results/h200/stencil_march_variants.md): the column ring in shared memory filled by
// cp.async (no register per load in flight), the block's tile with its rim staged in shared
// memory with one barrier per plane, x-neighbours by warp shuffles, 3 or 4 blocks per SM.
// What the product still pays over its bytes is the in-plane neighbours: the same kernel
// with their loads left out runs at 1.15-1.2x the floor.
template <typename T, int BC, bool FN> constexpr bool kMarchNbAhead = FN;
template <typename T, int BC, bool FN>
constexpr int kMarchAhead = FN ? 12 / (int)sizeof(T) : 2;
template <typename T> constexpr int kMarchStepAhead = sizeof(T) == 8 ? 2 : 3;

// The block's sums of squares into *out, for any block of whole warps (at most 1024 threads).
__device__ __forceinline__ void store_ssq_any(MxSsqPartial s, MxSsqPartial *out) {
    __shared__ double buf[3][32];
    const int tid = threadIdx.x + blockDim.x * threadIdx.y;
    const int warps = (int)(blockDim.x * blockDim.y) >> 5;
    const int warp = tid >> 5, lane = tid & 31;
    double v[3] = {s.small, s.medium, s.big};
#pragma unroll
    for (int k = 0; k < 3; ++k) v[k] = mx::warp_sum(v[k]);
    if (lane == 0) {
#pragma unroll
        for (int k = 0; k < 3; ++k) buf[k][warp] = v[k];
    }
    __syncthreads();
    if (warp == 0) {
#pragma unroll
        for (int k = 0; k < 3; ++k) v[k] = mx::warp_sum(lane < warps ? buf[k][lane] : 0.0);
        if (lane == 0) {
            out->small = v[0];
            out->medium = v[1];
            out->big = v[2];
        }
    }
}

// Offset of the in-plane neighbour j of index i along an axis of n points (stride `stride`),
// and whether it exists (false: a Dirichlet or frame boundary, value 0).
template <int BC>
__device__ __forceinline__ bool neighbour(int i, int j, int n, int stride, int &off) {
    const int r = resolve<BC>(j, n);
    off = (r - i) * stride;
    return r >= 0;
}

// A hint that the line of `ptr` will be read soon: fetched into L2, no register held.
__device__ __forceinline__ void prefetch_l2(const void *ptr) {
    asm volatile("prefetch.global.L2 [%0];" ::"l"(ptr));
}

// (A x)_o (+ b_o when AFFINE) of a streaming kernel from the stencil sum `lap` and the
// point's D h^-2 (`scale`); frame rows are zero.
template <typename T, int BC, bool FN, bool AFFINE>
__device__ __forceinline__ T march_ax(const MxStencilParams &p, const T *__restrict__ coef,
                                      const T *__restrict__ b, size_t o, int ix, int iy, int iz,
                                      bool edge, T scale, T lap) {
    if (BC == MX_BC_FRAME && edge) return T(0);
    if (FN && edge) lap += boundary_sum<T>(p, ix, iy, iz);
    T ax = scale * lap;
    if (AFFINE && BC == MX_BC_DIRICHLET && edge && p.bfun == MX_BFUN_VECTOR) ax += b[o];
    return ax;
}

// A compile-time flag passed to a generic lambda.
template <bool B> struct Flag {
    static constexpr bool value = B;
};

// ACC: the fused step (acc <- acc + coeff * y and the block's sums of squares); the product
// otherwise (p.step selects y <- alpha (Ax + b) + beta y or alpha A x + beta x).
template <typename T, int BC, bool FN, bool ACC, int A, bool NBA>
__device__ void march(const MxStencilParams &p, const T *__restrict__ x,
                      const T *__restrict__ lo, const T *__restrict__ hi,
                      const T *__restrict__ coef, const T *__restrict__ b, T *__restrict__ y,
                      T *__restrict__ acc, MxSsqPartial *__restrict__ partials) {
    constexpr int R = A + 3; // ring: planes lz - 1 .. lz + 1 + A
    const int n = (int)p.n, nz = (int)p.nz;
    const int ix = blockIdx.x * blockDim.x + threadIdx.x;
    const int iy = blockIdx.y * blockDim.y + threadIdx.y;
    const int zs = blockIdx.z * (int)p.zchunk;
    const int ze = min(zs + (int)p.zchunk, nz);
    MxSsqPartial ssq = mx::ssq_zero();
    // The column's march, compiled twice: GENERAL::value = false is the common case (a 3D
    // grid, a coefficient constant along z, no boundary flags, the step form or the fused
    // step, no prefetch) with those parameters as constants, true takes them at run time.
    // Their uniform branches in the loop cost 15-20 % of the f64 product at 256^3 on an H200.
    auto column = [&](auto GENERAL) {
        constexpr bool G = decltype(GENERAL)::value;
        const bool three = !G || p.dim == 3;
        const size_t pl = (size_t)n * (size_t)n;
        const size_t col = (size_t)iy * (size_t)n + (size_t)ix;
        const T *__restrict__ xc = x + col;
        int ow, oe, os, on;
        const bool hw = neighbour<BC>(ix, ix - 1, n, 1, ow);
        const bool he = neighbour<BC>(ix, ix + 1, n, 1, oe);
        const bool hs = neighbour<BC>(iy, iy - 1, n, n, os);
        const bool hn = neighbour<BC>(iy, iy + 1, n, n, on);
        const bool xy_edge = ix == 0 || iy == 0 || ix == n - 1 || iy == n - 1;
        const T alpha = (T)p.alpha, beta = (T)p.beta, coeff = (T)p.coeff;
        const T diag = G ? T(2 * p.dim) : T(6);
        const bool field = G && p.coef == MX_COEF_FIELD;
        // D h^-2 of the column when it does not vary along z (unit or the seed's D(x, y)).
        const T scale = field ? T(0) : scale_at<T, BC>(p, coef, 0, ix, iy);
        // Whether a point needs its boundary flag: frame rows, in-kernel boundary data, or
        // the precomputed b (read next to the boundary only).
        const bool flagged = G && (BC == MX_BC_FRAME || FN ||
                                   (!ACC && BC == MX_BC_DIRICHLET && p.bfun == MX_BFUN_VECTOR));
        // x of the column at local plane q: the slab, else resolved (outside the grid, or a
        // halo plane of a partitioned grid); 0 past the last plane the chunk needs (ze).
        auto fetch = [&](int q) -> T {
            if (q > ze) return T(0);
            if (q >= 0 && q < nz) return __ldg(xc + (size_t)q * pl);
            if (!three) return T(0);
            return load_z<T, BC>(p, x, lo, hi, ix, iy, (int)p.z0 + q);
        };
        // The ring: slot k % R holds plane lz - 1 + k at step lz. The loop is unrolled by R
        // so that slots rotate by renaming: shifting values with moves would stall each
        // step on the load issued the step before, leaving one load in flight, not A.
        T r[R];
#pragma unroll
        for (int k = 0; k < R; ++k) r[k] = (three || k == 1) ? fetch(zs - 1 + k) : T(0);
        // Running pointers to plane lz of the column, advanced by one plane per
        // step: the addresses cost a 64-bit add per stream and step, where forming each
        // from the plane index took 64-bit products (measured on an H200 at 256^3: 104 us
        // against 84 us for the f64 product, 95 us against 60 us in f32).
        const size_t o0 = (size_t)zs * pl + col;
        const T *__restrict__ xp = x + o0;
        T *__restrict__ yp = y + o0;
        // The ring's next plane lz - 1 + R from plane lz, and the last plane it may load as
        // a plain stream (later ones are resolved by fetch).
        const size_t ring_ahead = (size_t)(R - 1) * pl;
        const int plain_end = min(ze, nz - 1);
        // acc of the column, kAccAhead planes ahead (ACC only), in slots of the same period.
        constexpr int kAccAhead = A / 2 > 0 ? A / 2 : 1;
        T *__restrict__ ap = ACC ? acc + o0 : nullptr;
        const size_t acc_ahead = (size_t)kAccAhead * pl;
        T a[R];
        if (ACC) {
#pragma unroll
            for (int k = 0; k < kAccAhead; ++k)
                a[k] = zs + k < ze ? __ldcs(ap + (size_t)k * pl) : T(0);
        }
        // In-plane neighbours of the plane at xq (L1 hits but for the tile's rim). NBA:
        // loaded one plane ahead and summed at the plane (so their latency hides behind a
        // plane of work); otherwise loaded at the plane itself (fewer registers, a deeper
        // ring).
        // Dirichlet and frame grids have their present neighbours at -1, +1, -n, +n: fixed
        // offsets, the x ones immediates of the load (f32 product 60 -> 58 us at 256^3).
        // (The fused step keeps the offsets: the immediates cost it registers and spills.)
        constexpr bool kFixed = !ACC && (BC == MX_BC_DIRICHLET || BC == MX_BC_FRAME);
        const ptrdiff_t row = n;
        T nb[4];
        auto load_nb = [&](const T *xq) {
            nb[0] = hw ? __ldg(xq + (kFixed ? -1 : ow)) : T(0);
            nb[1] = he ? __ldg(xq + (kFixed ? 1 : oe)) : T(0);
            nb[2] = hs ? __ldg(xq + (kFixed ? -row : (ptrdiff_t)os)) : T(0);
            nb[3] = hn ? __ldg(xq + (kFixed ? row : (ptrdiff_t)on)) : T(0);
        };
        if (NBA) load_nb(xp);
        for (int l0 = zs; l0 < ze; l0 += R) {
#pragma unroll
            for (int u = 0; u < R; ++u) {
                const int lz = l0 + u;
                if (lz >= ze) break;
                if (!NBA) load_nb(xp);
                T lap = (nb[0] + nb[1]) + (nb[2] + nb[3]);
                if (NBA && lz + 1 < ze) load_nb(xp + pl);
                const T cur = r[(u + 1) % R];
                if (three) lap += r[u % R] + r[(u + 2) % R];
                lap -= diag * cur;
                const int iz = (int)p.z0 + lz;
                const bool edge = flagged && (xy_edge || (three && (iz == 0 || iz == n - 1)));
                // The point's index, for the rarely read streams (coefficient field, b).
                const size_t o = (size_t)(xp - x);
                const T ax = march_ax<T, BC, FN, !ACC>(p, coef, b, o, ix, iy, iz, edge,
                                                       field ? (T)p.inv_h2 * coef[o] : scale,
                                                       lap);
                if (ACC) {
                    const T yn = alpha * ax + beta * cur;
                    __stcs(yp, yn);
                    __stcs(ap, coeff * yn + a[u % R]);
                    mx::ssq_add(ssq, yn);
                    a[(u + kAccAhead) % R] = lz + kAccAhead < ze ? __ldcs(ap + acc_ahead) : T(0);
                    ap += pl;
                } else if (!G || p.step) {
                    __stcs(yp, alpha * ax + beta * cur);
                } else {
                    __stcs(yp, p.beta == 0.0 ? alpha * ax : alpha * ax + beta * *yp);
                }
                // Slot u % R (plane lz - 1) is free: it takes plane lz - 1 + R.
                if (three) {
                    const int q = lz - 1 + R;
                    r[u % R] = q <= plain_end ? __ldg(xp + ring_ahead) : fetch(q);
                }
                if (G && p.prefetch != 0u && lz - 1 + R + (int)p.prefetch < ze) {
                    const size_t pf = (size_t)(R - 1 + (int)p.prefetch) * pl;
                    prefetch_l2(xp + pf);
                    if (ACC) prefetch_l2(ap - pl + pf);
                }
                xp += pl;
                yp += pl;
            }
        }
    };
    if (ix < n && iy < n && zs < ze) {
        const bool general = p.dim != 3 || p.coef == MX_COEF_FIELD || p.prefetch != 0u ||
                             BC == MX_BC_FRAME || FN ||
                             (!ACC && (p.step == 0u || p.bfun == MX_BFUN_VECTOR));
        if (general)
            column(Flag<true>{});
        else
            column(Flag<false>{});
    }
    if (ACC)
        store_ssq_any(ssq, partials + blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z));
}

// ---------------------------------------------------------------------------------------
// The stacked streaming product: the (alpha A + beta I) x product's common case (3D, a
// coefficient constant along z, Dirichlet without data, Neumann or periodic) with each
// thread owning CY = MX_STACK_ROWS columns (ix, iy0 .. iy0 + CY - 1) stacked along y.
//
// In `march` every point loads its four in-plane neighbours through L1, and one of the two
// y-neighbours of a 256x2 tile is the tile's rim (L2). Here the y-neighbours inside the
// stack are the thread's own ring registers: per point 2/CY y-loads (the stack's rim)
// instead of 2, and each thread has CY ring loads in flight per plane. Measured on an H200
// at 256^3 (benches/experiments/stencil_march_coarse.cu, bench-results/h200/
// stencil_march_coarse.md): Dirichlet f64 76.8 us against march's 84.8 us (1.21x against
// 1.33x the bytes floor), f32 52.0 us against 60.4 us; CY = 2 gains half as much, CY = 8
// spills, and the x-neighbours by warp shuffles lose 10-15 us.
// The sums are those of `march` in the same order: the results are the same bits.
template <typename T, int BC, int CY, int A>
__device__ void march_stack(const MxStencilParams &p, const T *__restrict__ x,
                            const T *__restrict__ lo, const T *__restrict__ hi,
                            const T *__restrict__ coef, T *__restrict__ y) {
    constexpr int R = A + 3; // ring: planes lz - 1 .. lz + 1 + A, for each of the CY columns
    const int n = (int)p.n, nz = (int)p.nz;
    const int ix = blockIdx.x * blockDim.x + threadIdx.x;
    const int iy0 = (blockIdx.y * blockDim.y + threadIdx.y) * CY;
    const int zs = blockIdx.z * (int)p.zchunk;
    const int ze = min(zs + (int)p.zchunk, nz);
    // The host launches this kernel only when CY divides n: a stack is whole or absent.
    if (ix >= n || iy0 >= n || zs >= ze) return;
    const size_t pl = (size_t)n * (size_t)n;
    const ptrdiff_t row = n;
    const size_t col = (size_t)iy0 * (size_t)n + (size_t)ix;
    // x-neighbours of every column, the south one of the first and the north one of the last
    // (periodic: their wrapped offsets).
    int ow, oe, os, on;
    neighbour<BC>(ix, ix - 1, n, 1, ow);
    neighbour<BC>(ix, ix + 1, n, 1, oe);
    neighbour<BC>(iy0, iy0 - 1, n, n, os);
    neighbour<BC>(iy0 + CY - 1, iy0 + CY, n, n, on);
    const bool iw = ix > 0, ie = ix < n - 1, is = iy0 > 0, in = iy0 + CY < n;
    // A neighbour inside the grid sits at a fixed offset (an immediate of the load, or one
    // row); across the grid's edge it is 0 (Dirichlet), the point itself (Neumann: its own
    // register, no load) or the wrapped point (periodic: a run-time offset, which periodic
    // takes everywhere: the branch costs it more than the immediates save). Measured on an
    // H200 at 256^3 f64 (stencil_march_coarse.md): Neumann 79.7 us this way against
    // 83.8-84.4 us with run-time offsets; periodic 84.7-87.7 us with either, no faster than
    // march (the host runs march for it in f64).
    auto side = [&](const T *q, bool inner, int off, ptrdiff_t fixed, T self) -> T {
        if (BC == MX_BC_PERIODIC) return __ldg(q + off);
        if (inner) return __ldg(q + fixed);
        return BC == MX_BC_NEUMANN ? self : T(0);
    };
    const T alpha = (T)p.alpha, beta = (T)p.beta, diag = T(6);
    T scale[CY];
#pragma unroll
    for (int c = 0; c < CY; ++c) scale[c] = scale_at<T, BC>(p, coef, 0, ix, iy0 + c);
    auto fetch = [&](int q, int c) -> T {
        if (q > ze) return T(0);
        if (q >= 0 && q < nz) return __ldg(x + col + (size_t)c * n + (size_t)q * pl);
        return load_z<T, BC>(p, x, lo, hi, ix, iy0 + c, (int)p.z0 + q);
    };
    T r[R][CY];
#pragma unroll
    for (int k = 0; k < R; ++k)
#pragma unroll
        for (int c = 0; c < CY; ++c) r[k][c] = fetch(zs - 1 + k, c);
    const size_t o0 = (size_t)zs * pl + col;
    const T *__restrict__ xp = x + o0;
    T *__restrict__ yp = y + o0;
    const size_t ring_ahead = (size_t)(R - 1) * pl;
    const int plain_end = min(ze, nz - 1);
    for (int l0 = zs; l0 < ze; l0 += R) {
#pragma unroll
        for (int u = 0; u < R; ++u) {
            const int lz = l0 + u;
            if (lz >= ze) break;
            T w[CY], e[CY];
#pragma unroll
            for (int c = 0; c < CY; ++c) {
                const T cur = r[(u + 1) % R][c];
                w[c] = side(xp + c * row, iw, ow, -1, cur);
                e[c] = side(xp + c * row, ie, oe, 1, cur);
            }
            const T s0 = side(xp, is, os, -row, r[(u + 1) % R][0]);
            const T nl = side(xp + (CY - 1) * row, in, on, row, r[(u + 1) % R][CY - 1]);
#pragma unroll
            for (int c = 0; c < CY; ++c) {
                const T cur = r[(u + 1) % R][c];
                const T s = c > 0 ? r[(u + 1) % R][c - 1] : s0;
                const T nn = c < CY - 1 ? r[(u + 1) % R][c + 1] : nl;
                T lap = (w[c] + e[c]) + (s + nn);
                lap += r[u % R][c] + r[(u + 2) % R][c];
                lap -= diag * cur;
                __stcs(yp + c * row, alpha * (scale[c] * lap) + beta * cur);
            }
            // Slots u % R (plane lz - 1) are free: they take plane lz - 1 + R.
            const int q = lz - 1 + R;
#pragma unroll
            for (int c = 0; c < CY; ++c)
                r[u % R][c] = q <= plain_end ? __ldg(xp + c * row + ring_ahead) : fetch(q, c);
            xp += pl;
            yp += pl;
        }
    }
}

// ---------------------------------------------------------------------------------------
// The Lanczos step of the streaming kernel.
//
// Two forms, one march (the ring, the in-plane neighbours and the boundaries of `march`):
// * product (ADV = false): x = q_j; w <- A q_j - beta_j q_{j-1} (beta_j = c[2j - 1]; no
//   subtraction when xq = q_{j-1} is null). Reads 2 vectors (q_j, q_{j-1}), writes 1.
// * advance (ADV = true): x = w_prev, xq = q_j of a settled deferred step j (see the core's
//   Backend::lanczos_settle): every value of q_{j+1} the product needs is formed where it is
//   gathered, q_{j+1} = (w_prev - alpha_j q_j) * (1 / beta_{j+1}) (alpha_j = c[2j],
//   beta_{j+1} = c[2j + 1]) when sums[4] == 0, else w_prev itself (the settle already
//   scaled it); the point's own value is stored to q_next and w <- A q_{j+1} - beta_{j+1} q_j.
//   Reads 2 vectors (w_prev, q_j; the neighbours through L1), writes 2 (q_next, w): one
//   read and one write fewer than a product plus a separate update pass.
// Both leave per-block rows (<q, w>, 0, ||w||^2, ||q||^2) of the step's q and w in partials
// (4 doubles per block, block index order) for finish_sum of the GPU crate's reductions.
// The formed value comes from one function (mx::lanczos_next of common.cuh, the expression
// of the GPU crate's Pythagorean update and lanczos_form, with -alpha_j and 1/beta_{j+1}
// rounded to T as they are there), so every thread that gathers a point and the thread that
// stores it compute the same bits: q_next is exactly the vector the product was taken of,
// and the vector the backend's lanczos_form would have written.
template <typename T> struct LanczosForm {
    T a; // -alpha_j, rounded to T
    T s; // 1 / beta_{j+1}, rounded to T
    bool direct; // sums[4] != 0: w_prev already is q_{j+1}
    __device__ __forceinline__ T operator()(T q, T w) const {
        return direct ? w : mx::lanczos_next(a, s, q, w);
    }
};

// Sums K doubles per thread over a block of whole warps (at most 1024 threads, 2D) and
// stores them at out[0..K) (fixed order: warps by linear thread index).
template <int K> __device__ __forceinline__ void block_store_any(double (&v)[K], double *out) {
    __shared__ double buf[K][32];
    const int tid = threadIdx.x + blockDim.x * threadIdx.y;
    const int warps = (int)(blockDim.x * blockDim.y) >> 5;
    const int warp = tid >> 5, lane = tid & 31;
#pragma unroll
    for (int k = 0; k < K; ++k) v[k] = mx::warp_sum(v[k]);
    if (lane == 0) {
#pragma unroll
        for (int k = 0; k < K; ++k) buf[k][warp] = v[k];
    }
    __syncthreads();
    if (warp == 0) {
#pragma unroll
        for (int k = 0; k < K; ++k) v[k] = mx::warp_sum(lane < warps ? buf[k][lane] : 0.0);
        if (lane == 0) {
#pragma unroll
            for (int k = 0; k < K; ++k) out[k] = v[k];
        }
    }
}

// A: the ring's lead (planes loaded ahead of z + 1). The advance keeps its ring raw (w_prev
// and q_j as loaded) and forms each plane of q_{j+1} A planes after its loads were issued,
// when it becomes the plane above: formed at the load, the ring's loads would stall the
// thread at once, and the march would have one plane in flight instead of A. The raw q_j of
// the centre plane is then still in the ring for the subtraction.
// The advance's lead: its raw ring holds two vectors, so f64 keeps 1 plane within the 64
// registers of two blocks of 512 threads per SM (2 spill), f32 the step's 3.
template <typename T> constexpr int kMarchAdvanceAhead = sizeof(T) == 8 ? 1 : 3;

template <typename T, int BC, bool ADV, int A>
__device__ void march_lanczos(const MxStencilParams &p, const T *__restrict__ x,
                              const T *__restrict__ xq, const T *__restrict__ coef,
                              const double *__restrict__ c, uint64_t j,
                              const double *__restrict__ sums, T *__restrict__ q_next,
                              T *__restrict__ w, double *__restrict__ partials) {
    constexpr int R = A + 3; // ring: planes lz - 1 .. lz + 1 + A
    const int n = (int)p.n, nz = (int)p.nz;
    const int ix = blockIdx.x * blockDim.x + threadIdx.x;
    const int iy = blockIdx.y * blockDim.y + threadIdx.y;
    const bool three = p.dim == 3;
    const int zs = blockIdx.z * (int)p.zchunk;
    const int ze = min(zs + (int)p.zchunk, nz);
    // (<q, w>, ||w||^2, ||q||^2): real operands, so Im <q, w> = 0.
    double acc_qw = 0.0, acc_ww = 0.0, acc_qq = 0.0;
    if (ix < n && iy < n && zs < ze) {
        const uint32_t pl = (uint32_t)n * (uint32_t)n;
        const uint32_t col = (uint32_t)iy * (uint32_t)n + (uint32_t)ix;
        int ow, oe, os, on;
        const bool hw = neighbour<BC>(ix, ix - 1, n, 1, ow);
        const bool he = neighbour<BC>(ix, ix + 1, n, 1, oe);
        const bool hs = neighbour<BC>(iy, iy - 1, n, n, os);
        const bool hn = neighbour<BC>(iy, iy + 1, n, n, on);
        const bool xy_edge = ix == 0 || iy == 0 || ix == n - 1 || iy == n - 1;
        const T diag = T(2 * p.dim);
        const T scale = p.coef == MX_COEF_FIELD ? T(0) : scale_at<T, BC>(p, coef, 0, ix, iy);
        // The subtracted multiple: -beta_j (product) or -beta_{j+1} (advance); none without
        // a previous vector.
        const bool sub = ADV || xq != nullptr;
        const T nb_beta = sub ? (T)(-c[ADV ? 2 * j + 1 : 2 * j - 1]) : T(0);
        LanczosForm<T> form{T(0), T(1), true};
        if (ADV) {
            form.direct = sums[4] != 0.0;
            if (!form.direct) {
                form.a = (T)(-c[2 * j]);
                form.s = (T)(1.0 / c[2 * j + 1]);
            }
        }
        const T *__restrict__ xc = x + col;
        const T *__restrict__ qc = ADV ? xq + col : nullptr;
        // Offset of local plane q of the column (resolved outside the slab: a whole grid, no
        // halo planes here), or -1 for none (a Dirichlet or frame boundary, or past the last
        // plane the chunk needs).
        auto plane = [&](int q) -> ptrdiff_t {
            if (q > ze) return -1;
            if (q >= 0 && q < nz) return (ptrdiff_t)q * pl;
            if (!three) return -1;
            const int jz = resolve<BC>((int)p.z0 + q, n) - (int)p.z0;
            if (jz < 0 || jz >= nz) return -1;
            return (ptrdiff_t)jz * pl;
        };
        // The ring: slot k % R holds plane lz - 1 + k at step lz, as loaded (x; and q_j for
        // the advance). Unrolled by R so that slots rotate by renaming.
        T r[R], rq[ADV ? R : 1];
        auto load = [&](int k, int q) {
            const ptrdiff_t o = (three || q == zs) ? plane(q) : -1;
            r[k] = o >= 0 ? __ldg(xc + o) : T(0);
            if (ADV) rq[k] = o >= 0 ? __ldg(qc + o) : T(0);
        };
#pragma unroll
        for (int k = 0; k < R; ++k) load(k, zs - 1 + k);
        // The advance forms planes lz - 1, lz, lz + 1 in place: r then holds q_{j+1} there
        // (raw w_prev beyond), rq the raw q_j throughout. Zeros stay zeros: form(0, 0) = 0.
        if (ADV) {
#pragma unroll
            for (int k = 0; k < 3; ++k) r[k] = form(rq[k], r[k]);
        }
        // The product's operand at an in-plane neighbour: x, or q_{j+1} formed from w_prev
        // and q_j (read through L1: the block's own threads loaded these lines as ring values).
        auto value = [&](ptrdiff_t k) -> T {
            if (!ADV) return __ldg(xc + k);
            return form(__ldg(qc + k), __ldg(xc + k));
        };
        // q_{j-1} of the product, streamed kPrevAhead planes ahead like the step's acc.
        constexpr int kPrevAhead = A / 2 > 0 ? A / 2 : 1;
        T a[ADV ? 1 : R];
        if (!ADV && xq != nullptr) {
#pragma unroll
            for (int k = 0; k < kPrevAhead; ++k)
                a[k] = zs + k < ze ? __ldcs(xq + col + (size_t)(zs + k) * pl) : T(0);
        }
        for (int l0 = zs; l0 < ze; l0 += R) {
#pragma unroll
            for (int u = 0; u < R; ++u) {
                const int lz = l0 + u;
                if (lz >= ze) break;
                const ptrdiff_t qo = (ptrdiff_t)lz * pl;
                const T cur = r[(u + 1) % R];
                const T nw = hw ? value(qo + ow) : T(0);
                const T ne = he ? value(qo + oe) : T(0);
                const T ns = hs ? value(qo + os) : T(0);
                const T nn = hn ? value(qo + on) : T(0);
                T lap = (nw + ne) + (ns + nn);
                if (three) lap += r[u % R] + r[(u + 2) % R];
                lap -= diag * cur;
                const int iz = (int)p.z0 + lz;
                const bool edge = xy_edge || (three && (iz == 0 || iz == n - 1));
                const size_t o = (size_t)lz * pl + col;
                T ax;
                if (BC == MX_BC_FRAME && edge)
                    ax = T(0);
                else
                    ax = (p.coef == MX_COEF_FIELD ? (T)p.inv_h2 * coef[o] : scale) * lap;
                // The previous basis vector at this point: q_j (advance, from the ring) or
                // q_{j-1} (product, streamed).
                T prev = T(0);
                if (ADV) {
                    prev = rq[(u + 1) % R];
                    __stcs(q_next + o, cur);
                } else if (xq != nullptr) {
                    prev = a[u % R];
                    const int qa = lz + kPrevAhead;
                    a[(u + kPrevAhead) % R] =
                        qa < ze ? __ldcs(xq + col + (size_t)qa * pl) : T(0);
                }
                const T wv = sub ? mx::mad(nb_beta, prev, ax) : ax;
                __stcs(w + o, wv);
                const double cq = (double)cur, cw = (double)wv;
                acc_qw += cq * cw;
                acc_ww += cw * cw;
                acc_qq += cq * cq;
                if (three) {
                    // Slot u % R (plane lz - 1) is free: it takes plane lz - 1 + R. The
                    // advance then forms plane lz + 2 in place, loaded A planes ago.
                    load(u % R, lz - 1 + R);
                    if (ADV) r[(u + 3) % R] = form(rq[(u + 3) % R], r[(u + 3) % R]);
                }
                if (p.prefetch != 0u) {
                    const int qf = lz - 1 + R + (int)p.prefetch;
                    if (qf < ze) {
                        const size_t of = (size_t)qf * pl + col;
                        prefetch_l2(x + of);
                        if (ADV) prefetch_l2(xq + of);
                        else if (xq != nullptr) prefetch_l2(xq + of);
                    }
                }
            }
        }
    }
    double v[4] = {acc_qw, 0.0, acc_ww, acc_qq};
    block_store_any<4>(v, partials + 4 * (blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)));
}

// ---------------------------------------------------------------------------------------
// The combustion source g(u) = (2 - u) exp(20 (1 - 1/u)) / 4, full and fast.

// e^z as 2^k e^r, |r| <= ln2/2, degree-6 Taylor polynomial: the CPU's `fast_exp`.
__device__ __forceinline__ double fast_exp(double z) {
    if (z != z) return z;
    if (z > 709.0) return __longlong_as_double(0x7ff0000000000000LL);
    if (z < -708.0) return 0.0;
    const double k = rint(z * 1.4426950408889634);
    const double r = fma(-k, 0.6931471805599453, z);
    const double q =
        1.0 + r * (1.0 + r * (0.5 + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 +
                                                                             r / 720.0)))));
    return q * __longlong_as_double((long long)(k + 1023.0) << 52);
}

template <typename T, bool FAST> __device__ __forceinline__ T combustion(T u);
template <> __device__ __forceinline__ float combustion<float, false>(float u) {
    return 0.25f * (2.0f - u) * expf(20.0f * (1.0f - 1.0f / u));
}
template <> __device__ __forceinline__ float combustion<float, true>(float u) {
    return 0.25f * (2.0f - u) * __expf(20.0f * (1.0f - __fdividef(1.0f, u)));
}
template <> __device__ __forceinline__ double combustion<double, false>(double u) {
    return 0.25 * (2.0 - u) * exp(20.0 * (1.0 - 1.0 / u));
}
template <> __device__ __forceinline__ double combustion<double, true>(double u) {
    return 0.25 * (2.0 - u) * fast_exp(20.0 * (1.0 - 1.0 / u));
}

// y_i = g(x_i); the least index of a non-finite result goes to *first_bad (atomicMin).
template <typename T, bool FAST>
__device__ void pointwise(uint64_t n, const T *__restrict__ x, T *__restrict__ y,
                          unsigned long long *first_bad) {
    for (uint64_t i = mx::global_thread(); i < n; i += mx::grid_threads()) {
        const T v = combustion<T, FAST>(x[i]);
        y[i] = v;
        if (!isfinite(v)) atomicMin(first_bad, (unsigned long long)i);
    }
}

} // namespace mxs

// ---------------------------------------------------------------------------------------
// Unmangled entry points: stencil_{naive,opt,march}_<bc>_<scalar> with bc in dirichlet (b = 0
// or the precomputed vector), dirichletfn (the seed's functions in the kernel), neumann,
// periodic, frame; stencil_marchstack_<bc>_<scalar> (the stacked (alpha A + beta I) x
// product, bc in dirichlet, neumann, periodic); stencil_marchstep_<bc>_<scalar> (the fused
// step, bc without dirichletfn);
// stencil_marchlanczos_<bc>_<scalar> and stencil_marchadvance_<bc>_<scalar> (the Lanczos
// product with its sums and the deferred step's advance; bc as the fused step);
// combustion_{full,fast}_<scalar>; stencil_ssq_finish.

#define MX_STENCIL_BC(name, T, bcname, BC, FN)                                                     \
    extern "C" __global__ void stencil_naive_##bcname##_##name(                                  \
        MxStencilParams p, const T *x, const T *lo, const T *hi, const T *coef, const T *b,      \
        T *y) {                                                                                  \
        mxs::naive<T, BC, FN>(p, x, lo, hi, coef, b, y);                                         \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(MX_STENCIL_BX * MX_STENCIL_BY)                  \
        stencil_opt_##bcname##_##name(MxStencilParams p, const T *x, const T *lo, const T *hi,  \
                                      const T *coef, const T *b, T *y, T *acc,                   \
                                      MxSsqPartial *partials) {                                  \
        mxs::opt<T, BC, FN>(p, x, lo, hi, coef, b, y, acc, partials);                            \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(MX_MARCH_MAX_THREADS,                           \
                                                 (FN) ? 1 : MX_MARCH_MIN_BLOCKS)                 \
        stencil_march_##bcname##_##name(MxStencilParams p, const T *x, const T *lo,              \
                                        const T *hi, const T *coef, const T *b, T *y) {          \
        mxs::march<T, BC, FN, false, mxs::kMarchAhead<T, BC, FN>, mxs::kMarchNbAhead<T, BC, FN>>( \
            p, x, lo, hi, coef, b, y, nullptr, nullptr);                                         \
    }

// The stacked streaming product (the (alpha A + beta I) x product's common case).
#define MX_MARCH_STACK(name, T, bcname, BC)                                                      \
    extern "C" __global__ void __launch_bounds__(MX_STACK_THREADS, MX_STACK_MIN_BLOCKS)          \
        stencil_marchstack_##bcname##_##name(MxStencilParams p, const T *x, const T *lo,         \
                                             const T *hi, const T *coef, const T *b, T *y) {     \
        (void)b; /* the arguments of stencil_march_*: no boundary data in this kernel */        \
        mxs::march_stack<T, BC, MX_STACK_ROWS, 1>(p, x, lo, hi, coef, y);                        \
    }

// The fused step of the streaming kernel (no in-kernel boundary functions: the step is linear).
#define MX_MARCH_STEP(name, T, bcname, BC)                                                       \
    extern "C" __global__ void __launch_bounds__(MX_MARCH_MAX_THREADS, MX_MARCH_MIN_BLOCKS)      \
        stencil_marchstep_##bcname##_##name(MxStencilParams p, const T *x, const T *lo,          \
                                            const T *hi, const T *coef, T *y, T *acc,            \
                                            MxSsqPartial *partials) {                            \
        mxs::march<T, BC, false, true, mxs::kMarchStepAhead<T>, false>(p, x, lo, hi, coef,        \
                                                                       nullptr, y, acc,          \
                                                                       partials);                \
    }

// The Lanczos step of the streaming kernel: the product with its sums, and the advance of the
// deferred form (q_{j+1} formed where it is gathered). Linear variants, as the fused step.
#define MX_MARCH_LANCZOS(name, T, bcname, BC)                                                    \
    extern "C" __global__ void __launch_bounds__(MX_MARCH_MAX_THREADS, MX_MARCH_MIN_BLOCKS)      \
        stencil_marchlanczos_##bcname##_##name(MxStencilParams p, const T *q, const T *q_prev,   \
                                               const T *coef, const double *c, uint64_t j,       \
                                               T *w, double *partials) {                         \
        mxs::march_lanczos<T, BC, false, mxs::kMarchStepAhead<T>>(p, q, q_prev, coef, c, j,      \
                                                                  nullptr, nullptr, w, partials); \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(MX_MARCH_MAX_THREADS, MX_MARCH_MIN_BLOCKS)      \
        stencil_marchadvance_##bcname##_##name(MxStencilParams p, const T *w_prev, const T *q,   \
                                               const T *coef, const double *c, uint64_t j,       \
                                               const double *sums, T *q_next, T *w,              \
                                               double *partials) {                               \
        mxs::march_lanczos<T, BC, true, mxs::kMarchAdvanceAhead<T>>(p, w_prev, q, coef, c, j,    \
                                                                   sums, q_next, w, partials);   \
    }

#define MX_STENCIL(name, T)                                                                      \
    MX_STENCIL_BC(name, T, dirichlet, MX_BC_DIRICHLET, false)                                    \
    MX_STENCIL_BC(name, T, dirichletfn, MX_BC_DIRICHLET, true)                                   \
    MX_STENCIL_BC(name, T, neumann, MX_BC_NEUMANN, false)                                        \
    MX_STENCIL_BC(name, T, periodic, MX_BC_PERIODIC, false)                                      \
    MX_STENCIL_BC(name, T, frame, MX_BC_FRAME, false)                                            \
    MX_MARCH_STACK(name, T, dirichlet, MX_BC_DIRICHLET)                                          \
    MX_MARCH_STACK(name, T, neumann, MX_BC_NEUMANN)                                              \
    MX_MARCH_STACK(name, T, periodic, MX_BC_PERIODIC)                                            \
    MX_MARCH_STEP(name, T, dirichlet, MX_BC_DIRICHLET)                                           \
    MX_MARCH_STEP(name, T, neumann, MX_BC_NEUMANN)                                               \
    MX_MARCH_STEP(name, T, periodic, MX_BC_PERIODIC)                                             \
    MX_MARCH_STEP(name, T, frame, MX_BC_FRAME)                                                   \
    MX_MARCH_LANCZOS(name, T, dirichlet, MX_BC_DIRICHLET)                                        \
    MX_MARCH_LANCZOS(name, T, neumann, MX_BC_NEUMANN)                                            \
    MX_MARCH_LANCZOS(name, T, periodic, MX_BC_PERIODIC)                                          \
    MX_MARCH_LANCZOS(name, T, frame, MX_BC_FRAME)                                                \
    extern "C" __global__ void combustion_full_##name(uint64_t n, const T *x, T *y,              \
                                                      unsigned long long *first_bad) {           \
        mxs::pointwise<T, false>(n, x, y, first_bad);                                            \
    }                                                                                            \
    extern "C" __global__ void combustion_fast_##name(uint64_t n, const T *x, T *y,              \
                                                      unsigned long long *first_bad) {           \
        mxs::pointwise<T, true>(n, x, y, first_bad);                                             \
    }

MX_STENCIL(f32, float)
MX_STENCIL(f64, double)

// Sums per-block sums of squares in a fixed order into out[0] (one block of
// MX_REDUCE_THREADS threads): the norm of a fused step costs this launch and a 24-byte copy.
extern "C" __global__ void __launch_bounds__(MX_REDUCE_THREADS)
    stencil_ssq_finish(uint32_t count, const MxSsqPartial *partials, MxSsqPartial *out) {
    double v[3] = {0.0, 0.0, 0.0};
    for (uint32_t i = threadIdx.x; i < count; i += blockDim.x) {
        v[0] += partials[i].small;
        v[1] += partials[i].medium;
        v[2] += partials[i].big;
    }
    mx::block_sum<3>(v);
    if (threadIdx.x == 0) {
        out->small = v[0];
        out->medium = v[1];
        out->big = v[2];
    }
}
