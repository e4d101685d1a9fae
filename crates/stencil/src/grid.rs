//! The grid: dimension, points per axis, boundary kind, spacing and point coordinates.

use matexp_core::{Error, Result};

/// Spatial dimension of a stencil.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dim {
    /// The unit square, 5-point stencil; a 2D grid is the slice z = ½ of the cube (so the
    /// seed's boundary functions and coefficient, written in x, y, z, apply unchanged).
    Two,
    /// The unit cube, 7-point stencil.
    Three,
}

impl Dim {
    /// Number of axes, 2 or 3.
    pub fn axes(self) -> usize {
        match self {
            Dim::Two => 2,
            Dim::Three => 3,
        }
    }
}

/// How the grid meets the boundary of `[0, 1]^d`, which fixes the spacing `h`, the point
/// coordinates and what a neighbour outside the grid means.
///
/// | kind | points of an axis | h | neighbour outside the grid |
/// | --- | --- | --- | --- |
/// | [`Boundary::Dirichlet`] | `x_i = (i+1)h`, i = 0..N−1 | 1/(N+1) | the boundary value at 0 or 1 (zero, or the affine term `b`) |
/// | [`Boundary::Neumann`] | `x_i = (i+½)h` (cell centres) | 1/N | none: the face flux is zero |
/// | [`Boundary::Periodic`] | `x_i = i·h` | 1/N | the point on the other side (period 1) |
/// | [`Boundary::Frame`] | `x_i = i·h`, frame at 0 and 1 | 1/(N−1) | never needed: frame rows of `A` are zero |
///
/// Dirichlet uses the interior points of seed 000 and 003 (N = 256 interior points,
/// scale (N+1)²). Neumann and periodic grids use h = 1/N instead, because their points must
/// tile `[0, 1]` exactly: with h = 1/(N+1) a periodic grid would have period N/(N+1) and the
/// Neumann cells would not reach the boundary.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Boundary {
    /// Dirichlet: `u = g` on the boundary. With `g = 0` (homogeneous) the product is linear;
    /// otherwise the problem is affine, `u' = A u + b` (see [`crate::Stencil::affine_term`]).
    Dirichlet,
    /// Homogeneous Neumann, `∂u/∂n = 0`, by the cell-centred finite-volume discretization:
    /// `(Au)_i = h⁻² Σ_{j ∈ nb(i)} (u_j − u_i)` over the neighbours inside the grid, i.e. a
    /// missing neighbour is replaced by the point itself (zero flux through the face). `A` is
    /// symmetric with zero row sums, so `1ᵀA = 0`: the discrete mass `Σ u_i` is conserved.
    Neumann,
    /// Periodic in every axis, period 1.
    Periodic,
    /// The seed's "no boundary condition" kernel: the vector holds the whole grid including
    /// its outer layer (the frame), the stencil is applied at points strictly inside, and
    /// the frame rows of `A` are zero. The frame values therefore act as Dirichlet data
    /// carried in the state and stay constant under `u' = Au`.
    Frame,
}

/// A grid of `N` points per axis on `[0, 1]^d`, with the boundary kind that fixes its spacing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grid {
    dim: Dim,
    n: usize,
    boundary: Boundary,
}

impl Grid {
    /// `n` points per axis (`n ≥ 1`; the total `n^d` must fit in `u32`, the index type of
    /// GPU kernels and of the assembled CSR matrix).
    pub fn new(dim: Dim, n: usize, boundary: Boundary) -> Result<Self> {
        if n == 0 {
            return Err(Error::invalid("n", n, "need at least one point per axis"));
        }
        let total = (n as u128).pow(dim.axes() as u32);
        if total > u32::MAX as u128 {
            return Err(Error::invalid(
                "n",
                n,
                format!("{total} points exceed the u32 index range"),
            ));
        }
        Ok(Grid { dim, n, boundary })
    }

