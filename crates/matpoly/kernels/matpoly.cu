// The two dense-matrix operations of matexp-matpoly that cuBLAS has no routine for.
//
// * matpoly_add_diag_<s>: A <- A + alpha * I[:, col0 .. col0 + ncols], i.e. alpha added to
//   the entries (col0 + j, j) of a column-major nrows x ncols block; one thread per entry.
// * matpoly_col_abs_sum_<s>: out[j] = sum_i |a_ij| in double precision, one 256-thread block
//   per column (the host takes the maximum: the 1-norm). NaN propagates into the sums.
//
// Complex matrices are interleaved (re, im) pairs of the real type; alpha comes as its real
// and imaginary parts so that one signature serves all four scalar types.

namespace mxp {

template <typename R, int W>
__device__ void add_diag(R *a, long long nrows, long long col0, long long count, R ar, R ai) {
    const long long j = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (j < count) {
        const long long idx = (col0 + j) + j * nrows;
        a[W * idx] += ar;
        if (W == 2) a[W * idx + 1] += ai;
    }
}

template <typename R, int W>
__device__ void col_abs_sum(const R *a, long long nrows, double *out) {
    __shared__ double partial[256];
    const R *col = a + (long long)W * blockIdx.x * nrows;
    double s = 0.0;
    for (long long i = threadIdx.x; i < nrows; i += blockDim.x) {
        if (W == 1) {
            s += fabs((double)col[i]);
        } else {
            s += hypot((double)col[2 * i], (double)col[2 * i + 1]);
        }
    }
    partial[threadIdx.x] = s;
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
        if (threadIdx.x < k) partial[threadIdx.x] += partial[threadIdx.x + k];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

} // namespace mxp

#define MXP_INSTANTIATE(S, R, W)                                                                 \
    extern "C" __global__ void matpoly_add_diag_##S(R *a, long long nrows, long long col0,       \
                                                    long long count, R ar, R ai) {               \
        mxp::add_diag<R, W>(a, nrows, col0, count, ar, ai);                                      \
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(256)                                            \
        matpoly_col_abs_sum_##S(const R *a, long long nrows, double *out) {                      \
        mxp::col_abs_sum<R, W>(a, nrows, out);                                                   \
    }

MXP_INSTANTIATE(f32, float, 1)
MXP_INSTANTIATE(f64, double, 1)
MXP_INSTANTIATE(c32, float, 2)
MXP_INSTANTIATE(c64, double, 2)
