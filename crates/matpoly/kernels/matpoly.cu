// The two dense-matrix operations of matexp-matpoly that cuBLAS has no routine for.
//
// * matpoly_add_diag_<s>: A <- A + alpha * I[:, col0 .. col0 + ncols], i.e. alpha added to
//   the entries (col0 + j, j) of a column-major nrows x ncols block; one thread per entry.
// * matpoly_col_abs_sum_<s>: out[j] = sum_i |a_ij| in double precision, one 256-thread block
//   per column (the host takes the maximum: the 1-norm). NaN propagates into the sums.
//
// * matpoly_lincomb_<s>: OUT <- [acc ? OUT : alpha0 * I[:, col0 ..]] + sum_k c_k M_k for up to
//   MXP_TERMS matrices in ONE pass: each M_k read once, OUT written once (the Paterson-Stockmeyer
//   blocks and the Sastre combinations, formerly a memset and one axpy per term, 3 matrix
//   transfers each). Rows on threadIdx/blockIdx.x (coalesced, column-major), columns on
//   blockIdx.y with a stride loop; the identity's entry is the test row == col0 + column, free.
//   More terms than MXP_TERMS: the host chains launches with acc = 1 (reads OUT back).
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

#define MXP_TERMS 8

// The term pointers and coefficients travel by value in the parameter space (no device-side
// table to upload per launch): 8 addresses and 8 (re, im) pairs.
struct mxp_ptrs {
    unsigned long long p[MXP_TERMS];
};
template <typename R> struct mxp_coefs {
    R c[2 * MXP_TERMS];
};

template <typename R, int W>
__device__ void lincomb(R *out, long long nrows, long long ncols, long long col0, int nterms,
                        int acc, R a0r, R a0i, const mxp_ptrs &ptrs, const mxp_coefs<R> &cf) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nrows) return;
    for (long long j = blockIdx.y; j < ncols; j += gridDim.y) {
        const long long idx = i + j * nrows;
        R vr, vi = 0;
        if (acc) {
            vr = out[W * idx];
            if (W == 2) vi = out[W * idx + 1];
        } else {
            const bool diag = (i == col0 + j);
            vr = diag ? a0r : (R)0;
            vi = diag ? a0i : (R)0;
        }
#pragma unroll
        for (int k = 0; k < MXP_TERMS; ++k) {
            if (k < nterms) {
                const R *m = reinterpret_cast<const R *>(ptrs.p[k]);
                const R cr = cf.c[2 * k];
                if (W == 1) {
                    vr += cr * __ldg(m + idx);
                } else {
                    const R ci = cf.c[2 * k + 1];
                    const R mr = __ldg(m + 2 * idx), mi = __ldg(m + 2 * idx + 1);
                    vr += cr * mr - ci * mi;
                    vi += cr * mi + ci * mr;
                }
            }
        }
        out[W * idx] = vr;
        if (W == 2) out[W * idx + 1] = vi;
    }
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
    }                                                                                            \
    extern "C" __global__ void __launch_bounds__(256) matpoly_lincomb_##S(                       \
        R *out, long long nrows, long long ncols, long long col0, int nterms, int acc, R a0r,    \
        R a0i, mxp::mxp_ptrs ptrs, mxp::mxp_coefs<R> cf) {                                       \
        mxp::lincomb<R, W>(out, nrows, ncols, col0, nterms, acc, a0r, a0i, ptrs, cf);            \
    }

MXP_INSTANTIATE(f32, float, 1)
MXP_INSTANTIATE(f64, double, 1)
MXP_INSTANTIATE(c32, float, 2)
MXP_INSTANTIATE(c64, double, 2)
