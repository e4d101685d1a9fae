// Variants of the stencil's streaming (register-marching) product, timed against the
// project's kernel on one GPU: the record behind the "Tried" paragraph of the streaming
// kernel's comment in crates/stencil/kernels/stencil.cu (figures in
// bench-results/h200/stencil_march_variants.md).
//
// Build and run on the GPU host (CUDA 12+, sm_80 or later), from the repository root:
//   nvcc -std=c++17 -arch=sm_90 -O3 -Icuda-sys/kernels -Icuda-sys/include \
//        -Icrates/stencil/include -o /tmp/variants benches/experiments/stencil_march_variants.cu
//   /tmp/variants            (all variants, timed)
//   /tmp/variants all [carveout]           (all variants, the L1/shared split given in percent)
//   /tmp/variants reg|nb0|own|tile|lean [carveout]   (two launches of one f64 variant, for a profiler)
//
// Variants (homogeneous Dirichlet, unit coefficient, the (alpha A + beta I) x product):
// * reg: the project's `march` (column ring in registers, neighbours through L1).
// * tile D: the block's tile with its rim staged in a shared-memory ring of D planes by
//   cp.async, one barrier per plane, all seven operands from shared memory.
// * own D L S: the thread's own column in a shared-memory ring of D planes by cp.async (no
//   barrier), the in-plane neighbours loaded L planes ahead into registers; S: x-neighbours
//   by warp shuffles (lanes 0 and 31 load). mask: which neighbour loads are made (1 x, 2 y,
//   3 both); masks 0-2 compute a wrong product and only time what the loads cost.
// Every correct variant is checked bit for bit against `march`.
#include "../../crates/stencil/kernels/stencil.cu"
#include "harness.cuh"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace mxs {
// (alpha-free) A x of the unit-coefficient Dirichlet product, as `march` forms it.
template <typename T, int BC>
__device__ __forceinline__ T xp_ax(const MxStencilParams &p, bool edge, T scale, T lap) {
    if (BC == MX_BC_FRAME && edge) return T(0);
    return scale * lap;
}

// The streaming product with its planes staged in shared memory by asynchronous copies.
//
// `march` streams at 1.6x the bytes floor in f64 (3x in f32) because of its in-plane
// neighbours, not its bytes in flight: on an H200 at 256^3, the same kernel with the four
// neighbour loads left out runs at 1.18x. Each neighbour load is issued at most one plane
// ahead, and the tile's rim lines come from L2 (or DRAM, when the owner block is behind),
// so every warp waits on a rim latency per plane.
// Here the block's tile of each plane, with its one-point rim, is copied with cp.async
// (Ampere and later; no register held per load) into a ring of D tiles in shared memory,
// D - 4 planes ahead of z + 1, and all seven operands come from shared memory. A copy
// group per plane and one barrier per plane: after a thread's wait on its own groups, the
// barrier makes every thread's copies of plane z + 1 visible, and it also marks the tile of
// plane z - 2 as read by all, so that plane z - 2 + D may take its slot.
// Rim slots of a missing neighbour (Dirichlet or frame boundary) are zero in every tile,
// written once; planes outside the slab (halo planes, resolved boundary planes) are needed
// at the centre only and are stored directly.
template <typename T> __device__ __forceinline__ void cp_async(T *dst, const T *src) {
    const uint32_t d = (uint32_t)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2;" ::"r"(d), "l"(src), "n"(sizeof(T))
                 : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
    asm volatile("cp.async.commit_group;" ::: "memory");
}
template <int N> __device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}

// Tiles of the staged product's ring (D) and the largest block it takes (the ring's size).
template <typename T> constexpr int kTileRing = 8;
constexpr int kTileMaxX = 64, kTileMaxY = 8;

