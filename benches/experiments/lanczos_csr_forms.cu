// Forms of one Lanczos step on a CSR matrix, timed kernel by kernel on one GPU against the
// plain SpMV (seed 000's Table 12 matrix: the 3D 7-point Laplacian at N = 256, f64 values,
// u32 indices). Figures in bench-results/h200/lanczos_csr_forms.md.
//
// * product + update (what `Lanczos` runs on `GpuCsr`): spmv_csr_lanczos (w = A q_j -
//   beta_j q_{j-1} with the step's sums), then a pass w <- (w - alpha_j q_j) / beta_{j+1}
//   (reads w and q_j, writes q_{j+1}: the bytes of the Pythagorean update).
// * deferred, formed (spmv_csr_lanczos_advance): q_{j+1} formed where it is gathered from
//   w_j and q_j (two gathered vectors), written by the row's owner.
// * deferred, pairs (this program's candidate): w_j and q_j stored interleaved, one 16-byte
//   gather per entry forms q_{j+1}; the row's owner writes q_{j+1} (the basis) and the pair
//   (w_{j+1}, q_{j+1}) for the next step: one gathered stream, one vector more written.
//
// Build and run on the GPU host, from the repository root:
//   nvcc -std=c++17 -arch=sm_90 -O3 -Icuda-sys/kernels -Icuda-sys/include \
//        -o /tmp/forms benches/experiments/lanczos_csr_forms.cu && /tmp/forms [grids]
#include "../../cuda-sys/kernels/spmv.cu"
#include "harness.cuh"
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

namespace mx {
// The pair form's advance: P holds (w_j, q_j) per row; q_{j+1} = (w_j - alpha q_j) / beta is
// formed at every gathered index; y = A q_{j+1} - beta q_j; q_next[row] = q_{j+1}[row];
// Pn[row] = (y, q_{j+1}[row]); per-block sums as spmv_lanczos_body.
__device__ void spmv_lanczos_pairs(uint64_t nrows, uint32_t lanes_log2,
                                   const uint32_t *__restrict__ row_ptr,
                                   const uint32_t *__restrict__ col_idx,
                                   const double *__restrict__ values, double neg_alpha,
                                   double inv_beta, double beta, const double2 *__restrict__ P,
                                   double *__restrict__ q_next, double2 *__restrict__ Pn,
                                   double *__restrict__ partials) {
    const unsigned lanes = 1u << lanes_log2;
    const unsigned lane = threadIdx.x & (lanes - 1);
    const uint64_t rows_per_block = blockDim.x >> lanes_log2;
    double v[4] = {0.0, 0.0, 0.0, 0.0};
    for (uint64_t base = blockIdx.x * rows_per_block; base < nrows;
         base += (uint64_t)gridDim.x * rows_per_block) {
        const uint64_t row = base + (threadIdx.x >> lanes_log2);
        const bool mine = lane == 0 && row < nrows;
        const double2 own = mine ? __ldg(P + row) : make_double2(0.0, 0.0);
        double s = 0.0;
        if (row < nrows) {
            const uint32_t end = row_ptr[row + 1];
            for (uint32_t j = row_ptr[row] + lane; j < end; j += lanes) {
                const double2 pc = __ldg(P + col_idx[j]);
                s = fma(values[j], lanczos_next(neg_alpha, inv_beta, pc.y, pc.x), s);
            }
        }
        s = group_sum(s, lanes);
        if (mine) {
            const double xr = lanczos_next(neg_alpha, inv_beta, own.y, own.x);
            s = fma(-beta, own.y, s);
            q_next[row] = xr;
            Pn[row] = make_double2(s, xr);
            lanczos_sums_add(v, xr, s);
        }
    }
    block_sum<4>(v);
    if (threadIdx.x == 0) {
#pragma unroll
        for (int k = 0; k < 4; ++k) partials[4 * blockIdx.x + k] = v[k];
    }
}
} // namespace mx

__global__ void __launch_bounds__(MX_REDUCE_THREADS)
    kplain(MxSpmvParams p, const uint32_t *rp, const uint32_t *ci, const double *va,
           const double *x, double *y) {
    mx::spmv_vector<double, uint32_t, true>(p, rp, ci, va, x, y);
}
__global__ void __launch_bounds__(MX_REDUCE_THREADS)
    kpairs(uint64_t n, uint32_t l, const uint32_t *rp, const uint32_t *ci, const double *va,
           double na, double ib, double b, const double2 *P, double *qn, double2 *Pn,
           double *parts) {
    mx::spmv_lanczos_pairs(n, l, rp, ci, va, na, ib, b, P, qn, Pn, parts);
}
// The update's bytes: w <- (w - alpha q) / beta.
__global__ void kupdate(uint64_t n, double na, double ib, const double *q, double *w) {
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x)
        w[i] = mx::lanczos_next(na, ib, q[i], w[i]);
}
__global__ void kfill(double *x, uint64_t n, uint64_t salt) {
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
         i += (uint64_t)gridDim.x * blockDim.x)
        x[i] = 1.0 + 1e-3 * (double)(((i + salt) * 2654435761ull) % 1000);
}

