//! Deterministic generators of the seed documents' test problems.
//!
//! * [`SpinBath`]: the Hamiltonian of two spins in a spin bath (seed 000, §3.1.1) and its
//!   initial state, built row by row from bit operations on the basis states.
//! * [`laplacian_1d`], [`laplacian_2d`], [`laplacian_3d`]: the finite-difference Dirichlet
//!   Laplacian on the unit interval / square / cube (seeds 000 and 003), with the analytic
//!   spectrum in [`laplacian_eigenvalue`].
//! * Graphs as symmetric, loop-free [`crate::PatternCsr`]: [`barabasi_albert`] (seed 002's
//!   synthetic graph), [`grid_graph_2d`] / [`grid_graph_3d`], [`erdos_renyi_gnp`] /
//!   [`erdos_renyi_gnm`], and [`RoadNetwork`], a low-degree planar-like graph for the scale of
//!   europe_osm (51 M nodes).
//!
//! Randomness comes from `rand_chacha::ChaCha8Rng::seed_from_u64(seed)` (or, where rows are
//! built in parallel, from a counter-based SplitMix64 hash of the seed and the row), so every
//! output is a pure function of its arguments, independent of the thread count.

mod graphs;
mod laplacian;
mod mesh;
mod road;
mod spin_bath;

pub use graphs::{barabasi_albert, erdos_renyi_gnm, erdos_renyi_gnp, grid_graph_2d, grid_graph_3d};
pub use laplacian::{laplacian_1d, laplacian_2d, laplacian_3d, laplacian_eigenvalue};
pub use mesh::triangulated_grid;
pub use road::RoadNetwork;
pub use spin_bath::{SpinBath, StoredZeros};

use crate::CsrIndex;
use crate::parallel::SERIAL_WORK;
use rayon::prelude::*;

/// Row pointers from row lengths given by `len(row)`, computed in parallel; errors if the
/// total does not fit `I`.
pub(crate) fn row_ptr_from_lengths<I: CsrIndex>(
    nrows: usize,
    len: impl Fn(usize) -> usize + Sync,
) -> matexp_core::Result<Vec<I>> {
    let lens: Vec<usize> = if nrows < SERIAL_WORK {
        (0..nrows).map(&len).collect()
    } else {
        (0..nrows).into_par_iter().map(&len).collect()
    };
    let total: usize = lens.iter().sum();
    I::narrow_checked(total, "number of stored entries")?;
    let mut ptr = Vec::with_capacity(nrows + 1);
    let mut acc = 0usize;
    ptr.push(I::narrow(0));
    for l in lens {
        acc += l;
        ptr.push(I::narrow(acc));
    }
    Ok(ptr)
}

// The rows draw their random numbers from SplitMix64's counter-based mixer
// (`matexp_core::rng`), a pure function of (seed, row), so rows build in any order.
pub(crate) use matexp_core::rng::{SplitMix64, unit_interval};