template <typename T, int BC, bool FN, int D>
__device__ void march_tile(const MxStencilParams &p, const T *__restrict__ x,
                           const T *__restrict__ lo, const T *__restrict__ hi,
                           const T *__restrict__ coef, const T *__restrict__ b,
                           T *__restrict__ y) {
    static_assert(D >= 5, "the ring holds planes z - 2 .. z + 1 and one in flight");
    __shared__ T ring[D][(kTileMaxY + 2) * (kTileMaxX + 2)];
    const int n = (int)p.n, nz = (int)p.nz;
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int ix = blockIdx.x * blockDim.x + tx, iy = blockIdx.y * blockDim.y + ty;
    const int w = (int)blockDim.x + 2; // tile row stride
    const int c = (ty + 1) * w + tx + 1; // this point in a tile
    const bool active = ix < n && iy < n;
    const bool three = p.dim == 3;
    const int zs = blockIdx.z * (int)p.zchunk;
    const int ze = min(zs + (int)p.zchunk, nz);
    const uint32_t pl = (uint32_t)n * (uint32_t)n;
    const uint32_t col = (uint32_t)min(iy, n - 1) * (uint32_t)n + (uint32_t)min(ix, n - 1);
    const T *__restrict__ xc = x + col;
    int ow = 0, oe = 0, os = 0, on = 0;
    const bool hw = neighbour<BC>(ix, ix - 1, n, 1, ow);
    const bool he = neighbour<BC>(ix, ix + 1, n, 1, oe);
    const bool hs = neighbour<BC>(iy, iy - 1, n, n, os);
    const bool hn = neighbour<BC>(iy, iy + 1, n, n, on);
    // The rim slots this thread fills: the tile's outer columns and rows, and the rim next to
    // the grid's last column or row where the tile is cut by the grid.
    const bool rw = active && tx == 0, re = active && (tx == (int)blockDim.x - 1 || ix == n - 1);
    const bool rs = active && ty == 0, rn = active && (ty == (int)blockDim.y - 1 || iy == n - 1);
    if (rw && !hw)
        for (int k = 0; k < D; ++k) ring[k][c - 1] = T(0);
    if (re && !he)
        for (int k = 0; k < D; ++k) ring[k][c + 1] = T(0);
    if (rs && !hs)
        for (int k = 0; k < D; ++k) ring[k][c - w] = T(0);
    if (rn && !hn)
        for (int k = 0; k < D; ++k) ring[k][c + w] = T(0);
    // Plane q (zs - 1 <= q) into its tile: the centre, and the rim for planes of the chunk.
    auto issue = [&](int q) {
        T *t = ring[(q - zs + 1) % D];
        if (active && q <= ze && (three || q == zs)) {
            if (q >= 0 && q < nz) {
                const T *xq = xc + (size_t)q * pl;
                cp_async(t + c, xq);
                if (q >= zs && q < ze) {
                    if (rw && hw) cp_async(t + c - 1, xq + ow);
                    if (re && he) cp_async(t + c + 1, xq + oe);
                    if (rs && hs) cp_async(t + c - w, xq + os);
                    if (rn && hn) cp_async(t + c + w, xq + on);
                }
            } else {
                t[c] = load_z<T, BC>(p, x, lo, hi, ix, iy, (int)p.z0 + q);
            }
        }
        cp_async_commit();
    };
    for (int q = zs - 1; q < zs - 2 + D; ++q) issue(q);
    const T alpha = (T)p.alpha, beta = (T)p.beta, diag = T(2 * p.dim);
    const T scale = p.coef == MX_COEF_FIELD ? T(0) : scale_at<T, BC>(p, coef, 0, ix, iy);
    const bool xy_edge = ix == 0 || iy == 0 || ix == n - 1 || iy == n - 1;
    for (int lz = zs; lz < ze; ++lz) {
        // Groups after plane lz + 1's: planes lz + 2 .. lz - 3 + D.
        cp_async_wait<D - 4>();
        __syncthreads();
        issue(lz - 2 + D);
        if (active) {
            const T *t = ring[(lz - zs + 1) % D];
            const T cur = t[c];
            T lap = (t[c - 1] + t[c + 1]) + (t[c - w] + t[c + w]);
            if (three) lap += ring[(lz - zs) % D][c] + ring[(lz - zs + 2) % D][c];
            lap -= diag * cur;
            const int iz = (int)p.z0 + lz;
            const bool edge = xy_edge || (three && (iz == 0 || iz == n - 1));
            const size_t o = (size_t)lz * pl + col;
            const T ax = xp_ax<T, BC>(p, edge, scale, lap);
            if (p.step)
                __stcs(y + o, alpha * ax + beta * cur);
            else
                __stcs(y + o, p.beta == 0.0 ? alpha * ax : alpha * ax + beta * y[o]);
        }
    }
    cp_async_wait<0>();
}

