//! Index widths of the compressed formats: `u32` (up to 4 294 967 295 rows, columns and
//! stored entries) and `u64` (beyond that).
//!
//! The seeds stay within `u32` (the largest stored matrix, the 3D Laplacian with N = 256, has
//! 117 M entries; europe_osm has 51 M nodes), and `u32` halves the index traffic of SpMV, so
//! it is the default. The trait is sealed: the kernels rely on the conversions below being
//! lossless, which holds for exactly these two types on 64-bit targets.

use matexp_core::{Error, Result};
use std::fmt::{Debug, Display};

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

/// An index type of [`crate::CsrMatrix`] and [`crate::PatternCsr`]: `u32` or `u64`.
///
/// Row pointers and column indices share the type, so it must hold the number of stored
/// entries as well as the dimensions.
pub trait CsrIndex:
    sealed::Sealed
    + sprs::SpIndex
    + Copy
    + Ord
    + Send
    + Sync
    + Debug
    + Display
    + std::hash::Hash
    + 'static
{
    /// `u32` or `u64`, for messages and benchmark records.
    const NAME: &'static str;
    /// Bytes per index (what SpMV reads per stored entry besides the value).
    const BYTES: usize;
    /// The largest representable index.
    const MAX_USIZE: usize;

    /// Widens to `usize` (lossless on 64-bit targets).
    fn as_usize(self) -> usize;

    /// Narrows from `usize`; `None` if `i` does not fit.
    fn try_narrow(i: usize) -> Option<Self>;

    /// Narrows from `usize`, naming `what` in the error when `i` does not fit.
    fn narrow_checked(i: usize, what: &'static str) -> Result<Self> {
        Self::try_narrow(i).ok_or_else(|| {
            Error::invalid(
                what,
                i,
                format!(
                    "does not fit the {} index type (max {}); use u64 indices",
                    Self::NAME,
                    Self::MAX_USIZE
                ),
            )
        })
    }

    /// Narrows from `usize`; callers guarantee that `i` fits (it is bounded by a size that
    /// was checked with [`CsrIndex::narrow_checked`]).
    fn narrow(i: usize) -> Self;
}

impl CsrIndex for u32 {
    const NAME: &'static str = "u32";
    const BYTES: usize = 4;
    const MAX_USIZE: usize = u32::MAX as usize;
    #[inline(always)]
    fn as_usize(self) -> usize {
        self as usize
    }
    #[inline(always)]
    fn try_narrow(i: usize) -> Option<Self> {
        u32::try_from(i).ok()
    }
    #[inline(always)]
    fn narrow(i: usize) -> Self {
        debug_assert!(i <= u32::MAX as usize);
        i as u32
    }
}

impl CsrIndex for u64 {
    const NAME: &'static str = "u64";
    const BYTES: usize = 8;
    const MAX_USIZE: usize = usize::MAX;
    #[inline(always)]
    fn as_usize(self) -> usize {
        self as usize
    }
    #[inline(always)]
    fn try_narrow(i: usize) -> Option<Self> {
        u64::try_from(i).ok()
    }
    #[inline(always)]
    fn narrow(i: usize) -> Self {
        i as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn narrowing_is_checked() {
        assert_eq!(u32::try_narrow(7), Some(7u32));
        assert_eq!(u32::try_narrow(u32::MAX as usize + 1), None);
        assert!(matches!(
            u32::narrow_checked(u32::MAX as usize + 1, "nnz"),
            Err(Error::InvalidArgument { name: "nnz", .. })
        ));
        assert_eq!(u64::narrow_checked(1 << 40, "nnz").unwrap(), 1u64 << 40);
    }
}