template <typename F> float time_us(F launch, int reps = 30) {
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    for (int i = 0; i < 3; ++i) launch();
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<float> t;
    for (int r = 0; r < reps; ++r) {
        cudaEventRecord(a);
        for (int i = 0; i < 10; ++i) launch();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms;
        cudaEventElapsedTime(&ms, a, b);
        t.push_back(ms * 100.f);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

// The fused product's time against its grid (thread per row), each grid timed in three
// passes over the list, so that drifts show as spread: `forms grids`.
int grid_sweep(uint64_t n, const uint32_t *drp, const uint32_t *dci, const double *dva,
               const double *c, const double *q, const double *qp, double *y, double *parts) {
    const unsigned grids[] = {8192, 12288, 16384, 20480, 24576, 32768, 40960, 49152, 65536};
    std::vector<std::vector<float>> t(sizeof grids / sizeof grids[0]);
    for (int pass = 0; pass < 3; ++pass)
        for (size_t i = 0; i < t.size(); ++i)
            t[i].push_back(time_us([&] {
                spmv_csr_lanczos_f64_u32<<<grids[i], MX_REDUCE_THREADS>>>(n, 0, drp, dci, dva, c, 1,
                                                                         q, qp, y, parts);
            }));
    printf("\nproduct (thread per row) by grid, three passes, us per launch:\n");
    for (size_t i = 0; i < t.size(); ++i)
        printf("  grid %-6u %7.1f %7.1f %7.1f\n", grids[i], t[i][0], t[i][1], t[i][2]);
    return 0;
}

int main(int argc, char **argv) {
    const bool sweep = argc > 1 && std::string(argv[1]) == "grids";
    const int N = 256;
    const uint64_t n = (uint64_t)N * N * N;
    // The Dirichlet Laplacian scaled by (N + 1)^2, rows in natural order.
    std::vector<uint32_t> rp(n + 1), ci;
    std::vector<double> va;
    ci.reserve(7 * n);
    va.reserve(7 * n);
    const double s = (N + 1.0) * (N + 1.0);
    rp[0] = 0;
    for (int z = 0; z < N; ++z)
        for (int y = 0; y < N; ++y)
            for (int x = 0; x < N; ++x) {
                const uint64_t i = ((uint64_t)z * N + y) * N + x;
                auto add = [&](uint64_t c, double v) {
                    ci.push_back((uint32_t)c);
                    va.push_back(v);
                };
                if (z > 0) add(i - (uint64_t)N * N, s);
                if (y > 0) add(i - N, s);
                if (x > 0) add(i - 1, s);
                add(i, -6.0 * s);
                if (x < N - 1) add(i + 1, s);
                if (y < N - 1) add(i + N, s);
                if (z < N - 1) add(i + (uint64_t)N * N, s);
                rp[i + 1] = (uint32_t)ci.size();
            }
    const uint64_t nnz = ci.size();
    uint32_t *drp, *dci;
    double *dva, *q, *qp, *w, *y, *qn, *parts, *c;
    double2 *P, *Pn;
    CK(cudaMalloc(&drp, (n + 1) * 4));
    CK(cudaMalloc(&dci, nnz * 4));
    CK(cudaMalloc(&dva, nnz * 8));
    for (double **v : {&q, &qp, &w, &y, &qn}) CK(cudaMalloc(v, n * 8));
    CK(cudaMalloc(&P, n * 16));
    CK(cudaMalloc(&Pn, n * 16));
    CK(cudaMalloc(&parts, (n / 8 + 1) * 4 * 8)); // up to one row of sums per block of the full grid
    CK(cudaMalloc(&c, 64 * 8));
    CK(cudaMemcpy(drp, rp.data(), (n + 1) * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dci, ci.data(), nnz * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dva, va.data(), nnz * 8, cudaMemcpyHostToDevice));
    kfill<<<1024, 256>>>(q, n, 1);
    kfill<<<1024, 256>>>(qp, n, 2);
    kfill<<<1024, 256>>>(w, n, 3);
    kfill<<<1024, 256>>>((double *)P, 2 * n, 4);
    std::vector<double> hc(64, 0.5);
    CK(cudaMemcpy(c, hc.data(), 64 * 8, cudaMemcpyHostToDevice));
    double *sums;
    CK(cudaMalloc(&sums, 8 * 8));
    CK(cudaMemset(sums, 0, 8 * 8));
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const double gbps = copy_gbps();
    const double vec_us = 8.0 * n / gbps * 1e-3;
    printf("N = %d: %llu rows, %llu entries; 2 GiB copy %.0f GB/s (one vector read or written: "
           "%.1f us)\n",
           N, (unsigned long long)n, (unsigned long long)nnz, gbps, vec_us);
    if (sweep) return grid_sweep(n, drp, dci, dva, c, q, qp, y, parts);
    for (uint32_t lanes_log2 : {0u, 1u, 2u, 3u}) {
        const uint64_t rows_per_block = MX_REDUCE_THREADS >> lanes_log2;
        const uint64_t full = (n + rows_per_block - 1) / rows_per_block;
        const unsigned capped = (unsigned)std::min<uint64_t>(full, MX_MAX_PARTIALS);
        MxSpmvParams p{};
        p.nrows = n;
        p.lanes_log2 = lanes_log2;
        p.alpha = MxScalar{1.0, 0.0};
        p.beta = MxScalar{0.0, 0.0};
        const float plain = time_us([&] {
            kplain<<<(unsigned)full, MX_REDUCE_THREADS>>>(p, drp, dci, dva, q, y);
        });
        const float product = time_us([&] {
            spmv_csr_lanczos_f64_u32<<<capped, MX_REDUCE_THREADS>>>(n, lanes_log2, drp, dci, dva,
                                                                   c, 1, q, qp, y, parts);
        });
        const float update = time_us([&] { kupdate<<<sms * 8, 256>>>(n, -0.5, 2.0, q, w); });
        const float formed = time_us([&] {
            spmv_csr_lanczos_advance_f64_u32<<<capped, MX_REDUCE_THREADS>>>(
                n, lanes_log2, drp, dci, dva, c, 1, sums, q, w, qn, y, parts);
        });
        const float pairs = time_us([&] {
            kpairs<<<capped, MX_REDUCE_THREADS>>>(n, lanes_log2, drp, dci, dva, -0.5, 2.0, 0.5, P,
                                                  qn, Pn, parts);
        });
        printf("\nlanes %u (grid %llu plain, %u fused), times per launch, 10 back to back:\n",
               1u << lanes_log2, (unsigned long long)full, capped);
        printf("  plain SpMV                  %7.1f us\n", plain);
        printf("  product (q_{j-1} + sums)    %7.1f us  (%.2fx plain)\n", product, product / plain);
        printf("  update pass (3 vectors)     %7.1f us  (%.2f vectors' time)\n", update,
               update / vec_us);
        printf("  product + update            %7.1f us  (%.2fx plain)\n", product + update,
               (product + update) / plain);
        printf("  deferred, formed            %7.1f us  (%.2fx plain)\n", formed, formed / plain);
        printf("  deferred, pairs             %7.1f us  (%.2fx plain)\n", pairs, pairs / plain);
        if (lanes_log2 == 0) {
            const float scalar = time_us([&] {
                spmv_csr_scalar_f64_u32<<<(unsigned)((n + 255) / 256), 256>>>(p, drp, dci, dva, q,
                                                                              y);
            });
            printf("  plain SpMV, scalar kernel   %7.1f us  (the project's Auto mapping here)\n",
                   scalar);
        }
        for (unsigned g : {capped * 2u, capped * 4u, capped * 8u, capped * 16u}) {
            if (g > full) continue;
            const float t = time_us([&] {
                spmv_csr_lanczos_f64_u32<<<g, MX_REDUCE_THREADS>>>(n, lanes_log2, drp, dci, dva, c,
                                                                   1, q, qp, y, parts);
            });
            printf("  product, grid %-13u %7.1f us  (%.2fx plain)\n", g, t, t / plain);
        }
        for (unsigned g : {capped / 2, capped * 2u, capped * 4u}) {
            if (g == 0 || g > full) continue;
            const float t = time_us([&] {
                kpairs<<<g, MX_REDUCE_THREADS>>>(n, lanes_log2, drp, dci, dva, -0.5, 2.0, 0.5, P, qn,
                                                 Pn, parts);
            });
            printf("  deferred, pairs, grid %-6u %7.1f us  (%.2fx plain)\n", g, t, t / plain);
        }
    }
    return 0;
}
