//! The CUDA kernels of matexp, as portable PTX, and the Rust mirrors of their parameter
//! structs.
//!
//! * Kernel sources live in `kernels/*.cu`; the structs passed to them by value are declared
//!   once in `include/matexp_params.h` and mirrored in [`bindings`] by bindgen
//!   (`cargo xtask cuda --bindgen`), with compile-time layout assertions.
//! * `cargo xtask cuda` compiles every kernel with the pinned `nvcc` (warnings are errors) to
//!   PTX for `compute_80`, which the driver JIT-compiles for the GPU at hand (Ampere,
//!   Hopper, ...), and prints the register / spill report of an `sm_90` build. The PTX is
//!   committed under `ptx/` and embedded here, so this crate builds without any CUDA
//!   toolkit; `cargo xtask cuda --check` fails when the committed PTX is stale.
//!
//! Kernel names are unmangled: `<kernel>_<scalar>` for vector kernels and
//! `<kernel>_<scalar>_<index>` for sparse ones, with scalar ∈ {`f32`, `f64`, `c32`, `c64`}
//! (complex as `float2` / `double2`, real part first) and index ∈ {`u32`, `u64`}.
//!
//! This crate only carries the text; `matexp-gpu` loads it (`matexp_gpu::kernels`), and
//! other crates ship PTX of their own the same way (see `crates/gpu/README.md`).
//!
//! ```
//! use matexp_cuda_sys::{MODULES, SPMV};
//! assert!(SPMV.entries().any(|e| e == "spmv_csr_vector_c64_u32"));
//! assert_eq!(MODULES.len(), 4);
//! ```

#[rustfmt::skip]
pub mod bindings;

pub use bindings::*;

/// One compiled kernel file: its name (the `.cu` stem) and PTX text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PtxModule {
    /// Stem of the source file, e.g. `spmv` for `kernels/spmv.cu`.
    pub name: &'static str,
    /// PTX text (ISA version 9.0, target `sm_80`), NUL-free.
    pub ptx: &'static str,
}

impl PtxModule {
    /// Names of the kernels (`.entry` directives) in the module.
    pub fn entries(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.ptx.lines().filter_map(|l| {
            let rest = l.trim_start().strip_prefix(".visible .entry ")?;
            Some(rest.split('(').next().unwrap_or(rest).trim())
        })
    }
}

/// Level-1 kernels: `fill_S`, `scale_S`, `axpby_S`.
pub const BLAS1: PtxModule = PtxModule {
    name: "blas1",
    ptx: include_str!("../ptx/blas1.ptx"),
};

/// Reductions: `dot_partial_S`, `nrm2_partial_S`, `amax_partial_S`, `sum_partial_S`,
/// `finish_sum`, `finish_max`.
pub const REDUCE: PtxModule = PtxModule {
    name: "reduce",
    ptx: include_str!("../ptx/reduce.ptx"),
};

/// CSR SpMV: `spmv_{csr,pattern}_{scalar,vector}_S_I`, and `spmv_rcsr_*_S_I` (real values,
/// complex `S`).
pub const SPMV: PtxModule = PtxModule {
    name: "spmv",
    ptx: include_str!("../ptx/spmv.ptx"),
};

/// Fused Newton–Leja steps: `leja_{csr,pattern,rcsr}_S_I`.
pub const LEJA: PtxModule = PtxModule {
    name: "leja",
    ptx: include_str!("../ptx/leja.ptx"),
};

/// Every module, in a fixed order (the order `cargo xtask cuda` compiles them in).
pub const MODULES: [PtxModule; 4] = [BLAS1, REDUCE, SPMV, LEJA];