// Experimental: own column from a cp.async smem ring (D deep), in-plane neighbours loaded NBL
// planes ahead into a register ring; XSH: x-neighbours by shuffles, lanes 0/31 load.
template <typename T, int BC, int D, int NBL, bool XSH, int NBMASK>
__device__ void march_y(const MxStencilParams &p, const T *__restrict__ x, T *__restrict__ y) {
    __shared__ T ring[D][MX_MARCH_MAX_THREADS];
    const int n = (int)p.n, nz = (int)p.nz;
    const int ix = blockIdx.x * blockDim.x + threadIdx.x;
    const int iy = blockIdx.y * blockDim.y + threadIdx.y;
    const int tid = threadIdx.x + blockDim.x * threadIdx.y;
    const int lane = threadIdx.x & 31;
    const int zs = blockIdx.z * (int)p.zchunk;
    const int ze = min(zs + (int)p.zchunk, nz);
    const uint32_t pl = (uint32_t)n * (uint32_t)n;
    const uint32_t col = (uint32_t)iy * (uint32_t)n + (uint32_t)ix;
    const T *__restrict__ xc = x + col;
    int ow, oe, os, on;
    const bool hw = neighbour<BC>(ix, ix - 1, n, 1, ow);
    const bool he = neighbour<BC>(ix, ix + 1, n, 1, oe);
    const bool hs = neighbour<BC>(iy, iy - 1, n, n, os);
    const bool hn = neighbour<BC>(iy, iy + 1, n, n, on);
    const bool xon = NBMASK & 1, yon = NBMASK & 2;
    const bool lw = xon && (XSH ? (hw && lane == 0) : hw), le = xon && (XSH ? (he && lane == 31) : he);
    const bool ls = yon && hs, ln = yon && hn;
    const T alpha = (T)p.alpha, beta = (T)p.beta, diag = T(2 * p.dim);
    const T scale = scale_at<T, BC>(p, nullptr, 0, ix, iy);
    const bool xy_edge = ix == 0 || iy == 0 || ix == n - 1 || iy == n - 1;
    auto fetch = [&](int q) -> T {
        if (q > ze) return T(0);
        if (q >= 0 && q < nz) return __ldg(xc + (size_t)q * pl);
        return load_z<T, BC>(p, x, nullptr, nullptr, ix, iy, (int)p.z0 + q);
    };
    auto issue = [&](int q) {
        T *slot = &ring[(q - zs) % D][tid];
        if (q < nz && q <= ze) cp_async(slot, xc + (size_t)q * pl); else *slot = fetch(q);
        cp_async_commit();
    };
    T below = fetch(zs - 1), cur = fetch(zs);
#pragma unroll
    for (int k = 1; k < D; ++k) issue(zs + k);
    constexpr int R = NBL + 1;
    T nb[R][4];
    auto load_nb = [&](int slot, int q) {
        const T *xq = xc + (size_t)q * pl;
        nb[slot][0] = lw ? __ldg(xq + ow) : T(0);
        nb[slot][1] = le ? __ldg(xq + oe) : T(0);
        nb[slot][2] = ls ? __ldg(xq + os) : T(0);
        nb[slot][3] = ln ? __ldg(xq + on) : T(0);
    };
#pragma unroll
    for (int k = 0; k < NBL; ++k) if (zs + k < ze) load_nb(k, zs + k);
    for (int l0 = zs; l0 < ze; l0 += R) {
#pragma unroll
        for (int u = 0; u < R; ++u) {
            const int lz = l0 + u;
            if (lz >= ze) break;
            cp_async_wait<D - 2>();
            const T above = ring[(lz + 1 - zs) % D][tid];
            issue(lz + D);
            if (lz + NBL < ze) load_nb((u + NBL) % R, lz + NBL);
            const T *v = nb[u % R];
            T xw = v[0], xe = v[1];
            if (XSH) {
                const T sw = __shfl_up_sync(0xffffffffu, cur, 1), se = __shfl_down_sync(0xffffffffu, cur, 1);
                if (lane != 0) xw = hw ? sw : T(0);
                if (lane != 31) xe = he ? se : T(0);
            }
            T lap = (xw + xe) + (v[2] + v[3]);
            lap += below + above;
            lap -= diag * cur;
            const int iz = (int)p.z0 + lz;
            const bool edge = xy_edge || (iz == 0 || iz == n - 1);
            const size_t o = (size_t)lz * pl + col;
            const T ax = xp_ax<T, BC>(p, edge, scale, lap);
            __stcs(y + o, alpha * ax + beta * cur);
            below = cur;
            cur = above;
        }
    }
    cp_async_wait<0>();
}

