/*
 * Parameter structs of the stencil kernels (crates/stencil/kernels/stencil.cu), shared with
 * their Rust mirror in crates/stencil/src/gpu/params.rs (whose test checks the field list
 * against this header, and whose const assertions check the layout).
 * Passed by value: fixed-width fields only, explicit padding, 8-byte aligned doubles.
 */
#ifndef MATEXP_STENCIL_PARAMS_H
#define MATEXP_STENCIL_PARAMS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Boundary kinds (template argument of the kernels; same order as the Rust enum). */
#define MX_BC_DIRICHLET 0
#define MX_BC_NEUMANN 1
#define MX_BC_PERIODIC 2
#define MX_BC_FRAME 3

/** Boundary terms of a Dirichlet product: none, the seed's two functions evaluated in the
 *  kernel, or a precomputed vector b read next to the boundary only. */
#define MX_BFUN_NONE 0
#define MX_BFUN_POLYNOMIAL 1
#define MX_BFUN_SINE_EXP 2
#define MX_BFUN_VECTOR 3

/** Coefficients: D = 1, the seed's 1/sqrt(1 + x^2 + y^2) evaluated in the kernel, or a
 *  field read per point. */
#define MX_COEF_UNIT 0
#define MX_COEF_SEED 1
#define MX_COEF_FIELD 2

/** Tile of the optimized (2.5D) kernel: threads per block in x and y. */
#define MX_STENCIL_BX 32
#define MX_STENCIL_BY 8

/** Streaming (marching) kernel: the largest block it may be launched with, and the blocks
 *  per SM its registers must allow (512 x 2: at most 64 registers, 1024 threads per SM). */
#define MX_MARCH_MAX_THREADS 512
#define MX_MARCH_MIN_BLOCKS 2

/** Stacked streaming product (the (alpha A + beta I) x product's common case): threads per
 *  block, blocks per SM its registers must allow (256 x 3: at most 80 registers), and the
 *  grid rows each thread owns, stacked along y. */
#define MX_STACK_THREADS 256
#define MX_STACK_MIN_BLOCKS 3
#define MX_STACK_ROWS 4

/**
 * One stencil launch over planes [z0, z0 + nz) of an n^dim grid (dim 2: one plane).
 *   apply (step == 0): y <- alpha * (D * h^-2 * L x + b) + beta * y   (y not read if beta == 0)
 *   step  (step == 1): y <- alpha * D * h^-2 * L x + beta * x, the (alpha A + beta I) x of
 *                      seed 003; when acc is not NULL also acc <- acc + coeff * y and the
 *                      per-block sums of squares of y into partials (the fused step)
 * The naive kernel has no acc: its step form is the (alpha A + beta I) x product only.
 * x, y, acc, coef, b point at plane z0 (local slab); halo_lo / halo_hi are the planes
 * below and above the slab when another device owns them (NULL otherwise).
 */
typedef struct MxStencilParams {
    /** Points per axis. */
    uint32_t n;
    /** Planes handled (the slab). */
    uint32_t nz;
    /** Global index of the slab's first plane. */
    uint32_t z0;
    /** 2 or 3. */
    uint32_t dim;
    /** MX_BFUN_*. */
    uint32_t bfun;
    /** MX_COEF_*. */
    uint32_t coef;
    /** Planes marched by one block of the optimized kernel. */
    uint32_t zchunk;
    /** 1 for the fused step, 0 for the product. */
    uint32_t step;
    /** Streaming kernels: planes beyond the register ring to prefetch into L2 (0: none). */
    uint32_t prefetch;
    /** Unused (keeps the doubles 8-byte aligned). */
    uint32_t reserved;
    /** Grid spacing h. */
    double h;
    /** h^-2. */
    double inv_h2;
    /** alpha. */
    double alpha;
    /** beta (product) or the shift (step). */
    double beta;
    /** coeff (step only). */
    double coeff;
} MxStencilParams;

#ifdef __cplusplus
}
#endif

#endif
