//! Which Rust types the kernels are compiled for, and byte views of them.
//!
//! Kernels exist for exactly `f32`, `f64`, `c32` and `c64` (and `u32` / `u64` indices);
//! they are looked up by `Scalar::NAME`. [`check`] confirms by type identity that a generic
//! `S` is one of those four, so that reinterpreting slices of it as bytes is sound and no
//! kernel runs on a type whose layout it does not know.

use matexp_core::{Error, Result, Scalar, c32, c64};
use std::any::{TypeId, type_name};

/// Whether `S` is one of the four scalar types the kernels are built for.
pub fn is_kernel_scalar<S: Scalar>() -> bool {
    let t = TypeId::of::<S>();
    t == TypeId::of::<f32>()
        || t == TypeId::of::<f64>()
        || t == TypeId::of::<c32>()
        || t == TypeId::of::<c64>()
}

/// The position of `S` among the kernel scalars (`f32`, `f64`, `c32`, `c64`), or
/// [`Error::Unsupported`]. The comparisons are of constants and fold away.
pub(crate) fn scalar_slot<S: Scalar>() -> Result<usize> {
    let t = TypeId::of::<S>();
    [
        TypeId::of::<f32>(),
        TypeId::of::<f64>(),
        TypeId::of::<c32>(),
        TypeId::of::<c64>(),
    ]
    .iter()
    .position(|k| *k == t)
    .ok_or_else(|| {
        Error::Unsupported(format!(
            "GPU kernels exist for f32, f64, c32 and c64, not {}",
            type_name::<S>()
        ))
    })
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

/// Index types kernels are instantiated for: `u32` (half the index traffic) and `u64`.
pub trait KernelIndex: sealed::Sealed + super::memory::DeviceElement {
    /// `u32` or `u64`: the kernel name suffix.
    const KERNEL_SUFFIX: &'static str;
    /// Position among the index types (cache slot).
    const SLOT: usize;
}

impl KernelIndex for u32 {
    const KERNEL_SUFFIX: &'static str = "u32";
    const SLOT: usize = 0;
}

impl KernelIndex for u64 {
    const KERNEL_SUFFIX: &'static str = "u64";
    const SLOT: usize = 1;
}

/// [`Error::Unsupported`] unless `S` is `f32`, `f64`, `c32` or `c64`.
pub(crate) fn check<S: Scalar>() -> Result<()> {
    if is_kernel_scalar::<S>() {
        Ok(())
    } else {
        Err(Error::Unsupported(format!(
            "GPU kernels exist for f32, f64, c32 and c64, not {}",
            type_name::<S>()
        )))
    }
}

/// The bytes of a slice of a kernel scalar (callers have run [`check`]).
pub(crate) fn as_bytes<S: Scalar>(s: &[S]) -> &[u8] {
    assert!(is_kernel_scalar::<S>(), "as_bytes on a non-kernel scalar");
    // SAFETY: S is one of four plain-old-data types (checked above): no padding, every byte
    // initialized; u8 has alignment 1.
    unsafe { std::slice::from_raw_parts(s.as_ptr() as *const u8, std::mem::size_of_val(s)) }
}

/// The bytes of a mutable slice of a kernel scalar (callers have run [`check`]).
pub(crate) fn as_bytes_mut<S: Scalar>(s: &mut [S]) -> &mut [u8] {
    assert!(
        is_kernel_scalar::<S>(),
        "as_bytes_mut on a non-kernel scalar"
    );
    // SAFETY: as in `as_bytes`; moreover every bit pattern is a valid f32 / f64 / complex,
    // so writing arbitrary bytes through the view leaves valid values.
    unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr() as *mut u8, std::mem::size_of_val(s)) }
}

/// `s` viewed as `&[T]` when `S` and `T` are the same type (generic code that knows the
/// concrete type only at run time).
pub(crate) fn cast_slice<S: 'static, T: 'static>(s: &[S]) -> Option<&[T]> {
    (TypeId::of::<S>() == TypeId::of::<T>()).then(|| {
        // SAFETY: S and T are the same type.
        unsafe { std::slice::from_raw_parts(s.as_ptr() as *const T, s.len()) }
    })
}

/// The CUDA data type tag of a kernel scalar, as cuSPARSE wants it.
pub(crate) fn cuda_data_type<S: Scalar>() -> cudarc::cusparse::sys::cudaDataType {
    use cudarc::cusparse::sys::cudaDataType::*;
    match (S::IS_COMPLEX, std::mem::size_of::<S>()) {
        (false, 4) => CUDA_R_32F,
        (false, _) => CUDA_R_64F,
        (true, 8) => CUDA_C_32F,
        (true, _) => CUDA_C_64F,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_four_kernel_scalars_are_accepted() {
        assert!(check::<f32>().is_ok() && check::<c64>().is_ok());
        assert!(is_kernel_scalar::<c32>() && is_kernel_scalar::<f64>());
        assert_eq!(as_bytes(&[c64::new(1.0, 2.0)]).len(), 16);
        let mut v = [0.0f32; 3];
        assert_eq!(as_bytes_mut(&mut v).len(), 12);
        assert_eq!(cast_slice::<u32, u32>(&[1, 2]), Some(&[1u32, 2][..]));
        assert_eq!(cast_slice::<u32, u64>(&[1, 2]), None);
        assert_eq!(scalar_slot::<c32>().unwrap(), 2);
    }
}