// Lean addressing: the column's plane pointers advance by one plane per step (no 64-bit
// index products per load), the neighbours at fixed offsets of the centre pointer, and the
// uniform parameters (step form, coefficient kind, prefetch) resolved outside the loop.
template <typename T, int BC, int A, bool NBA, bool IMM = false, bool XSH = false>
__device__ void march_lean(const MxStencilParams &p, const T *__restrict__ x, T *__restrict__ y) {
    constexpr int R = A + 3;
    const int n = (int)p.n, nz = (int)p.nz;
    const int ix = blockIdx.x * blockDim.x + threadIdx.x;
    const int iy = blockIdx.y * blockDim.y + threadIdx.y;
    const int zs = blockIdx.z * (int)p.zchunk;
    const int ze = min(zs + (int)p.zchunk, nz);
    if (ix >= n || iy >= n || zs >= ze) return;
    const size_t pl = (size_t)n * (size_t)n;
    const size_t col = (size_t)iy * n + ix;
    int ow, oe, os, on;
    const bool hw = neighbour<BC>(ix, ix - 1, n, 1, ow);
    const bool he = neighbour<BC>(ix, ix + 1, n, 1, oe);
    const bool hs = neighbour<BC>(iy, iy - 1, n, n, os);
    const bool hn = neighbour<BC>(iy, iy + 1, n, n, on);
    const T alpha = (T)p.alpha, beta = (T)p.beta, diag = T(2 * p.dim);
    const T scale = scale_at<T, BC>(p, nullptr, 0, ix, iy);
    auto fetch = [&](int q) -> T {
        if (q > ze) return T(0);
        if (q >= 0 && q < nz) return __ldg(x + col + (size_t)q * pl);
        return load_z<T, BC>(p, x, nullptr, nullptr, ix, iy, (int)p.z0 + q);
    };
    T r[R];
#pragma unroll
    for (int k = 0; k < R; ++k) r[k] = fetch(zs - 1 + k);
    const T *__restrict__ xp = x + col + (size_t)zs * pl; // plane lz of the column
    T *__restrict__ yp = y + col + (size_t)zs * pl;
    const size_t ahead = (size_t)(R - 1) * pl; // plane lz - 1 + R from plane lz
    // The last plane the ring may load as a plain stream: later ones are resolved by fetch.
    const int plain_end = min(ze, nz - 1);
    T nb[4];
    const ptrdiff_t row = n;
    auto load_nb = [&](const T *q) {
        if (IMM) {
            // Dirichlet: a present neighbour is always at -1, +1, -n, +n.
            nb[0] = hw ? __ldg(q - 1) : T(0);
            nb[1] = he ? __ldg(q + 1) : T(0);
            nb[2] = hs ? __ldg(q - row) : T(0);
            nb[3] = hn ? __ldg(q + row) : T(0);
            return;
        }
        nb[0] = hw ? __ldg(q + ow) : T(0);
        nb[1] = he ? __ldg(q + oe) : T(0);
        nb[2] = hs ? __ldg(q + os) : T(0);
        nb[3] = hn ? __ldg(q + on) : T(0);
    };
    if (NBA) load_nb(xp);
    for (int l0 = zs; l0 < ze; l0 += R) {
#pragma unroll
        for (int u = 0; u < R; ++u) {
            const int lz = l0 + u;
            if (lz >= ze) break;
            const T cur = r[(u + 1) % R];
            if (XSH) {
                // x-neighbours from the lanes beside (their centre is in a register), the
                // warp's two ends loaded (one load, two lanes); needs whole warps in the grid.
                const int lane = threadIdx.x & 31;
                const bool end = (lane == 0 && hw) || (lane == 31 && he);
                const T fix = end ? __ldg(xp + (lane == 0 ? ow : oe)) : T(0);
                const T up = __shfl_up_sync(0xffffffffu, cur, 1);
                const T down = __shfl_down_sync(0xffffffffu, cur, 1);
                nb[0] = lane == 0 ? fix : up;
                nb[1] = lane == 31 ? fix : down;
                nb[2] = hs ? __ldg(xp + (IMM ? -row : (ptrdiff_t)os)) : T(0);
                nb[3] = hn ? __ldg(xp + (IMM ? row : (ptrdiff_t)on)) : T(0);
            } else if (!NBA) {
                load_nb(xp);
            }
            T lap = (nb[0] + nb[1]) + (nb[2] + nb[3]);
            if (NBA && lz + 1 < ze) load_nb(xp + pl);
            lap += r[u % R] + r[(u + 2) % R];
            lap -= diag * cur;
            __stcs(yp, alpha * (scale * lap) + beta * cur);
            const int q = lz - 1 + R;
            r[u % R] = q <= plain_end ? __ldg(xp + ahead) : fetch(q);
            xp += pl;
            yp += pl;
        }
    }
}
} // namespace mxs
template <typename T, int A, bool NBA, int B, bool IMM = false, bool XSH = false>
__global__ void __launch_bounds__(MX_MARCH_MAX_THREADS, B)
    klean(MxStencilParams p, const T *x, T *y) {
    mxs::march_lean<T, MX_BC_DIRICHLET, A, NBA, IMM, XSH>(p, x, y);
}

