/*
 * Parameter structs shared by the matexp CUDA kernels and their Rust callers.
 *
 * This header is the single definition: kernels include it, and the Rust mirrors in
 * cuda-sys/src/bindings.rs are generated from it by `cargo xtask cuda --bindgen`.
 * Structs are passed to kernels by value, so their layout must be identical on the host
 * (x86-64 System V) and on the device; only fixed-width fields and explicit padding are used.
 *
 * Device pointers are not part of these structs: they are separate, typed kernel arguments
 * so that the kernel signatures document element types.
 */
#ifndef MATEXP_PARAMS_H
#define MATEXP_PARAMS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A scalar argument of any precision, carried as a double-precision complex number.
 * Kernels of precision f32 / c32 round it to their own type; real kernels ignore `im`.
 */
typedef struct MxScalar {
    /** Real part. */
    double re;
    /** Imaginary part (ignored by real kernels). */
    double im;
} MxScalar;

/**
 * Level-1 operations on vectors of length n:
 *   fill:  x <- alpha
 *   scale: x <- alpha * x
 *   axpby: y <- alpha * x + beta * y   (y is not read when beta == 0)
 */
typedef struct MxBlas1Params {
    /** Vector length. */
    uint64_t n;
    /** alpha (the fill value for fill). */
    MxScalar alpha;
    /** beta (axpby only). */
    MxScalar beta;
} MxBlas1Params;

/**
 * CSR sparse matrix times vector, y <- alpha * A * x + beta * y (y not read when beta == 0).
 * `lanes_log2` selects how many consecutive threads share a row (1 << lanes_log2, at most
 * 32); the "scalar" kernels ignore it (one thread per row).
 */
typedef struct MxSpmvParams {
    /** Rows of A (and of y) handled by the launch. */
    uint64_t nrows;
    /** log2 of the threads per row (vector kernels), 0..=5. */
    uint32_t lanes_log2;
    /** Padding; set to 0. */
    uint32_t reserved;
    /** alpha. */
    MxScalar alpha;
    /** beta; 0 means y is write-only. */
    MxScalar beta;
} MxSpmvParams;

/**
 * One fused Newton-Leja step on a CSR matrix (rows [0, nrows) of y_next and p):
 *   y_next <- inv_gamma * A * y_prev + shift * y_prev
 *   p      <- p + coeff * y_next
 * and per-block partial sums of squares of y_next (see MxSsqPartial).
 */
typedef struct MxLejaParams {
    /** Rows handled by the launch. */
    uint64_t nrows;
    /** log2 of the threads per row, 0..=5. */
    uint32_t lanes_log2;
    /** Padding; set to 0. */
    uint32_t reserved;
    /** 1/gamma, the interval scaling. */
    MxScalar inv_gamma;
    /** -c/gamma - xi_{m-1}. */
    MxScalar shift;
    /** d_m, the divided difference. */
    MxScalar coeff;
} MxLejaParams;

/**
 * Overflow-safe partial sum of squares (Blue's algorithm, as in LAPACK's dnrm2 of 2017):
 * components with |a| > TBIG are accumulated as (a * SBIG)^2 in `big`, those with
 * |a| < TSML as (a * SSML)^2 in `small`, the rest as a^2 in `medium` (constants below).
 * All scalings are powers of two, so no rounding is added; the three sums are combined
 * once at the end. Partials are sums, so partials of several blocks (or devices) combine
 * by adding them field by field.
 */
typedef struct MxSsqPartial {
    /** Sum of (a * SSML)^2 over tiny components. */
    double small;
    /** Sum of a^2 over mid-range components. */
    double medium;
    /** Sum of (a * SBIG)^2 over huge components. */
    double big;
} MxSsqPartial;

/*
 * Thresholds and scalings of MxSsqPartial for IEEE double (radix 2, 53 digits), given as
 * base-2 exponents (bindgen mirrors integer macros exactly; kernels form the powers of two
 * at compile time).
 */
/** Components above 2^MX_SSQ_TBIG_EXP2 go to `big`. */
#define MX_SSQ_TBIG_EXP2 486
/** Components below 2^MX_SSQ_TSML_EXP2 go to `small`. */
#define MX_SSQ_TSML_EXP2 (-511)
/** `big` components are scaled by 2^MX_SSQ_SBIG_EXP2 before squaring. */
#define MX_SSQ_SBIG_EXP2 (-538)
/** `small` components are scaled by 2^MX_SSQ_SSML_EXP2 before squaring. */
#define MX_SSQ_SSML_EXP2 537

/** Threads per block of every reduction kernel (and of the SpMV and Leja kernels). */
#define MX_REDUCE_THREADS 256
/** The most blocks a partial pass (reduction or fused Leja step) launches. */
#define MX_MAX_PARTIALS 16384

#ifdef __cplusplus
}
#endif

#endif /* MATEXP_PARAMS_H */
