// The streaming stencil product with each thread owning CY columns stacked along y, timed
// against the project's `march` on one GPU (homogeneous Dirichlet, unit coefficient, the
// (alpha A + beta I) x product, 3D). Figures in bench-results/h200/stencil_march_coarse.md.
//
// Why: in `march` every point loads its four in-plane neighbours through L1, one of the two
// y-neighbours of a 256x2 tile from the rim (L2). With CY columns per thread, the
// y-neighbours inside the thread's stack are its own ring registers: per point 2/CY rim
// loads instead of 1 and no y-load inside the stack; each thread also has CY times the
// ring loads in flight. XSH: the x-neighbours by warp shuffles of the centre (the warp's two
// ends load theirs), as in the variants program's `shfl`.
//
// Build and run on the GPU host, from the repository root:
//   nvcc -std=c++17 -arch=sm_90 -O3 -Icuda-sys/kernels -Icuda-sys/include \
//        -Icrates/stencil/include -o /tmp/coarse benches/experiments/stencil_march_coarse.cu
//   /tmp/coarse
// Every variant is checked bit for bit against `march` (the same sums in the same order).
#include "../../crates/stencil/kernels/stencil.cu"
#include "harness.cuh"
#include <algorithm>
#include <cstdio>
#include <vector>

namespace mxs {
template <typename T, int CY, int A, bool XSH>
__device__ void march_coarse(const MxStencilParams &p, const T *__restrict__ x,
                             T *__restrict__ y) {
    constexpr int BC = MX_BC_DIRICHLET;
    constexpr int R = A + 3;
    const int n = (int)p.n, nz = (int)p.nz;
    const int ix = blockIdx.x * blockDim.x + threadIdx.x;
    const int iy0 = (blockIdx.y * blockDim.y + threadIdx.y) * CY;
    const int zs = blockIdx.z * (int)p.zchunk;
    const int ze = min(zs + (int)p.zchunk, nz);
    // XSH needs every lane of a warp in the shuffles: no early return for them (the grid
    // covers n exactly in this program; a guard keeps other lanes from memory).
    const bool live = ix < n && iy0 + CY - 1 < n && zs < ze;
    if (!XSH && !live) return;
    const size_t pl = (size_t)n * (size_t)n;
    const ptrdiff_t row = n;
    const bool hw = ix > 0, he = ix < n - 1, hs = iy0 > 0, hn = iy0 + CY < n;
    const T alpha = (T)p.alpha, beta = (T)p.beta, diag = T(6);
    T scale[CY];
#pragma unroll
    for (int c = 0; c < CY; ++c) scale[c] = scale_at<T, BC>(p, nullptr, 0, ix, iy0 + c);
    const size_t col = (size_t)iy0 * n + ix;
    auto fetch = [&](int q, int c) -> T {
        if (!live || q > ze) return T(0);
        if (q >= 0 && q < nz) return __ldg(x + col + (size_t)c * n + (size_t)q * pl);
        return load_z<T, BC>(p, x, nullptr, nullptr, ix, iy0 + c, (int)p.z0 + q);
    };
    T r[R][CY];
#pragma unroll
    for (int k = 0; k < R; ++k)
#pragma unroll
        for (int c = 0; c < CY; ++c) r[k][c] = fetch(zs - 1 + k, c);
    const T *__restrict__ xp = x + col + (size_t)zs * pl;
    T *__restrict__ yp = y + col + (size_t)zs * pl;
    const size_t ahead = (size_t)(R - 1) * pl;
    const int plain_end = min(ze, nz - 1);
    const int lane = threadIdx.x & 31;
    for (int l0 = zs; l0 < ze; l0 += R) {
#pragma unroll
        for (int u = 0; u < R; ++u) {
            const int lz = l0 + u;
            if (lz >= ze) break;
            T nb[CY][2];
            if (XSH) {
#pragma unroll
                for (int c = 0; c < CY; ++c) {
                    const T cur = r[(u + 1) % R][c];
                    const T up = __shfl_up_sync(0xffffffffu, cur, 1);
                    const T down = __shfl_down_sync(0xffffffffu, cur, 1);
                    const bool end = live && ((lane == 0 && hw) || (lane == 31 && he));
                    const T fix = end ? __ldg(xp + c * row + (lane == 0 ? -1 : 1)) : T(0);
                    nb[c][0] = lane == 0 ? fix : up;
                    nb[c][1] = lane == 31 ? fix : down;
                }
            } else {
#pragma unroll
                for (int c = 0; c < CY; ++c) {
                    nb[c][0] = hw ? __ldg(xp + c * row - 1) : T(0);
                    nb[c][1] = he ? __ldg(xp + c * row + 1) : T(0);
                }
            }
            const T south = hs && live ? __ldg(xp - row) : T(0);
            const T north = hn && live ? __ldg(xp + CY * row) : T(0);
#pragma unroll
            for (int c = 0; c < CY; ++c) {
                const T cur = r[(u + 1) % R][c];
                const T s = c > 0 ? r[(u + 1) % R][c - 1] : south;
                const T nn = c < CY - 1 ? r[(u + 1) % R][c + 1] : north;
                T lap = (nb[c][0] + nb[c][1]) + (s + nn);
                lap += r[u % R][c] + r[(u + 2) % R][c];
                lap -= diag * cur;
                if (live) __stcs(yp + c * row, alpha * (scale[c] * lap) + beta * cur);
            }
            const int q = lz - 1 + R;
#pragma unroll
            for (int c = 0; c < CY; ++c)
                r[u % R][c] = q <= plain_end ? (live ? __ldg(xp + c * row + ahead) : T(0))
                                             : fetch(q, c);
            xp += pl;
            yp += pl;
        }
    }
}
// Any boundary kind: the x-neighbours at run-time offsets (XM = 0: offset added to each
// load's address), through two running pointers to the west and east columns (XM = 1,
// advanced with the centre's), or (XM = 2) at the interior's fixed offsets with the grid's
// edge columns and rows resolved apart: Neumann takes the centre's own register, periodic a
// load at the run-time offset, predicated to the edge lanes.
template <typename T, int BC, int CY, int A, int XM>
__device__ void march_coarse_bc(const MxStencilParams &p, const T *__restrict__ x,
                                T *__restrict__ y) {
    constexpr int R = A + 3;
    const int n = (int)p.n, nz = (int)p.nz;
    const int ix = blockIdx.x * blockDim.x + threadIdx.x;
    const int iy0 = (blockIdx.y * blockDim.y + threadIdx.y) * CY;
    const int zs = blockIdx.z * (int)p.zchunk;
    const int ze = min(zs + (int)p.zchunk, nz);
    if (ix >= n || iy0 >= n || zs >= ze) return;
    const size_t pl = (size_t)n * (size_t)n;
    const ptrdiff_t row = n;
    int ow, oe, os, on;
    const bool hw = neighbour<BC>(ix, ix - 1, n, 1, ow);
    const bool he = neighbour<BC>(ix, ix + 1, n, 1, oe);
    const bool hs = neighbour<BC>(iy0, iy0 - 1, n, n, os);
    const bool hn = neighbour<BC>(iy0 + CY - 1, iy0 + CY, n, n, on);
    const bool iw = ix > 0, ie = ix < n - 1, is = iy0 > 0, in = iy0 + CY < n;
    const T alpha = (T)p.alpha, beta = (T)p.beta, diag = T(6);
    T scale[CY];
#pragma unroll
    for (int c = 0; c < CY; ++c) scale[c] = scale_at<T, BC>(p, nullptr, 0, ix, iy0 + c);
    const size_t col = (size_t)iy0 * n + ix;
    auto fetch = [&](int q, int c) -> T {
        if (q > ze) return T(0);
        if (q >= 0 && q < nz) return __ldg(x + col + (size_t)c * n + (size_t)q * pl);
        return load_z<T, BC>(p, x, nullptr, nullptr, ix, iy0 + c, (int)p.z0 + q);
    };
    T r[R][CY];
#pragma unroll
    for (int k = 0; k < R; ++k)
#pragma unroll
        for (int c = 0; c < CY; ++c) r[k][c] = fetch(zs - 1 + k, c);
    const T *__restrict__ xp = x + col + (size_t)zs * pl;
    const T *__restrict__ xw = xp + ow;
    const T *__restrict__ xe = xp + oe;
    T *__restrict__ yp = y + col + (size_t)zs * pl;
    const size_t ahead = (size_t)(R - 1) * pl;
    const int plain_end = min(ze, nz - 1);
    const ptrdiff_t south = os, north = (CY - 1) * row + on;
    for (int l0 = zs; l0 < ze; l0 += R) {
#pragma unroll
        for (int u = 0; u < R; ++u) {
            const int lz = l0 + u;
            if (lz >= ze) break;
            T w[CY], e[CY];
            T s0, nl;
            if (XM == 2) {
                // The edge's value: 0 (Dirichlet), the point itself (Neumann), the load at
                // the wrapped offset (periodic).
                auto edge = [&](const T *q, int off, T self) -> T {
                    if (BC == MX_BC_NEUMANN) return self;
                    if (BC == MX_BC_PERIODIC) return __ldg(q + off);
                    return T(0);
                };
#pragma unroll
                for (int c = 0; c < CY; ++c) {
                    const T *q = xp + c * row;
                    const T cur = r[(u + 1) % R][c];
                    w[c] = iw ? __ldg(q - 1) : edge(q, ow, cur);
                    e[c] = ie ? __ldg(q + 1) : edge(q, oe, cur);
                }
                s0 = is ? __ldg(xp - row) : edge(xp, os, r[(u + 1) % R][0]);
                nl = in ? __ldg(xp + CY * row) : edge(xp + (CY - 1) * row, on, r[(u + 1) % R][CY - 1]);
            } else {
#pragma unroll
                for (int c = 0; c < CY; ++c) {
                    w[c] = hw ? __ldg(XM == 1 ? xw + c * row : xp + c * row + ow) : T(0);
                    e[c] = he ? __ldg(XM == 1 ? xe + c * row : xp + c * row + oe) : T(0);
                }
                s0 = hs ? __ldg(xp + south) : T(0);
                nl = hn ? __ldg(xp + north) : T(0);
            }
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
            const int q = lz - 1 + R;
#pragma unroll
            for (int c = 0; c < CY; ++c)
                r[u % R][c] = q <= plain_end ? __ldg(xp + c * row + ahead) : fetch(q, c);
            xp += pl;
            yp += pl;
            if (XM == 1) {
                xw += pl;
                xe += pl;
            }
        }
    }
}
} // namespace mxs