template <typename T, int D>
__global__ void __launch_bounds__(MX_MARCH_MAX_THREADS, MX_MARCH_MIN_BLOCKS)
    ktile(MxStencilParams p, const T *x, T *y) {
    mxs::march_tile<T, MX_BC_DIRICHLET, false, D>(p, x, nullptr, nullptr, nullptr, nullptr, y);
}
template <typename T, int A, bool NBA>
__global__ void __launch_bounds__(MX_MARCH_MAX_THREADS, MX_MARCH_MIN_BLOCKS)
    kreg(MxStencilParams p, const T *x, T *y) {
    mxs::march<T, MX_BC_DIRICHLET, false, false, A, NBA>(p, x, nullptr, nullptr, nullptr, nullptr,
                                                         y, nullptr, nullptr);
}
template <typename T, int D, int L, bool S, int M>
__global__ void __launch_bounds__(MX_MARCH_MAX_THREADS, MX_MARCH_MIN_BLOCKS)
    kown(MxStencilParams p, const T *x, T *y) {
    mxs::march_y<T, MX_BC_DIRICHLET, D, L, S, M>(p, x, y);
}

// The project's `march` and the shared-memory column ring under tighter register budgets
// (more resident warps per SM: B blocks of 512 threads).
template <typename T, int A, bool NBA, int B>
__global__ void __launch_bounds__(MX_MARCH_MAX_THREADS, B)
    kregb(MxStencilParams p, const T *x, T *y) {
    mxs::march<T, MX_BC_DIRICHLET, false, false, A, NBA>(p, x, nullptr, nullptr, nullptr, nullptr,
                                                         y, nullptr, nullptr);
}
template <typename T, int D, int L, int B>
__global__ void __launch_bounds__(MX_MARCH_MAX_THREADS, B)
    kownb(MxStencilParams p, const T *x, T *y) {
    mxs::march_y<T, MX_BC_DIRICHLET, D, L, false, 3>(p, x, y);
}