    /// Dimension.
    pub fn dim(&self) -> Dim {
        self.dim
    }

    /// Points per axis.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Boundary kind.
    pub fn boundary(&self) -> Boundary {
        self.boundary
    }

    /// Number of points, `N^d`.
    pub fn len(&self) -> usize {
        self.n.pow(self.dim.axes() as u32)
    }

    /// Always false (a grid has at least one point); present for the `len` convention.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Points per z-plane: `N²` in 3D, `N²` for the single plane of a 2D grid.
    pub fn plane_len(&self) -> usize {
        self.n * self.n
    }

    /// Number of z-planes: `N` in 3D, 1 in 2D.
    pub fn planes(&self) -> usize {
        match self.dim {
            Dim::Two => 1,
            Dim::Three => self.n,
        }
    }

    /// The spacing `h` (see [`Boundary`]).
    pub fn h(&self) -> f64 {
        1.0 / self.cells()
    }

    /// Intervals per unit length, `1/h` (an integer: N + 1, N or N − 1).
    fn cells(&self) -> f64 {
        let n = self.n as f64;
        match self.boundary {
            Boundary::Dirichlet => n + 1.0,
            Boundary::Neumann | Boundary::Periodic => n,
            Boundary::Frame => (n - 1.0).max(1.0),
        }
    }

    /// `h⁻²`, the factor of the stencil, exact (the square of an integer).
    pub fn inv_h2(&self) -> f64 {
        self.cells() * self.cells()
    }

    /// Coordinate of index `i` along one axis.
    pub fn coord(&self, i: usize) -> f64 {
        let h = self.h();
        match self.boundary {
            Boundary::Dirichlet => (i as f64 + 1.0) * h,
            Boundary::Neumann => (i as f64 + 0.5) * h,
            Boundary::Periodic | Boundary::Frame => i as f64 * h,
        }
    }

    /// Coordinates (x, y, z) of the point with linear index `i = ix + N·iy + N²·iz`
    /// (z = ½ in 2D).
    pub fn point(&self, i: usize) -> [f64; 3] {
        let n = self.n;
        let (ix, iy, iz) = (i % n, (i / n) % n, i / (n * n));
        let z = match self.dim {
            Dim::Two => 0.5,
            Dim::Three => self.coord(iz),
        };
        [self.coord(ix), self.coord(iy), z]
    }

    /// Whether axis index `i` lies on the frame (first or last layer) of a [`Boundary::Frame`]
    /// grid.
    pub(crate) fn on_frame(&self, i: usize) -> bool {
        i == 0 || i + 1 == self.n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spacing_tiles_the_unit_interval() {
        let n = 7;
        let d = Grid::new(Dim::Three, n, Boundary::Dirichlet).unwrap();
        assert!((d.coord(0) - d.h()).abs() < 1e-15 && (1.0 - d.coord(n - 1) - d.h()).abs() < 1e-15);
        let nm = Grid::new(Dim::Two, n, Boundary::Neumann).unwrap();
        assert!((nm.coord(0) - 0.5 * nm.h()).abs() < 1e-15);
        assert!((1.0 - nm.coord(n - 1) - 0.5 * nm.h()).abs() < 1e-15);
        let f = Grid::new(Dim::Three, n, Boundary::Frame).unwrap();
        assert_eq!((f.coord(0), f.coord(n - 1)), (0.0, 1.0));
        assert_eq!(
            Grid::new(Dim::Two, 3, Boundary::Periodic).unwrap().point(5)[2],
            0.5
        );
    }

    #[test]
    fn rejects_empty_and_oversized_grids() {
        assert!(Grid::new(Dim::Two, 0, Boundary::Dirichlet).is_err());
        assert!(Grid::new(Dim::Three, 2000, Boundary::Dirichlet).is_err());
        assert!(Grid::new(Dim::Three, 1625, Boundary::Dirichlet).is_ok());
    }
}
