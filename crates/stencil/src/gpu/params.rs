//! Rust mirror of `include/stencil_params.h`.
//!
//! Written by hand (the header has one struct), checked two ways: `const` assertions on its
//! size and field offsets (the C layout: ten `uint32_t`, then five `double`), and a test
//! that reads the header and compares its field names, in order, with this struct's.

use matexp_gpu::rt::KernelParam;

/// `MxStencilParams` of `stencil_params.h`: one stencil launch (see the header).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct MxStencilParams {
    pub n: u32,
    pub nz: u32,
    pub z0: u32,
    pub dim: u32,
    pub bfun: u32,
    pub coef: u32,
    pub zchunk: u32,
    pub step: u32,
    pub prefetch: u32,
    pub reserved: u32,
    pub h: f64,
    pub inv_h2: f64,
    pub alpha: f64,
    pub beta: f64,
    pub coeff: f64,
}

const _: () = {
    assert!(std::mem::size_of::<MxStencilParams>() == 80);
    assert!(std::mem::align_of::<MxStencilParams>() == 8);
    assert!(std::mem::offset_of!(MxStencilParams, step) == 28);
    assert!(std::mem::offset_of!(MxStencilParams, prefetch) == 32);
    assert!(std::mem::offset_of!(MxStencilParams, h) == 40);
    assert!(std::mem::offset_of!(MxStencilParams, coeff) == 72);
};

// SAFETY: `#[repr(C)]`, fixed-width fields, the layout of the C struct (asserted above),
// no pointers.
unsafe impl KernelParam for MxStencilParams {}

/// Constants of the header.
pub(crate) const MX_BFUN_NONE: u32 = 0;
pub(crate) const MX_BFUN_POLYNOMIAL: u32 = 1;
pub(crate) const MX_BFUN_SINE_EXP: u32 = 2;
pub(crate) const MX_BFUN_VECTOR: u32 = 3;
pub(crate) const MX_COEF_UNIT: u32 = 0;
pub(crate) const MX_COEF_SEED: u32 = 1;
pub(crate) const MX_COEF_FIELD: u32 = 2;
pub(crate) const MX_STENCIL_BX: u32 = 32;
pub(crate) const MX_STENCIL_BY: u32 = 8;
pub(crate) const MX_MARCH_MAX_THREADS: u32 = 512;
pub(crate) const MX_MARCH_MIN_BLOCKS: u32 = 2;
pub(crate) const MX_STACK_THREADS: u32 = 256;
pub(crate) const MX_STACK_MIN_BLOCKS: u32 = 3;
pub(crate) const MX_STACK_ROWS: u32 = 4;

#[cfg(test)]
mod tests {
    const HEADER: &str = include_str!("../../include/stencil_params.h");

    fn define(name: &str) -> u32 {
        HEADER
            .lines()
            .find_map(|l| {
                let rest = l.trim().strip_prefix("#define ")?.strip_prefix(name)?;
                rest.trim().parse().ok()
            })
            .unwrap_or_else(|| panic!("{name} not in the header"))
    }

    #[test]
    fn fields_and_constants_match_the_header() {
        let body = HEADER
            .split("typedef struct MxStencilParams {")
            .nth(1)
            .and_then(|s| s.split("} MxStencilParams;").next())
            .expect("struct in header");
        let fields: Vec<(&str, &str)> = body
            .lines()
            .map(str::trim)
            .filter(|l| l.ends_with(';'))
            .map(|l| {
                let mut it = l.trim_end_matches(';').split_whitespace();
                (it.next().unwrap(), it.next().unwrap())
            })
            .collect();
        let rust = [
            ("uint32_t", "n"),
            ("uint32_t", "nz"),
            ("uint32_t", "z0"),
            ("uint32_t", "dim"),
            ("uint32_t", "bfun"),
            ("uint32_t", "coef"),
            ("uint32_t", "zchunk"),
            ("uint32_t", "step"),
            ("uint32_t", "prefetch"),
            ("uint32_t", "reserved"),
            ("double", "h"),
            ("double", "inv_h2"),
            ("double", "alpha"),
            ("double", "beta"),
            ("double", "coeff"),
        ];
        assert_eq!(fields, rust);
        assert_eq!(define("MX_BFUN_NONE"), super::MX_BFUN_NONE);
        assert_eq!(define("MX_BFUN_POLYNOMIAL"), super::MX_BFUN_POLYNOMIAL);
        assert_eq!(define("MX_BFUN_SINE_EXP"), super::MX_BFUN_SINE_EXP);
        assert_eq!(define("MX_BFUN_VECTOR"), super::MX_BFUN_VECTOR);
        assert_eq!(define("MX_COEF_UNIT"), super::MX_COEF_UNIT);
        assert_eq!(define("MX_COEF_SEED"), super::MX_COEF_SEED);
        assert_eq!(define("MX_COEF_FIELD"), super::MX_COEF_FIELD);
        assert_eq!(define("MX_STENCIL_BX"), super::MX_STENCIL_BX);
        assert_eq!(define("MX_STENCIL_BY"), super::MX_STENCIL_BY);
        assert_eq!(define("MX_MARCH_MAX_THREADS"), super::MX_MARCH_MAX_THREADS);
        assert_eq!(define("MX_MARCH_MIN_BLOCKS"), super::MX_MARCH_MIN_BLOCKS);
        assert_eq!(define("MX_STACK_THREADS"), super::MX_STACK_THREADS);
        assert_eq!(define("MX_STACK_MIN_BLOCKS"), super::MX_STACK_MIN_BLOCKS);
        assert_eq!(define("MX_STACK_ROWS"), super::MX_STACK_ROWS);
    }
}