// The project's fused step (product, acc update and per-block sums of squares).
template <typename T>
__global__ void __launch_bounds__(MX_MARCH_MAX_THREADS, MX_MARCH_MIN_BLOCKS)
    kstep(MxStencilParams p, const T *x, T *y, T *acc, MxSsqPartial *partials) {
    mxs::march<T, MX_BC_DIRICHLET, false, true, mxs::kMarchStepAhead<T>, false>(
        p, x, nullptr, nullptr, nullptr, nullptr, y, acc, partials);
}
template <typename T> __global__ void fill(T *x, size_t n) {
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        x[i] = (T)sin(0.001 * (double)i);
}

// Median of 30 timed launches after 3 warm-ups, in microseconds.
// The L1 / shared-memory split asked of every timed kernel (percent shared; -1: the
// driver's choice).
static int g_carveout = -1;

template <typename T, typename K> float time_us(K kern, MxStencilParams p, const T *x, T *y, dim3 blk) {
    CK(cudaFuncSetAttribute((const void *)kern, cudaFuncAttributePreferredSharedMemoryCarveout,
                            g_carveout));
    dim3 grid((p.n + blk.x - 1) / blk.x, (p.n + blk.y - 1) / blk.y, (p.nz + p.zchunk - 1) / p.zchunk);
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    for (int i = 0; i < 3; ++i) kern<<<grid, blk>>>(p, x, y);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<float> t;
    for (int r = 0; r < 30; ++r) {
        cudaEventRecord(a);
        kern<<<grid, blk>>>(p, x, y);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms;
        cudaEventElapsedTime(&ms, a, b);
        t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2] * 1000.f;
}