template <typename T, int A, bool NBA>
__global__ void __launch_bounds__(MX_MARCH_MAX_THREADS, MX_MARCH_MIN_BLOCKS)
    kreg(MxStencilParams p, const T *x, T *y) {
    mxs::march<T, MX_BC_DIRICHLET, false, false, A, NBA>(p, x, nullptr, nullptr, nullptr, nullptr,
                                                         y, nullptr, nullptr);
}
template <typename T, int BC, int A>
__global__ void __launch_bounds__(MX_MARCH_MAX_THREADS, MX_MARCH_MIN_BLOCKS)
    kregbc(MxStencilParams p, const T *x, T *y) {
    mxs::march<T, BC, false, false, A, false>(p, x, nullptr, nullptr, nullptr, nullptr, y,
                                              nullptr, nullptr);
}
template <typename T, int BC, int XM>
__global__ void __launch_bounds__(MX_STACK_THREADS, MX_STACK_MIN_BLOCKS)
    kstackbc(MxStencilParams p, const T *x, T *y) {
    mxs::march_coarse_bc<T, BC, MX_STACK_ROWS, 1, XM>(p, x, y);
}
template <typename T, int BC>
__global__ void __launch_bounds__(MX_STACK_THREADS, MX_STACK_MIN_BLOCKS)
    kstackproj(MxStencilParams p, const T *x, T *y) {
    mxs::march_stack<T, BC, MX_STACK_ROWS, 1>(p, x, nullptr, nullptr, nullptr, y);
}
template <typename T, int CY, int A, bool XSH, int THREADS, int B>
__global__ void __launch_bounds__(THREADS, B) kcoarse(MxStencilParams p, const T *x, T *y) {
    mxs::march_coarse<T, CY, A, XSH>(p, x, y);
}

