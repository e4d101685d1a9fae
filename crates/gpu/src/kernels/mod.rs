//! Typed wrappers of matexp's own kernels (the PTX of `matexp-cuda-sys`): level-1 vector
//! operations and the device reductions, which other crates use on their buffers.
//!
//! Each `.cu` file of `cuda-sys/kernels` is one [`PtxModule`] static here, and each kernel
//! family one [`Kernel`] static, so launches find their function handle in a per-device cache.

use crate::rt::{Kernel, PtxModule};

pub(crate) mod blas1;
pub(crate) mod krylov;
pub mod reduce;

/// `cuda-sys/kernels/blas1.cu`.
pub static BLAS1: PtxModule = PtxModule::new("blas1", matexp_cuda_sys::BLAS1.ptx);
/// `cuda-sys/kernels/reduce.cu`.
pub static REDUCE: PtxModule = PtxModule::new("reduce", matexp_cuda_sys::REDUCE.ptx);
/// `cuda-sys/kernels/spmv.cu`.
pub static SPMV: PtxModule = PtxModule::new("spmv", matexp_cuda_sys::SPMV.ptx);
/// `cuda-sys/kernels/leja.cu`.
pub static LEJA: PtxModule = PtxModule::new("leja", matexp_cuda_sys::LEJA.ptx);

pub(crate) static FILL: Kernel = Kernel::new(&BLAS1, "fill");
pub(crate) static SCALE: Kernel = Kernel::new(&BLAS1, "scale");
pub(crate) static AXPBY: Kernel = Kernel::new(&BLAS1, "axpby");
pub(crate) static COMBINE: Kernel = Kernel::new(&BLAS1, "combine");

pub(crate) static DOT_PARTIAL: Kernel = Kernel::new(&REDUCE, "dot_partial");
pub(crate) static NRM2_PARTIAL: Kernel = Kernel::new(&REDUCE, "nrm2_partial");
pub(crate) static AMAX_PARTIAL: Kernel = Kernel::new(&REDUCE, "amax_partial");
pub(crate) static SUM_PARTIAL: Kernel = Kernel::new(&REDUCE, "sum_partial");
pub(crate) static FINISH_SUM: Kernel = Kernel::new(&REDUCE, "finish_sum");
pub(crate) static FINISH_MAX: Kernel = Kernel::new(&REDUCE, "finish_max");
pub(crate) static FOLD_ROWS: Kernel = Kernel::new(&REDUCE, "fold_rows");
pub(crate) static LANCZOS_UPDATE: Kernel = Kernel::new(&REDUCE, "lanczos_update");
pub(crate) static LANCZOS_SCALE: Kernel = Kernel::new(&REDUCE, "lanczos_scale");
pub(crate) static LANCZOS_BETA: Kernel = Kernel::new(&REDUCE, "lanczos_beta");
pub(crate) static LANCZOS_BETA_IF: Kernel = Kernel::new(&REDUCE, "lanczos_beta_if");
pub(crate) static LANCZOS_SUMS: Kernel = Kernel::new(&REDUCE, "lanczos_sums");
pub(crate) static LANCZOS_PYTHAG_UPDATE: Kernel = Kernel::new(&REDUCE, "lanczos_pythag_update");
pub(crate) static LANCZOS_SCALE_IF: Kernel = Kernel::new(&REDUCE, "lanczos_scale_if");
pub(crate) static LANCZOS_FORM: Kernel = Kernel::new(&REDUCE, "lanczos_form");

