//! Gershgorin discs of CSR rows, the one implementation behind [`crate::CsrMatrix::gershgorin`],
//! [`crate::PatternCsr::gershgorin`] and the GPU uploads of `matexp-gpu`.

use crate::CsrIndex;
use matexp_core::{Scalar, c64};
use rayon::prelude::*;

/// The box `(re_min, re_max, im_min, im_max)` enclosing the Gershgorin discs of the rows of a
/// square CSR matrix: disc `i` is centred at the sum of the stored (i, i) entries with radius
/// Σ_{j≠i} |a_ij|. `values = None` means every stored entry is 1 (a pattern). Computed in
/// `f64` (complex), O(nnz), in parallel over rows. Returns infinities for an empty matrix; the
/// arrays must satisfy the CSR invariants (see [`crate::validate_csr`]).
pub fn gershgorin_box<S: Scalar, I: CsrIndex>(
    nrows: usize,
    row_ptr: &[I],
    col_idx: &[I],
    values: Option<&[S]>,
) -> (f64, f64, f64, f64) {
    (0..nrows)
        .into_par_iter()
        .with_min_len(1024)
        .map(|i| {
            let (a, b) = (row_ptr[i].as_usize(), row_ptr[i + 1].as_usize());
            let mut center = c64::new(0.0, 0.0);
            let mut radius = 0.0;
            for k in a..b {
                let v = values.map_or(c64::new(1.0, 0.0), |v| v[k].to_c64());
                if col_idx[k].as_usize() == i {
                    center += v;
                } else {
                    radius += v.norm();
                }
            }
            (
                center.re - radius,
                center.re + radius,
                center.im - radius,
                center.im + radius,
            )
        })
        .reduce(
            || {
                (
                    f64::INFINITY,
                    f64::NEG_INFINITY,
                    f64::INFINITY,
                    f64::NEG_INFINITY,
                )
            },
            |p, q| (p.0.min(q.0), p.1.max(q.1), p.2.min(q.2), p.3.max(q.3)),
        )
}

/// Bounds `(lo, hi)` on the spectrum of the Hermitian part H = (A + Aᴴ)/2 of a square CSR
/// matrix: Gershgorin's discs of H have centres Re a_ii and radii at most (R_i + C_i)/2,
/// with R_i = Σ_{j≠i}|a_ij| and C_i = Σ_{j≠i}|a_ji|, so λ(H) ⊂ [min_i(Re a_ii − (R_i + C_i)/2),
/// max_i(Re a_ii + (R_i + C_i)/2)]. `hi` bounds the logarithmic norm μ₂(A). O(nnz) and one
/// vector of n column sums; `None` for an empty matrix. The arrays must satisfy the CSR
/// invariants.
pub fn hermitian_part_bounds<S: Scalar, I: CsrIndex>(
    nrows: usize,
    row_ptr: &[I],
    col_idx: &[I],
    values: Option<&[S]>,
) -> Option<(f64, f64)> {
    if nrows == 0 {
        return None;
    }
    let mut center = vec![0.0f64; nrows];
    let mut radius = vec![0.0f64; nrows];
    for (i, (c, r)) in center.iter_mut().zip(&mut radius).enumerate() {
        let (a, b) = (row_ptr[i].as_usize(), row_ptr[i + 1].as_usize());
        for k in a..b {
            let v = values.map_or(c64::new(1.0, 0.0), |v| v[k].to_c64());
            if col_idx[k].as_usize() == i {
                *c += v.re;
            } else {
                *r += v.norm() / 2.0;
            }
        }
    }
    // The column sums: entry (i, j) adds to the radius of row j's disc too.
    for i in 0..nrows {
        let (a, b) = (row_ptr[i].as_usize(), row_ptr[i + 1].as_usize());
        for k in a..b {
            let j = col_idx[k].as_usize();
            if j != i {
                let v = values.map_or(1.0, |v| v[k].to_c64().norm());
                radius[j] += v / 2.0;
            }
        }
    }
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for (c, r) in center.iter().zip(&radius) {
        lo = lo.min(c - r);
        hi = hi.max(c + r);
    }
    (!lo.is_nan() && !hi.is_nan()).then_some((lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hermitian_part_of_a_shear_and_of_a_pattern() {
        // A = [[−1, 4], [0, −1]]: H = [[−1, 2], [2, −1]], eigenvalues −3 and 1 (here tight).
        let (rp, ci) = (vec![0u32, 2, 3], vec![0u32, 1, 1]);
        let (lo, hi) = hermitian_part_bounds(2, &rp, &ci, Some(&[-1.0f64, 4.0, -1.0])).unwrap();
        assert_eq!((lo, hi), (-3.0, 1.0));
        // The pattern [[0, 1], [1, 0]]: H = A, eigenvalues ±1.
        let (rp, ci) = (vec![0u32, 1, 2], vec![1u32, 0]);
        assert_eq!(
            hermitian_part_bounds::<f64, u32>(2, &rp, &ci, None),
            Some((-1.0, 1.0))
        );
        assert_eq!(
            hermitian_part_bounds::<f64, u32>(0, &[0u32], &[], None),
            None
        );
    }

    #[test]
    fn box_encloses_the_discs_of_values_and_of_patterns() {
        // [[2, 1], [-1, 3i]]: discs |z − 2| ≤ 1 and |z − 3i| ≤ 1.
        let b = gershgorin_box(
            2,
            &[0u32, 2, 4],
            &[0, 1, 0, 1],
            Some(
                &[
                    c64::new(2.0, 0.0),
                    c64::new(1.0, 0.0),
                    c64::new(-1.0, 0.0),
                    c64::new(0.0, 3.0),
                ][..],
            ),
        );
        assert_eq!(b, (-1.0, 3.0, -1.0, 4.0));
        // Pattern rows {1}, {0, 2}, {1} of a path: centres 0, radii 1, 2, 1.
        let p = gershgorin_box::<f64, u64>(3, &[0, 1, 3, 4], &[1, 0, 2, 1], None);
        assert_eq!(p, (-2.0, 2.0, -2.0, 2.0));
    }
}
