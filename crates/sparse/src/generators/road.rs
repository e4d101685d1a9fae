//! A low-degree, connected, planar-like graph with the shape of road networks.

use super::{SplitMix64, unit_interval};
use crate::parallel::for_each_row_mut;
use crate::{CsrIndex, PatternCsr};
use matexp_core::{Error, Result};

/// A synthetic road network: a random spanning tree of the `nx × ny` grid, plus a fraction
/// of the remaining grid edges, plus a few diagonal shortcuts.
///
/// Real road graphs (europe_osm: 51 M nodes, mean degree 2.1; road_central: 14 M nodes,
/// mean degree 2.4) are nearly planar, sparse, of bounded degree and large diameter; SpMV on
/// them is dominated by streaming, with good locality when nodes are numbered geographically.
/// This generator has those traits:
///
/// * every node (x, y) other than (0, 0) keeps the edge to its left or its upper neighbour
///   (chosen at random; forced on the first row and column): a spanning tree, so the graph
///   is **connected**;
/// * every other grid edge is kept with probability `extra_edge_prob`;
/// * the diagonal (x−1, y−1)–(x, y) is added with probability `shortcut_prob`;
/// * node (x, y) has index x + nx·y; degree ≤ 6; mean degree ≈ 2(1 + extra + shortcut)
///   (2.24 with the defaults 0.10 and 0.02).
///
/// Every decision is a hash of (seed, node, kind) (SplitMix64), so both endpoints of an edge
/// agree without an edge list: rows are counted and filled in parallel directly into CSR.
/// **Memory**: the result only, `(n + 1 + nnz)·size_of::<I>()` ≈ 4 + 4·2.24 ≈ 13 bytes per node
/// with `u32` (≈ 0.67 GB for 50 M nodes); the row-length pass holds n `usize` (8 bytes per
/// node) transiently.
///
/// ```
/// use matexp_sparse::generators::RoadNetwork;
/// let g = RoadNetwork::new(200, 100, 7).build::<u32>()?;
/// assert_eq!(g.nrows(), 20_000);
/// assert!(g.max_degree() <= 6);
/// assert_eq!(g.connected_components()?.0, 1);
/// # Ok::<(), matexp_core::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RoadNetwork {
    /// Nodes per grid row.
    pub nx: usize,
    /// Grid rows.
    pub ny: usize,
    /// Probability of keeping a grid edge that is not in the spanning tree.
    pub extra_edge_prob: f64,
    /// Probability of a diagonal shortcut at each interior cell.
    pub shortcut_prob: f64,
    /// Random seed.
    pub seed: u64,
}

const TREE: u64 = 0x7472_6565;
const HORIZONTAL: u64 = 0x686f_7269;
const VERTICAL: u64 = 0x7665_7274;
const DIAGONAL: u64 = 0x6469_6167;

impl RoadNetwork {
    /// An `nx × ny` network with the default densities (extra edges 0.10, shortcuts 0.02).
    pub fn new(nx: usize, ny: usize, seed: u64) -> Self {
        RoadNetwork {
            nx,
            ny,
            extra_edge_prob: 0.10,
            shortcut_prob: 0.02,
            seed,
        }
    }

    /// A roughly square network with about `nodes` nodes (nx = ⌈√nodes⌉, ny = ⌈nodes / nx⌉).
    pub fn with_nodes(nodes: usize, seed: u64) -> Self {
        let nx = ((nodes as f64).sqrt().ceil() as usize).max(1);
        Self::new(nx, nodes.div_ceil(nx).max(1), seed)
    }

    fn hash(&self, kind: u64, node: usize) -> u64 {
        SplitMix64::mix(
            SplitMix64::mix(self.seed ^ kind.wrapping_mul(0x9E37_79B9_7F4A_7C15)) ^ node as u64,
        )
    }

    /// Whether node (x, y)'s tree edge goes left (else up); meaningless at (0, 0).
    fn tree_left(&self, x: usize, y: usize, i: usize) -> bool {
        if y == 0 {
            true
        } else if x == 0 {
            false
        } else {
            self.hash(TREE, i) & 1 == 0
        }
    }

    /// Edge (x−1, y)–(x, y), owned by (x, y); requires x > 0.
    fn horizontal(&self, x: usize, y: usize, i: usize) -> bool {
        self.tree_left(x, y, i) || unit_interval(self.hash(HORIZONTAL, i)) < self.extra_edge_prob
    }

    /// Edge (x, y−1)–(x, y), owned by (x, y); requires y > 0.
    fn vertical(&self, x: usize, y: usize, i: usize) -> bool {
        !self.tree_left(x, y, i) || unit_interval(self.hash(VERTICAL, i)) < self.extra_edge_prob
    }

    /// Edge (x−1, y−1)–(x, y), owned by (x, y); requires x, y > 0.
    fn diagonal(&self, i: usize) -> bool {
        unit_interval(self.hash(DIAGONAL, i)) < self.shortcut_prob
    }

    /// Neighbours of node i in ascending order; returns the count (≤ 6).
    fn neighbours(&self, i: usize, out: &mut [usize; 6]) -> usize {
        let (nx, ny) = (self.nx, self.ny);
        let (x, y) = (i % nx, i / nx);
        let mut len = 0;
        let mut push = |j: usize| {
            out[len] = j;
            len += 1;
        };
        if x > 0 && y > 0 && self.diagonal(i) {
            push(i - nx - 1);
        }
        if y > 0 && self.vertical(x, y, i) {
            push(i - nx);
        }
        if x > 0 && self.horizontal(x, y, i) {
            push(i - 1);
        }
        if x + 1 < nx && self.horizontal(x + 1, y, i + 1) {
            push(i + 1);
        }
        if y + 1 < ny && self.vertical(x, y + 1, i + nx) {
            push(i + nx);
        }
        if x + 1 < nx && y + 1 < ny && self.diagonal(i + nx + 1) {
            push(i + nx + 1);
        }
        len
    }

    /// Builds the symmetric, loop-free, connected pattern. O(n), parallel.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] on an empty grid, probabilities outside [0, 1], or a size
    /// that does not fit `I`.
    pub fn build<I: CsrIndex>(&self) -> Result<PatternCsr<I>> {
        if self.nx == 0 || self.ny == 0 {
            return Err(Error::invalid(
                "nx·ny",
                format!("{} · {}", self.nx, self.ny),
                "the grid must not be empty",
            ));
        }
        for (name, p) in [
            ("extra_edge_prob", self.extra_edge_prob),
            ("shortcut_prob", self.shortcut_prob),
        ] {
            if !(0.0..=1.0).contains(&p) {
                return Err(Error::invalid(name, p, "a probability must lie in [0, 1]"));
            }
        }
        let n = self.nx.checked_mul(self.ny).ok_or_else(|| {
            Error::invalid(
                "nx·ny",
                format!("{} · {}", self.nx, self.ny),
                "overflows usize",
            )
        })?;
        I::narrow_checked(n, "number of nodes")?;
        let row_ptr: Vec<I> = super::row_ptr_from_lengths(n, |i| self.neighbours(i, &mut [0; 6]))?;
        let nnz = row_ptr[n].as_usize();
        let mut cols = vec![I::narrow(0); nnz];
        let mut units = vec![(); nnz];
        for_each_row_mut(&row_ptr, &mut cols, &mut units, |i, c, _| {
            let mut buf = [0usize; 6];
            let len = self.neighbours(i, &mut buf);
            for k in 0..len {
                c[k] = I::narrow(buf[k]);
            }
            false
        });
        Ok(PatternCsr::from_parts_trusted(n, n, row_ptr, cols, true))
    }
}