/// `2^e` for the exponents of [`MxSsqPartial`]'s thresholds (exact).
pub fn pow2(e: i32) -> f64 {
    2f64.powi(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCALARS: [&str; 4] = ["f32", "f64", "c32", "c64"];
    const INDICES: [&str; 2] = ["u32", "u64"];

    fn expected_kernels() -> Vec<String> {
        let mut v = vec![
            "finish_sum".to_string(),
            "finish_max".to_string(),
            "lanczos_beta".to_string(),
            "lanczos_beta_if".to_string(),
            "fold_rows".to_string(),
        ];
        for s in SCALARS {
            for k in [
                "fill",
                "scale",
                "axpby",
                "combine",
                "dot_partial",
                "nrm2_partial",
                "amax_partial",
                "sum_partial",
                "lanczos_update",
                "lanczos_scale",
                "lanczos_sums",
                "lanczos_pythag_update",
                "lanczos_scale_if",
                "lanczos_form",
            ] {
                v.push(format!("{k}_{s}"));
            }
            for i in INDICES {
                for k in [
                    "spmv_csr_scalar",
                    "spmv_csr_vector",
                    "spmv_csr_lanczos",
                    "spmv_csr_lanczos_advance",
                    "spmv_pattern_scalar",
                    "spmv_pattern_vector",
                    "spmv_pattern_hybrid",
                    "leja_csr",
                    "leja_pattern",
                ] {
                    v.push(format!("{k}_{s}_{i}"));
                }
                // Real-valued matrices on complex vectors: only complex vector types.
                if s.starts_with('c') {
                    for k in [
                        "spmv_rcsr_scalar",
                        "spmv_rcsr_vector",
                        "spmv_rcsr_lanczos",
                        "spmv_rcsr_lanczos_advance",
                        "leja_rcsr",
                    ] {
                        v.push(format!("{k}_{s}_{i}"));
                    }
                }
            }
        }
        v
    }

    #[test]
    fn every_kernel_is_defined_exactly_once() {
        let all: Vec<&str> = MODULES.iter().flat_map(|m| m.entries()).collect();
        let expected = expected_kernels();
        for k in &expected {
            let n = all.iter().filter(|e| *e == k).count();
            assert_eq!(n, 1, "{k} is defined {n} times");
        }
        assert_eq!(
            all.len(),
            expected.len(),
            "unexpected extra kernels: {all:?}"
        );
    }

    #[test]
    fn ptx_targets_what_a_cuda_13_0_driver_accepts() {
        for m in MODULES {
            assert!(
                m.ptx.contains("\n.version 9.0\n"),
                "{}: PTX ISA version",
                m.name
            );
            assert!(m.ptx.contains("\n.target sm_80\n"), "{}: target", m.name);
            assert!(!m.ptx.contains('\0'), "{}: NUL byte", m.name);
        }
    }

    #[test]
    fn ssq_thresholds_are_blues_constants_for_double() {
        // LAPACK la_constants: tsml = 2^ceil((minexp-1)/2), tbig = 2^floor((maxexp-digits+1)/2),
        // ssml = 2^-floor((minexp-digits)/2), sbig = 2^-ceil((maxexp+digits-1)/2), with
        // minexp = -1021, maxexp = 1024, digits = 53 for IEEE double.
        let (minexp, maxexp, digits) = (f64::MIN_EXP, f64::MAX_EXP, f64::MANTISSA_DIGITS as i32);
        assert_eq!(MX_SSQ_TSML_EXP2, (minexp - 1).div_euclid(2));
        assert_eq!(MX_SSQ_TBIG_EXP2 as i32, (maxexp - digits + 1).div_euclid(2));
        assert_eq!(MX_SSQ_SSML_EXP2 as i32, -((minexp - digits).div_euclid(2)));
        assert_eq!(MX_SSQ_SBIG_EXP2, -((maxexp + digits - 1 + 1).div_euclid(2)));
        // Squares accumulated unscaled neither overflow (even summed 10^9 times) nor become
        // subnormal.
        assert!(pow2(MX_SSQ_TBIG_EXP2 as i32).powi(2) * 1e9 < f64::MAX);
        assert!(pow2(MX_SSQ_TSML_EXP2).powi(2) >= f64::MIN_POSITIVE);
    }

    #[test]
    fn parameter_structs_have_the_layout_kernels_expect() {
        assert_eq!(std::mem::size_of::<MxScalar>(), 16);
        assert_eq!(std::mem::size_of::<MxSpmvParams>(), 48);
        assert_eq!(std::mem::size_of::<MxLejaParams>(), 64);
        assert_eq!(std::mem::size_of::<MxSsqPartial>(), 24);
        assert_eq!(MX_REDUCE_THREADS % 32, 0);
    }
}
