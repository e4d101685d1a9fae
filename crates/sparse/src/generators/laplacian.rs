//! Finite-difference Dirichlet Laplacians on the unit interval, square and cube.

use crate::parallel::for_each_row_mut;
use crate::{CsrIndex, CsrMatrix, PatternCsr};
use matexp_core::{Error, Result, Scalar};

/// The sorted columns of row `i` of the nearest-neighbour lattice with axis lengths `dims`
/// (index i = i₀ + d₀·i₁ + d₀d₁·i₂), diagonal included when `diag`: at most 7 entries.
#[inline]
pub(crate) fn lattice_row(dims: &[usize], i: usize, diag: bool, out: &mut [usize; 7]) -> usize {
    let mut coords = [0usize; 3];
    let mut strides = [0usize; 3];
    let mut rest = i;
    let mut stride = 1;
    for (a, &d) in dims.iter().enumerate() {
        coords[a] = rest % d;
        rest /= d;
        strides[a] = stride;
        stride *= d;
    }
    let mut len = 0;
    // Ascending column order: −stride of the slowest axis first.
    for a in (0..dims.len()).rev() {
        if coords[a] > 0 {
            out[len] = i - strides[a];
            len += 1;
        }
    }
    if diag {
        out[len] = i;
        len += 1;
    }
    for a in 0..dims.len() {
        if coords[a] + 1 < dims[a] {
            out[len] = i + strides[a];
            len += 1;
        }
    }
    len
}

/// The lattice structure with axis lengths `dims` (1 to 3 axes), as CSR arrays; `value(row,
/// col)` fills the values.
pub(crate) fn lattice<V: Send + Copy + Default, I: CsrIndex>(
    dims: &[usize],
    diag: bool,
    value: impl Fn(usize, usize) -> V + Sync,
) -> Result<(PatternCsr<I>, Vec<V>)> {
    let n = dims
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or_else(|| {
            Error::invalid(
                "dims",
                format!("{dims:?}"),
                "the number of points overflows usize",
            )
        })?;
    I::narrow_checked(n, "number of points")?;
    let row_ptr: Vec<I> =
        super::row_ptr_from_lengths(n, |i| lattice_row(dims, i, diag, &mut [0; 7]))?;
    let nnz = row_ptr[n].as_usize();
    let mut cols = vec![I::narrow(0); nnz];
    let mut vals = vec![V::default(); nnz];
    for_each_row_mut(&row_ptr, &mut cols, &mut vals, |i, c, v| {
        let mut buf = [0usize; 7];
        let len = lattice_row(dims, i, diag, &mut buf);
        for k in 0..len {
            c[k] = I::narrow(buf[k]);
            v[k] = value(i, buf[k]);
        }
        false
    });
    Ok((
        PatternCsr::from_parts_trusted(n, n, row_ptr, cols, true),
        vals,
    ))
}

fn laplacian<S: Scalar, I: CsrIndex>(d: usize, n: usize) -> Result<CsrMatrix<S, I>> {
    if n == 0 {
        return Err(Error::invalid(
            "n",
            n,
            "need at least one interior point per axis",
        ));
    }
    let h2 = ((n + 1) * (n + 1)) as f64;
    let (off, diag) = (S::from_f64(h2), S::from_f64(-2.0 * d as f64 * h2));
    let (pattern, values) =
        lattice::<S, I>(&vec![n; d], true, |i, j| if i == j { diag } else { off })?;
    Ok(CsrMatrix::from_pattern_trusted(pattern, values))
}

/// The 1D Dirichlet Laplacian: N interior points x_i = i/(N+1) of [0, 1], the 3-point
/// stencil (u_{i−1} − 2u_i + u_{i+1})·(N+1)². Tridiagonal, symmetric, negative definite;
/// nnz = 3N − 2. O(N).
///
/// # Errors
///
/// [`Error::InvalidArgument`](matexp_core::Error::InvalidArgument) for `n = 0`, or when the
/// number of points or stored entries does not fit `usize` or the index type `I`.
pub fn laplacian_1d<S: Scalar, I: CsrIndex>(n: usize) -> Result<CsrMatrix<S, I>> {
    laplacian(1, n)
}

/// The 2D 5-point Dirichlet Laplacian on [0, 1]², N interior points per axis, index
/// i = i_x + N·i_y, scaled by (N+1)²; nnz = 5N² − 4N. O(N²), parallel.
///
/// # Errors
///
/// As [`laplacian_1d`].
pub fn laplacian_2d<S: Scalar, I: CsrIndex>(n: usize) -> Result<CsrMatrix<S, I>> {
    laplacian(2, n)
}

/// The 3D 7-point Dirichlet Laplacian on [0, 1]³ of seeds 000 and 003: N interior points per
/// axis, index i = i_x + N·i_y + N²·i_z, diagonal −6(N+1)², neighbours (N+1)²;
/// nnz = 7N³ − 6N² (N = 128: 14 581 760; N = 256: 117 047 296). Spectrum: the values of
/// [`laplacian_eigenvalue`], inside the Gershgorin interval [−12(N+1)², 0]. O(N³), parallel;
/// N = 256 takes ≈ 1.5 GB as `f64`/`u32`.
///
/// # Errors
///
/// As [`laplacian_1d`].
///
/// ```
/// use matexp_sparse::generators::{laplacian_3d, laplacian_eigenvalue};
/// let n = 8;
/// let a = laplacian_3d::<f64, u32>(n)?;
/// assert_eq!(a.nnz(), 7 * n * n * n - 6 * n * n);
/// let b = a.gershgorin().unwrap();
/// assert_eq!((b.re_min, b.re_max), (-12.0 * 81.0, 0.0));
/// assert!(laplacian_eigenvalue(n, &[n, n, n]) > b.re_min);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn laplacian_3d<S: Scalar, I: CsrIndex>(n: usize) -> Result<CsrMatrix<S, I>> {
    laplacian(3, n)
}

/// The eigenvalue of the d-dimensional Dirichlet Laplacian with N interior points per axis
/// (d = `k.len()`) for the mode k = (k₁, …, k_d), 1 ≤ k_a ≤ N:
/// λ_k = −4(N+1)² Σ_a sin²(π k_a / (2(N+1))), eigenvector ⊗_a sin(π k_a x) sampled at the
/// grid points x = i/(N+1).
pub fn laplacian_eigenvalue(n: usize, k: &[usize]) -> f64 {
    let h2 = ((n + 1) * (n + 1)) as f64;
    k.iter()
        .map(|&ka| {
            let s = (std::f64::consts::PI * ka as f64 / (2.0 * (n + 1) as f64)).sin();
            -4.0 * h2 * s * s
        })
        .sum()
}