pub(crate) static SPMV_CSR_SCALAR: Kernel = Kernel::new(&SPMV, "spmv_csr_scalar");
pub(crate) static SPMV_CSR_VECTOR: Kernel = Kernel::new(&SPMV, "spmv_csr_vector");
pub(crate) static SPMV_CSR_LANCZOS: Kernel = Kernel::new(&SPMV, "spmv_csr_lanczos");
pub(crate) static SPMV_CSR_LANCZOS_ADVANCE: Kernel = Kernel::new(&SPMV, "spmv_csr_lanczos_advance");
pub(crate) static SPMV_PATTERN_SCALAR: Kernel = Kernel::new(&SPMV, "spmv_pattern_scalar");
pub(crate) static SPMV_PATTERN_VECTOR: Kernel = Kernel::new(&SPMV, "spmv_pattern_vector");
pub(crate) static SPMV_PATTERN_HYBRID: Kernel = Kernel::new(&SPMV, "spmv_pattern_hybrid");
pub(crate) static LEJA_CSR: Kernel = Kernel::new(&LEJA, "leja_csr");
pub(crate) static LEJA_PATTERN: Kernel = Kernel::new(&LEJA, "leja_pattern");
// A real matrix acting on complex vectors (complex scalars only; values of the real type).
pub(crate) static SPMV_RCSR_SCALAR: Kernel = Kernel::new(&SPMV, "spmv_rcsr_scalar");
pub(crate) static SPMV_RCSR_VECTOR: Kernel = Kernel::new(&SPMV, "spmv_rcsr_vector");
pub(crate) static SPMV_RCSR_LANCZOS: Kernel = Kernel::new(&SPMV, "spmv_rcsr_lanczos");
pub(crate) static SPMV_RCSR_LANCZOS_ADVANCE: Kernel =
    Kernel::new(&SPMV, "spmv_rcsr_lanczos_advance");
pub(crate) static LEJA_RCSR: Kernel = Kernel::new(&LEJA, "leja_rcsr");

#[cfg(test)]
mod tests {
    use super::*;

    /// Every typed id names kernels its module defines (for every scalar and index where it
    /// is generic), so no launch can fail for a misspelt name.
    #[test]
    fn every_kernel_id_names_kernels_of_its_module() {
        let scalars = ["f32", "f64", "c32", "c64"];
        let entries = |k: &Kernel| k.module().entries().collect::<Vec<_>>();
        for k in [
            &FINISH_SUM,
            &FINISH_MAX,
            &LANCZOS_BETA,
            &LANCZOS_BETA_IF,
            &FOLD_ROWS,
        ] {
            assert!(entries(k).contains(&k.base_name()), "{k:?}");
        }
        for k in [
            &FILL,
            &SCALE,
            &AXPBY,
            &COMBINE,
            &DOT_PARTIAL,
            &NRM2_PARTIAL,
            &AMAX_PARTIAL,
            &SUM_PARTIAL,
            &LANCZOS_UPDATE,
            &LANCZOS_SCALE,
            &LANCZOS_SUMS,
            &LANCZOS_PYTHAG_UPDATE,
            &LANCZOS_SCALE_IF,
            &LANCZOS_FORM,
        ] {
            for s in scalars {
                let name = format!("{}_{s}", k.base_name());
                assert!(entries(k).contains(&name.as_str()), "{name}");
            }
        }
        for k in [
            &SPMV_CSR_SCALAR,
            &SPMV_CSR_VECTOR,
            &SPMV_CSR_LANCZOS,
            &SPMV_CSR_LANCZOS_ADVANCE,
            &SPMV_PATTERN_SCALAR,
            &SPMV_PATTERN_VECTOR,
            &SPMV_PATTERN_HYBRID,
            &LEJA_CSR,
            &LEJA_PATTERN,
        ] {
            for s in scalars {
                for i in ["u32", "u64"] {
                    let name = format!("{}_{s}_{i}", k.base_name());
                    assert!(entries(k).contains(&name.as_str()), "{name}");
                }
            }
        }
        for k in [
            &SPMV_RCSR_SCALAR,
            &SPMV_RCSR_VECTOR,
            &SPMV_RCSR_LANCZOS,
            &SPMV_RCSR_LANCZOS_ADVANCE,
            &LEJA_RCSR,
        ] {
            for s in ["c32", "c64"] {
                for i in ["u32", "u64"] {
                    let name = format!("{}_{s}_{i}", k.base_name());
                    assert!(entries(k).contains(&name.as_str()), "{name}");
                }
            }
        }
    }
}