// Medians of 30 isolated launches and of 30 batches of 10 back to back (per launch).
template <typename T, typename K>
void time_us(K kern, dim3 grid, dim3 blk, MxStencilParams p, const T *x, T *y, float &iso,
             float &b2b) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    for (int i = 0; i < 3; ++i) kern<<<grid, blk>>>(p, x, y);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<float> t, tb;
    for (int r = 0; r < 30; ++r) {
        float ms;
        cudaEventRecord(a);
        kern<<<grid, blk>>>(p, x, y);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        cudaEventElapsedTime(&ms, a, b);
        t.push_back(ms * 1000.f);
        cudaEventRecord(a);
        for (int i = 0; i < 10; ++i) kern<<<grid, blk>>>(p, x, y);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        cudaEventElapsedTime(&ms, a, b);
        tb.push_back(ms * 100.f);
    }
    std::sort(t.begin(), t.end());
    std::sort(tb.begin(), tb.end());
    iso = t[t.size() / 2];
    b2b = tb[tb.size() / 2];
}

template <typename T> bool same(const T *a, const T *b, size_t n) {
    std::vector<T> ha(n), hb(n);
    CK(cudaMemcpy(ha.data(), a, n * sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hb.data(), b, n * sizeof(T), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i)
        if (ha[i] != hb[i]) return false;
    return true;
}

template <typename T> __global__ void fill(T *x, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        x[i] = T(1) + T(0.001) * T((i * 2654435761u) % 1000);
}

// Planes per block so that the grid fills every SM once (march_zchunk of the stencil crate).
int zchunk_fill(int n, int tiles, int resident) {
    const int chunks = std::max(1, std::min(n, resident / std::max(1, tiles)));
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
    printf("\n%s, N = %d, bytes floor %.1f us (2 vectors at %.0f GB/s)\n",
           sizeof(T) == 8 ? "f64" : "f32", N, floor_us, copy_gbps);
    printf("%-34s %8s %6s %8s %6s %s\n", "variant", "us", "floor", "b2b us", "floor", "y");
    MxStencilParams p{};
    p.n = N, p.nz = N, p.dim = 3, p.bfun = MX_BFUN_NONE, p.coef = MX_COEF_UNIT, p.step = 1;
    p.h = 1.0 / (N + 1), p.inv_h2 = (N + 1.0) * (N + 1.0), p.alpha = 1e-6, p.beta = 1.0;
    // Reference: the project's march, 256x2 blocks, 2 blocks of 512 per SM.
    {
        const dim3 g(256, 2);
        p.zchunk = zchunk_fill(N, (N / 256) * (N / 2), sms * 2);
        const dim3 grid(N / g.x, N / g.y, (N + p.zchunk - 1) / p.zchunk);
        float iso, b2b;
        time_us(kreg<T, 2, false>, grid, g, p, x, y, iso, b2b);
        printf("%-34s %8.1f %6.2f %8.1f %6.2f reference (zchunk %u)\n", "march 256x2", iso,
               iso / floor_us, b2b, b2b / floor_us, p.zchunk);
    }
    auto show = [&](const char *name, auto kern, dim3 g, int cy, int blocks_per_sm, int chunks_mult) {
        const int tiles = (N / g.x) * (N / (g.y * cy));
        p.zchunk = zchunk_fill(N, tiles, sms * blocks_per_sm * chunks_mult);
        const dim3 grid(N / g.x, N / (g.y * cy), (N + p.zchunk - 1) / p.zchunk);
        CK(cudaMemset(y2, 0xff, n * sizeof(T)));
        float iso, b2b;
        time_us(kern, grid, g, p, x, y2, iso, b2b);
        cudaFuncAttributes fa;
        cudaFuncGetAttributes(&fa, (const void *)kern);
        printf("%-34s %8.1f %6.2f %8.1f %6.2f %s (zchunk %u, %d regs, %zu B local)\n", name, iso,
               iso / floor_us, b2b, b2b / floor_us, same(y, y2, n) ? "identical" : "DIFFERS",
               p.zchunk, fa.numRegs, (size_t)fa.localSizeBytes);
    };
#define V(CY, A, XSH, BX, BY, B, M)                                                              \
    show("CY=" #CY " A=" #A " xsh=" #XSH " " #BX "x" #BY " B=" #B " w=" #M,                      \
         kcoarse<T, CY, A, XSH, BX * BY, B>, dim3(BX, BY), CY, B, M);
    V(2, 1, false, 256, 2, 2, 1)
    V(2, 2, false, 256, 2, 2, 1)
    V(2, 1, true, 256, 2, 2, 1)
    V(2, 2, true, 256, 2, 2, 1)
    V(2, 2, false, 256, 2, 2, 2)
    V(2, 1, false, 256, 1, 4, 1)
    V(2, 2, false, 256, 1, 4, 1)
    V(2, 2, true, 256, 1, 4, 1)
    V(4, 1, false, 256, 1, 4, 1)
    V(4, 1, false, 256, 1, 3, 1)
    V(4, 2, false, 256, 1, 3, 1)
    V(4, 1, true, 256, 1, 3, 1)
    V(4, 2, true, 256, 1, 3, 1)
    V(4, 1, false, 256, 2, 2, 1)
    V(4, 1, true, 256, 2, 2, 1)
    V(4, 1, false, 256, 1, 2, 1)
    V(4, 2, false, 256, 1, 2, 1)
    V(4, 2, false, 256, 1, 2, 2)
    V(8, 1, false, 256, 1, 2, 1)
    V(8, 1, true, 256, 1, 2, 1)
    V(8, 1, false, 128, 1, 4, 1)
    // Neumann and periodic: march, the project's stacked kernel and the two x-neighbour forms.
    auto bc_rows = [&](const char *bc, auto kmarch, auto kproj, auto koff, auto kptr, auto kpred) {
        {
            const dim3 g(256, 2);
            p.zchunk = zchunk_fill(N, (N / 256) * (N / 2), sms * 2);
            const dim3 grid(N / g.x, N / g.y, (N + p.zchunk - 1) / p.zchunk);
            float iso, b2b;
            time_us(kmarch, grid, g, p, x, y, iso, b2b);
            printf("%-10s %-23s %8.1f %6.2f %8.1f %6.2f reference\n", bc, "march 256x2", iso,
                   iso / floor_us, b2b, b2b / floor_us);
        }
        show("  stack (project)", kproj, dim3(256, 1), 4, 3, 1);
        show("  stack, offsets per load", koff, dim3(256, 1), 4, 3, 1);
        show("  stack, west/east pointers", kptr, dim3(256, 1), 4, 3, 1);
        show("  stack, edges apart", kpred, dim3(256, 1), 4, 3, 1);
    };
    bc_rows("neumann", kregbc<T, MX_BC_NEUMANN, 2>, kstackproj<T, MX_BC_NEUMANN>,
            kstackbc<T, MX_BC_NEUMANN, 0>, kstackbc<T, MX_BC_NEUMANN, 1>,
            kstackbc<T, MX_BC_NEUMANN, 2>);
    bc_rows("periodic", kregbc<T, MX_BC_PERIODIC, 2>, kstackproj<T, MX_BC_PERIODIC>,
            kstackbc<T, MX_BC_PERIODIC, 0>, kstackbc<T, MX_BC_PERIODIC, 1>,
            kstackbc<T, MX_BC_PERIODIC, 2>);
    bc_rows("dirichlet", kregbc<T, MX_BC_DIRICHLET, 2>, kstackproj<T, MX_BC_DIRICHLET>,
            kstackbc<T, MX_BC_DIRICHLET, 0>, kstackbc<T, MX_BC_DIRICHLET, 1>,
            kstackbc<T, MX_BC_DIRICHLET, 2>);
    cudaFree(x);
    cudaFree(y);
    cudaFree(y2);
}

int main() {
    int sms = 0;
    const double gbps = print_device_and_floor(sms);
    run<double>(256, sms, gbps);
    run<float>(256, sms, gbps);
    return 0;
}
