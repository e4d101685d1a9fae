//! Assembly of a stencil into a CSR matrix: the reference of the tests, and the operator of
//! CSR peers in benchmarks.
//!
//! The assembly is written from the definition of each boundary kind directly (coordinates,
//! ghost points, wrap-around) and shares no code with the matrix-free kernel, so that the
//! two check each other.

use crate::grid::{Boundary, Dim};
use crate::stencil::Stencil;
use matexp_core::{RealScalar, Result};
use matexp_sparse::CsrMatrix;

impl<S: RealScalar> Stencil<S> {
    /// The matrix of the linear part of `A` (O(N^d) memory: 7 entries per point in 3D).
    ///
    /// ```
    /// use matexp_stencil::{Boundary, Dim, Stencil};
    /// let a = Stencil::<f64>::laplacian(Dim::Two, 4, Boundary::Neumann)?;
    /// let m = a.to_csr()?;
    /// // Zero row sums: constants are in the kernel of the Neumann Laplacian.
    /// assert!((0..16).all(|i| m.row(i).1.iter().sum::<f64>().abs() < 1e-12));
    /// # Ok::<(), matexp_core::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`CsrMatrix::from_triplets`] (not expected for a valid stencil).
    pub fn to_csr(&self) -> Result<CsrMatrix<S, u32>> {
        let g = *self.grid();
        let n = g.n() as isize;
        let axes = g.dim().axes();
        let inv_h2 = g.inv_h2();
        let index = |c: [isize; 3]| -> usize {
            (c[0] + n * c[1] + if axes == 3 { n * n * c[2] } else { 0 }) as usize
        };
        let mut entries = Vec::with_capacity(g.len() * (2 * axes + 1));
        for i in 0..g.len() {
            let c = [
                (i as isize) % n,
                (i as isize / n) % n,
                if g.dim() == Dim::Three {
                    i as isize / (n * n)
                } else {
                    0
                },
            ];
            let d = self.coefficient_at(i).as_f64() * inv_h2;
            if g.boundary() == Boundary::Frame && c[..axes].iter().any(|&v| v == 0 || v == n - 1) {
                continue;
            }
            let mut diag = -2.0 * axes as f64;
            for a in 0..axes {
                for step in [-1isize, 1] {
                    let mut q = c;
                    q[a] += step;
                    if (0..n).contains(&q[a]) {
                        entries.push((i, index(q), S::from_f64(d)));
                        continue;
                    }
                    match g.boundary() {
                        // The ghost value is boundary data: it leaves the matrix.
                        Boundary::Dirichlet | Boundary::Frame => {}
                        // Zero flux: the ghost equals the point, u_ghost − u_i = 0.
                        Boundary::Neumann => diag += 1.0,
                        Boundary::Periodic => {
                            q[a] = q[a].rem_euclid(n);
                            entries.push((i, index(q), S::from_f64(d)));
                        }
                    }
                }
            }
            entries.push((i, i, S::from_f64(diag * d)));
        }
        CsrMatrix::from_triplets(g.len(), g.len(), &entries)
    }
}
