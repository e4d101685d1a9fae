// Real matrices acting on complex vectors (the "rcsr" kernels of spmv.cu and leja.cu): the
// mixed multiply-add and the instantiation list. Kept out of common.cuh so that the kernels
// of other crates, which include common.cuh, do not depend on it.
#pragma once

#include "common.cuh"

namespace mx {

// a * b + c with a real a and complex b, c: two real multiply-adds, the same bits as
// mad(a + 0i, b, c) for finite values (the zero terms add exact zeros).
__device__ __forceinline__ float2 mad(float a, float2 b, float2 c) {
    return make_float2(fmaf(a, b.x, c.x), fmaf(a, b.y, c.y));
}
__device__ __forceinline__ double2 mad(double a, double2 b, double2 c) {
    return make_double2(fma(a, b.x, c.x), fma(a, b.y, c.y));
}

} // namespace mx

// X(name, type, real type, iname, itype) for each complex scalar and index type: values of
// the real type, vectors of the complex one.
#define MX_FOR_EACH_COMPLEX_INDEX(X)                                                             \
    X(c32, float2, float, u32, uint32_t)                                                         \
    X(c64, double2, double, u32, uint32_t)                                                       \
    X(c32, float2, float, u64, uint64_t)                                                         \
    X(c64, double2, double, u64, uint64_t)