template <typename T> bool same(const T *a, const T *b, size_t n) {
    std::vector<T> ha(n), hb(n);
    CK(cudaMemcpy(ha.data(), a, n * sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hb.data(), b, n * sizeof(T), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i)
        if (ha[i] != hb[i]) return false;
    return true;
}

// The project's default chunking (march_zchunk of crates/stencil/src/gpu/mod.rs).
int zchunk_for(int n, dim3 blk, int sms, int per_sm = 1024) {
    const int threads = blk.x * blk.y, resident = sms * (per_sm / threads);
    const int tiles = ((n + blk.x - 1) / blk.x) * ((n + blk.y - 1) / blk.y);
    const int chunks = std::max(1, std::min(n, resident / tiles));
    return (n + chunks - 1) / chunks;
}

template <typename T> void run(int N, int sms, double copy_gbps) {
    const size_t n = (size_t)N * N * N;
    T *x, *y, *y2;
    CK(cudaMalloc(&x, n * sizeof(T)));
    CK(cudaMalloc(&y, n * sizeof(T)));
    CK(cudaMalloc(&y2, n * sizeof(T)));
    fill<<<1024, 256>>>(x, n);
    const double floor_us = 2.0 * n * sizeof(T) / copy_gbps * 1e-3;
    const char *prec = sizeof(T) == 8 ? "f64" : "f32";
    printf("\n%s, N = %d, bytes floor %.1f us (2 vectors at %.0f GB/s)\n", prec, N, floor_us,
           copy_gbps);
    printf("%-8s %-22s %9s %7s %s\n", "block", "variant", "us", "floor x", "product");
    MxStencilParams p{};
    p.n = N, p.nz = N, p.dim = 3, p.bfun = MX_BFUN_NONE, p.coef = MX_COEF_UNIT, p.step = 1;
    p.h = 1.0 / (N + 1), p.inv_h2 = (N + 1.0) * (N + 1.0), p.alpha = 1e-6, p.beta = 1.0;
    for (dim3 g : {dim3(32, 8), dim3(64, 8), dim3(256, 2), dim3(32, 16), dim3(128, 4)}) {
        p.zchunk = zchunk_for(N, g, sms);
        char blk[16];
        snprintf(blk, sizeof blk, "%dx%d", g.x, g.y);
        const float tr = sizeof(T) == 8 ? time_us<T>(kreg<T, 2, false>, p, x, y, g)
                                        : time_us<T>(kreg<T, 6, true>, p, x, y, g);
        printf("%-8s %-22s %9.1f %7.2f reference\n", blk, "reg (march)", tr, tr / floor_us);
        if (g.x * g.y <= 512) {
            // The fused step at the project's chunking: y must equal the product's.
            T *acc;
            MxSsqPartial *parts;
            CK(cudaMalloc(&acc, n * sizeof(T)));
            CK(cudaMalloc(&parts, 65536 * sizeof(MxSsqPartial)));
            CK(cudaMemset(acc, 0, n * sizeof(T)));
            dim3 grid((p.n + g.x - 1) / g.x, (p.n + g.y - 1) / g.y, (p.nz + p.zchunk - 1) / p.zchunk);
            cudaEvent_t e0, e1;
            cudaEventCreate(&e0);
            cudaEventCreate(&e1);
            std::vector<float> ts;
            p.coeff = 0.5;
            for (int r = 0; r < 33; ++r) {
                cudaEventRecord(e0);
                kstep<T><<<grid, g>>>(p, x, y2, acc, parts);
                cudaEventRecord(e1);
                cudaEventSynchronize(e1);
                float ms;
                cudaEventElapsedTime(&ms, e0, e1);
                if (r >= 3) ts.push_back(ms * 1000.f);
            }
            CK(cudaGetLastError());
            std::sort(ts.begin(), ts.end());
            const float t = ts[ts.size() / 2];
            printf("%-8s %-22s %9.1f %7.2f %s (4-vector floor x %.2f)\n", blk, "fused step (march)", t,
                   t / floor_us, same(y, y2, n) ? "y identical" : "y DIFFERS", t / (2 * floor_us));
            cudaFree(acc);
            cudaFree(parts);
        }
        auto show = [&](const char *name, float t, bool exact) {
            printf("%-8s %-22s %9.1f %7.2f %s\n", blk, name, t, t / floor_us,
                   exact ? (same(y, y2, n) ? "identical" : "DIFFERS") : "(timing only)");
        };
#define TILE(D)                                                                                  \
    if constexpr (D * sizeof(T) * (mxs::kTileMaxX + 2) * (mxs::kTileMaxY + 2) <= 49152)          \
        if (g.x <= mxs::kTileMaxX && g.y <= mxs::kTileMaxY)                                      \
            show("tile D=" #D, time_us<T>(ktile<T, D>, p, x, y2, g), true);
#define OWN(D, L, S, M) show("own D=" #D " L=" #L " S=" #S " mask=" #M, time_us<T>(kown<T, D, L, S, M>, p, x, y2, g), M == 3);
        TILE(6) TILE(8)
        if (g.x * g.y <= 512) {
            const unsigned zc = p.zchunk;
#define BUDGET(NAME, KERN, B)                                                                    \
    p.zchunk = zchunk_for(N, g, sms, 512 * B);                                                   \
    show(NAME, time_us<T>(KERN, p, x, y2, g), true);
            if constexpr (sizeof(T) == 8) {
                BUDGET("reg 3 blocks/SM", (kregb<T, 2, false, 3>), 3)
                BUDGET("reg 4 blocks/SM", (kregb<T, 2, false, 4>), 4)
                BUDGET("reg A=1 4 blocks/SM", (kregb<T, 1, false, 4>), 4)
            } else {
                BUDGET("reg 3 blocks/SM", (kregb<T, 6, true, 3>), 3)
                BUDGET("reg 4 blocks/SM", (kregb<T, 6, true, 4>), 4)
                BUDGET("reg A=3 4 blocks/SM", (kregb<T, 3, true, 4>), 4)
            }
            BUDGET("own D=4 L=1 3 blk/SM", (kownb<T, 4, 1, 3>), 3)
            BUDGET("own D=4 L=1 4 blk/SM", (kownb<T, 4, 1, 4>), 4)
            BUDGET("own D=6 L=2 3 blk/SM", (kownb<T, 6, 2, 3>), 3)
            BUDGET("own D=6 L=2 4 blk/SM", (kownb<T, 6, 2, 4>), 4)
            BUDGET("lean A=1 2 blk/SM", (klean<T, 1, false, 2>), 2)
            BUDGET("lean A=2 2 blk/SM", (klean<T, 2, false, 2>), 2)
            BUDGET("lean A=3 2 blk/SM", (klean<T, 3, false, 2>), 2)
            BUDGET("lean A=2 NBA 2 blk/SM", (klean<T, 2, true, 2>), 2)
            BUDGET("lean A=1 shfl 2 blk/SM", (klean<T, 1, false, 2, true, true>), 2)
            BUDGET("lean A=2 shfl 2 blk/SM", (klean<T, 2, false, 2, true, true>), 2)
            BUDGET("lean A=1 imm 2 blk/SM", (klean<T, 1, false, 2, true>), 2)
            BUDGET("lean A=2 imm 2 blk/SM", (klean<T, 2, false, 2, true>), 2)
            BUDGET("lean A=1 3 blk/SM", (klean<T, 1, false, 3>), 3)
            BUDGET("lean A=2 3 blk/SM", (klean<T, 2, false, 3>), 3)
            BUDGET("lean A=1 NBA 3 blk/SM", (klean<T, 1, true, 3>), 3)
            BUDGET("lean A=2 NBA 3 blk/SM", (klean<T, 2, true, 3>), 3)
            BUDGET("lean A=1 4 blk/SM", (klean<T, 1, false, 4>), 4)
            BUDGET("lean A=4 NBA 2 blk/SM", (klean<T, 4, true, 2>), 2)
            BUDGET("lean A=6 NBA 2 blk/SM", (klean<T, 6, true, 2>), 2)
            p.zchunk = zc;
        }
        OWN(3, 1, false, 3) OWN(3, 2, false, 3) OWN(3, 3, false, 3) OWN(4, 2, true, 3) OWN(6, 3, true, 3)
        OWN(4, 1, false, 0) OWN(8, 1, false, 0) OWN(4, 1, false, 1) OWN(4, 1, false, 2)
    }
    cudaFree(x);
    cudaFree(y);
    cudaFree(y2);
}

// One launch of one variant (for a profiler): f64, N = 256, 32x8 blocks.
int profile_one(const char *which) {
    const int N = 256;
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const size_t n = (size_t)N * N * N;
    double *x, *y;
    CK(cudaMalloc(&x, n * sizeof(double)));
    CK(cudaMalloc(&y, n * sizeof(double)));
    fill<<<1024, 256>>>(x, n);
    MxStencilParams p{};
    p.n = N, p.nz = N, p.dim = 3, p.bfun = MX_BFUN_NONE, p.coef = MX_COEF_UNIT, p.step = 1;
    p.h = 1.0 / (N + 1), p.inv_h2 = (N + 1.0) * (N + 1.0), p.alpha = 1e-6, p.beta = 1.0;
    const dim3 g(32, 8);
    p.zchunk = zchunk_for(N, g, sms);
    const dim3 grid(N / g.x, N / g.y, (N + p.zchunk - 1) / p.zchunk);
    const std::string w(which);
    if (g_carveout >= 0) {
        CK(cudaFuncSetAttribute((const void *)kreg<double, 2, false>,
                                cudaFuncAttributePreferredSharedMemoryCarveout, g_carveout));
        CK(cudaFuncSetAttribute((const void *)klean<double, 1, false, 2>,
                                cudaFuncAttributePreferredSharedMemoryCarveout, g_carveout));
    }
    for (int r = 0; r < 2; ++r) {
        if (w == "reg") kreg<double, 2, false><<<grid, g>>>(p, x, y);
        else if (w == "nb0") kown<double, 4, 1, false, 0><<<grid, g>>>(p, x, y);
        else if (w == "own") kown<double, 4, 1, false, 3><<<grid, g>>>(p, x, y);
        else if (w == "tile") ktile<double, 8><<<grid, g>>>(p, x, y);
        else if (w == "lean") klean<double, 1, false, 2><<<grid, g>>>(p, x, y);
        else return 2;
    }
    CK(cudaDeviceSynchronize());
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 2) g_carveout = atoi(argv[2]);
    if (argc > 1 && std::string(argv[1]) == "all") {
        // Every variant under the given carveout.
    } else if (argc > 1) {
        return profile_one(argv[1]);
    }
    int sms = 0;
    const double gbps = print_device_and_floor(sms);
    run<double>(256, sms, gbps);
    run<float>(256, sms, gbps);
    return 0;
}
