//! Scalars and indices as `f64` on the wire.
//!
//! Real scalars travel as one `f64` (exact for `f32` and `f64`), complex ones as (re, im)
//! (exact for `c32` and `c64`); indices as exact integers, which requires them below 2⁵³
//! (checked where a plan is built, [`check_index_range`]).

use matexp_core::{Error, Result, Scalar, c64};

/// Numbers on the wire per scalar of type `S`: 2 for complex, 1 for real.
pub fn width<S: Scalar>() -> usize {
    if S::IS_COMPLEX { 2 } else { 1 }
}

/// Appends `x` to `out` in wire form.
pub fn encode<S: Scalar>(x: impl IntoIterator<Item = S>, out: &mut Vec<f64>) {
    for v in x {
        let z = v.to_c64();
        out.push(z.re);
        if S::IS_COMPLEX {
            out.push(z.im);
        }
    }
}

/// Writes `x` in wire form into `out` (exactly `width::<S>()·x.len()` numbers).
pub fn encode_into<S: Scalar>(x: impl IntoIterator<Item = S>, out: &mut [f64]) {
    let w = width::<S>();
    for (v, o) in x.into_iter().zip(out.chunks_exact_mut(w)) {
        let z = v.to_c64();
        o[0] = z.re;
        if w == 2 {
            o[1] = z.im;
        }
    }
}

/// The scalars of a wire buffer.
pub fn decode<S: Scalar>(buf: &[f64]) -> impl Iterator<Item = S> + '_ {
    let w = width::<S>();
    buf.chunks_exact(w)
        .map(move |c| S::from_c64(c64::new(c[0], if w == 2 { c[1] } else { 0.0 })))
}

/// Indices are carried exactly as `f64` below this bound.
pub const MAX_INDEX: usize = 1 << 53;

/// [`Error::InvalidArgument`] when `n` indices cannot travel exactly.
pub fn check_index_range(n: usize) -> Result<()> {
    if n > MAX_INDEX {
        return Err(Error::invalid(
            "dimension",
            n,
            "distributed indices travel as exact f64 integers, below 2^53",
        ));
    }
    Ok(())
}
