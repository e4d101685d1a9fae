//! A planar triangulation of a grid: the mesh-like graphs of the seed (delaunay_n24).

use super::SplitMix64;
use crate::parallel::for_each_row_mut;
use crate::{CsrIndex, PatternCsr};
use matexp_core::{Error, Result};

/// The graph of a triangulated `nx × ny` grid: every grid edge, plus one diagonal per cell,
/// its direction drawn at random (a hash of the seed and the cell, SplitMix64).
///
/// It has the traits of 2D Delaunay triangulations of random points (delaunay_n24:
/// n = 2²⁴, 50.3 M edges): planar, every face a triangle, E ≈ 3n edges, mean degree → 6,
/// degrees 2 to 8 (a Delaunay graph's spread is wider, but its degree distribution is as
/// light-tailed). With nx = ny = 4096 it has n = 16 777 216 nodes and 50 315 265 edges,
/// within 0.03 % of delaunay_n24. Node (x, y) has index x + nx·y (geometric order, as
/// SuiteSparse's files are nearly).
///
/// Stored entries: 2·[(nx − 1)·ny + nx·(ny − 1) + (nx − 1)·(ny − 1)]. Rows are counted and
/// filled in parallel straight into CSR (each node knows its neighbours from the hashes of
/// the four cells around it); memory: the result plus n `usize` row lengths transiently.
///
/// # Errors
///
/// [`Error::InvalidArgument`] for an empty grid or a size that does not fit `I`.
///
/// ```
/// use matexp_sparse::generators::triangulated_grid;
/// let g = triangulated_grid::<u32>(30, 20, 1)?;
/// assert_eq!(g.nrows(), 600);
/// assert_eq!(g.nnz(), 2 * (29 * 20 + 30 * 19 + 29 * 19));
/// assert!(g.is_symmetric() && g.max_degree() <= 8);
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn triangulated_grid<I: CsrIndex>(nx: usize, ny: usize, seed: u64) -> Result<PatternCsr<I>> {
    if nx == 0 || ny == 0 {
        return Err(Error::invalid(
            "nx·ny",
            format!("{nx} · {ny}"),
            "the grid must not be empty",
        ));
    }
    let n = nx
        .checked_mul(ny)
        .ok_or_else(|| Error::invalid("nx·ny", format!("{nx} · {ny}"), "overflows usize"))?;
    I::narrow_checked(n, "number of nodes")?;
    let mesh = Mesh { nx, ny, seed };
    let row_ptr: Vec<I> = super::row_ptr_from_lengths(n, |i| mesh.neighbours(i, &mut [0; 8]))?;
    let nnz = row_ptr[n].as_usize();
    let mut cols = vec![I::narrow(0); nnz];
    let mut units = vec![(); nnz];
    for_each_row_mut(&row_ptr, &mut cols, &mut units, |i, c, _| {
        let mut buf = [0usize; 8];
        let len = mesh.neighbours(i, &mut buf);
        for k in 0..len {
            c[k] = I::narrow(buf[k]);
        }
        false
    });
    Ok(PatternCsr::from_parts_trusted(n, n, row_ptr, cols, true))
}

struct Mesh {
    nx: usize,
    ny: usize,
    seed: u64,
}

impl Mesh {
    /// Whether cell (cx, cy) (corners (cx, cy) … (cx + 1, cy + 1)) holds the main diagonal
    /// (cx, cy)–(cx + 1, cy + 1); otherwise the anti-diagonal (cx + 1, cy)–(cx, cy + 1).
    fn main_diagonal(&self, cx: usize, cy: usize) -> bool {
        let cell = (cx + self.nx * cy) as u64;
        SplitMix64::mix(SplitMix64::mix(self.seed ^ 0x6d65_7368) ^ cell) & 1 == 0
    }

    /// Neighbours of node i in ascending order; returns the count (≤ 8).
    fn neighbours(&self, i: usize, out: &mut [usize; 8]) -> usize {
        let (nx, ny) = (self.nx, self.ny);
        let (x, y) = (i % nx, i / nx);
        let (left, right, down, up) = (x > 0, x + 1 < nx, y > 0, y + 1 < ny);
        let mut len = 0;
        let mut push = |j: usize| {
            out[len] = j;
            len += 1;
        };
        // Row y − 1: the cells (x − 1, y − 1) and (x, y − 1) below the node.
        if left && down && self.main_diagonal(x - 1, y - 1) {
            push(i - nx - 1);
        }
        if down {
            push(i - nx);
        }
        if right && down && !self.main_diagonal(x, y - 1) {
            push(i - nx + 1);
        }
        if left {
            push(i - 1);
        }
        if right {
            push(i + 1);
        }
        // Row y + 1: the cells (x − 1, y) and (x, y) above the node.
        if left && up && !self.main_diagonal(x - 1, y) {
            push(i + nx - 1);
        }
        if up {
            push(i + nx);
        }
        if right && up && self.main_diagonal(x, y) {
            push(i + nx + 1);
        }
        len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Triangles of a graph with sorted rows: pairs of neighbours j < k of i > … counted once.
    fn triangles(g: &PatternCsr<u32>) -> usize {
        let mut t = 0;
        for i in 0..g.nrows() {
            for &j in g.row(i).iter().filter(|&&j| (j as usize) > i) {
                for &k in g.row(j as usize).iter().filter(|&&k| k > j) {
                    if g.row(i).binary_search(&k).is_ok() {
                        t += 1;
                    }
                }
            }
        }
        t
    }

    #[test]
    fn a_triangulation_of_the_rectangle() {
        for (nx, ny, seed) in [(2, 2, 0), (7, 5, 1), (40, 31, 9)] {
            let g = triangulated_grid::<u32>(nx, ny, seed).unwrap();
            assert!(g.is_symmetric() && g.is_canonical() && !g.has_diagonal_entries());
            let edges = g.nnz() / 2;
            assert_eq!(edges, (nx - 1) * ny + nx * (ny - 1) + (nx - 1) * (ny - 1));
            // Planar with every bounded face a triangle and no crossing diagonals: exactly
            // two triangles per cell (a crossing would create a K4 with four).
            assert_eq!(triangles(&g), 2 * (nx - 1) * (ny - 1), "{nx}×{ny}");
            assert_eq!(g.connected_components().unwrap().0, 1);
            assert!(g.max_degree() <= 8);
        }
    }

    #[test]
    fn diagonals_are_random_but_reproducible() {
        let a = triangulated_grid::<u32>(64, 64, 3).unwrap();
        assert_eq!(a, triangulated_grid::<u32>(64, 64, 3).unwrap());
        assert_ne!(a, triangulated_grid::<u32>(64, 64, 4).unwrap());
        // Interior degrees of a triangulated lattice average 6; both diagonal directions occur.
        let mean = a.nnz() as f64 / a.nrows() as f64;
        assert!((5.7..6.0).contains(&mean), "{mean}");
        let main = (0..63 * 63)
            .filter(|&c| {
                Mesh {
                    nx: 64,
                    ny: 64,
                    seed: 3,
                }
                .main_diagonal(c % 64, c / 64)
            })
            .count();
        assert!((1800..2170).contains(&main), "{main} of 3969");
    }

    #[test]
    fn empty_grids_are_rejected() {
        assert!(triangulated_grid::<u32>(0, 5, 1).is_err());
        assert!(triangulated_grid::<u32>(5, 0, 1).is_err());
        assert!(triangulated_grid::<u32>(1 << 17, 1 << 16, 1).is_err());
    }
}
