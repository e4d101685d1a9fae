//! Random and regular graphs as symmetric, loop-free patterns.

use crate::pattern::canonicalize_in_place;
use crate::{CsrIndex, PatternCsr};
use matexp_core::{Error, Result};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashSet;

/// The canonical symmetric pattern of the undirected simple graph with edge list
/// `(endpoints[2k], endpoints[2k+1])` (no loops or repeats, which the callers guarantee).
/// Fills both directions by a counting pass, then sorts rows in parallel. O(n + E log d).
fn from_simple_edges<I: CsrIndex>(n: usize, endpoints: &[I]) -> Result<PatternCsr<I>> {
    I::narrow_checked(endpoints.len(), "number of stored entries (2·edges)")?;
    let mut next = vec![0usize; n + 1];
    for e in endpoints {
        next[e.as_usize() + 1] += 1;
    }
    for i in 0..n {
        next[i + 1] += next[i];
    }
    let mut row_ptr: Vec<I> = next.iter().map(|&c| I::narrow(c)).collect();
    let mut cols = vec![I::narrow(0); endpoints.len()];
    for e in endpoints.chunks_exact(2) {
        let (u, v) = (e[0].as_usize(), e[1].as_usize());
        cols[next[u]] = e[1];
        next[u] += 1;
        cols[next[v]] = e[0];
        next[v] += 1;
    }
    let mut units = vec![(); cols.len()];
    canonicalize_in_place(&mut row_ptr, &mut cols, &mut units, |a, _| a);
    Ok(PatternCsr::from_parts_trusted(n, n, row_ptr, cols, true))
}

/// A Barabási–Albert preferential-attachment graph (seed 002's synthetic graph) with `n`
/// nodes and parameter `m`:
///
/// 1. start from the complete graph K_{m+1} on nodes 0..=m;
/// 2. each new node v = m+1, …, n−1 attaches to m distinct earlier nodes, each drawn with
///    probability proportional to its current degree — drawn uniformly from the list of edge
///    endpoints so far (every node appears once per incident edge), redrawing repeats.
///
/// Simple (no loops, no multi-edges), connected, m(m+1)/2 + (n − m − 1)·m edges (n = 10⁶,
/// m = 10: 9 999 945 edges). Draws: `rng.random_range(0..len)` of
/// `ChaCha8Rng::seed_from_u64(seed)`. O(n·m) time, serial (attachment is sequential);
/// memory 2·E indices for the endpoint list plus the result.
///
/// # Errors
///
/// [`Error::InvalidArgument`](matexp_core::Error::InvalidArgument) for `m = 0` or `n < m + 1`,
/// or when `n` or the number of stored entries does not fit the index type `I`.
///
/// ```
/// use matexp_sparse::generators::barabasi_albert;
/// let g = barabasi_albert::<u32>(1000, 3, 1)?;
/// assert_eq!(g.nnz(), 2 * (3 * 4 / 2 + (1000 - 4) * 3));
/// assert!(g.is_symmetric());
/// # Ok::<(), matexp_core::Error>(())
/// ```
pub fn barabasi_albert<I: CsrIndex>(n: usize, m: usize, seed: u64) -> Result<PatternCsr<I>> {
    if m == 0 {
        return Err(Error::invalid(
            "m",
            m,
            "each new node must attach at least one edge",
        ));
    }
    if n < m + 1 {
        return Err(Error::invalid(
            "n",
            n,
            format!("need n ≥ m + 1 = {} (the initial K_(m+1))", m + 1),
        ));
    }
    I::narrow_checked(n, "n")?;
    let edges = m * (m + 1) / 2 + (n - m - 1) * m;
    let mut endpoints: Vec<I> = Vec::with_capacity(2 * edges);
    for u in 0..=m {
        for v in 0..u {
            endpoints.push(I::narrow(u));
            endpoints.push(I::narrow(v));
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut targets: Vec<I> = Vec::with_capacity(m);
    for v in m + 1..n {
        let len = endpoints.len();
        targets.clear();
        while targets.len() < m {
            let t = endpoints[rng.random_range(0..len)];
            if !targets.contains(&t) {
                targets.push(t);
            }
        }
        for &t in &targets {
            endpoints.push(I::narrow(v));
            endpoints.push(t);
        }
    }
    from_simple_edges(n, &endpoints)
}

/// The 2D grid graph (4-neighbour lattice) with `nx × ny` nodes, node (x, y) ↦ x + nx·y.
/// Degrees: 4 inside, 3 on edges, 2 at corners; 2·(nx−1)·ny + 2·nx·(ny−1) stored entries.
///
/// # Errors
///
/// [`Error::InvalidArgument`](matexp_core::Error::InvalidArgument) for an axis without nodes,
/// or when the node or entry count does not fit `usize` or the index type `I`.
pub fn grid_graph_2d<I: CsrIndex>(nx: usize, ny: usize) -> Result<PatternCsr<I>> {
    grid(&[nx, ny])
}

/// The 3D grid graph (6-neighbour lattice) with `nx × ny × nz` nodes, node (x, y, z) ↦
/// x + nx·y + nx·ny·z. Degrees 3 to 6.
///
/// # Errors
///
/// As [`grid_graph_2d`].
pub fn grid_graph_3d<I: CsrIndex>(nx: usize, ny: usize, nz: usize) -> Result<PatternCsr<I>> {
    grid(&[nx, ny, nz])
}

fn grid<I: CsrIndex>(dims: &[usize]) -> Result<PatternCsr<I>> {
    if let Some(&d) = dims.iter().find(|&&d| d == 0) {
        return Err(Error::invalid(
            "grid size",
            d,
            "every axis needs at least one node",
        ));
    }
    Ok(super::laplacian::lattice::<(), I>(dims, false, |_, _| ())?.0)
}

/// The Erdős–Rényi graph G(n, p): each of the n(n−1)/2 node pairs is an edge independently
/// with probability p. Geometric skipping (Batagelj & Brandes 2005) visits only the chosen
/// pairs: O(n + E) expected time instead of O(n²). Draws `rng.random::<f64>()` of
/// `ChaCha8Rng::seed_from_u64(seed)`.
///
/// # Errors
///
/// [`Error::InvalidArgument`](matexp_core::Error::InvalidArgument) for `p` outside [0, 1], or
/// when `n` or the number of stored entries does not fit the index type `I`.
pub fn erdos_renyi_gnp<I: CsrIndex>(n: usize, p: f64, seed: u64) -> Result<PatternCsr<I>> {
    if !(0.0..=1.0).contains(&p) {
        return Err(Error::invalid(
            "p",
            p,
            "edge probability must lie in [0, 1]",
        ));
    }
    I::narrow_checked(n, "n")?;
    let mut endpoints: Vec<I> = Vec::new();
    if p > 0.0 && n > 1 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let log_q = (1.0 - p).ln(); // −∞ for p = 1: every skip is 0
        // Pairs (v, w) with w < v, in the order (1,0), (2,0), (2,1), (3,0), …
        let (mut v, mut w) = (1usize, 0usize);
        let mut first = true;
        loop {
            let r: f64 = rng.random();
            let skip = if p >= 1.0 {
                0.0
            } else {
                ((1.0 - r).ln() / log_q).floor()
            };
            // Advance by skip (+1 after the first pair), wrapping rows as needed.
            let mut step = if first { skip } else { skip + 1.0 };
            first = false;
            while step > 0.0 && v < n {
                let room = (v - w) as f64; // pairs left in row v from w on
                if step < room {
                    w += step as usize;
                    step = 0.0;
                } else {
                    step -= room;
                    v += 1;
                    w = 0;
                }
            }
            if v >= n {
                break;
            }
            endpoints.push(I::narrow(v));
            endpoints.push(I::narrow(w));
        }
    }
    from_simple_edges(n, &endpoints)
}

/// The Erdős–Rényi graph G(n, M): M edges drawn uniformly without replacement from the
/// n(n−1)/2 node pairs. For M at most half the pairs, ordered pairs u ≠ v are drawn
/// uniformly (each unordered pair equally likely) and repeats redrawn; otherwise the
/// complement is drawn that way and the remaining pairs enumerated. O(n + M) expected time,
/// a hash set of min(M, pairs − M) pairs. Draws from `ChaCha8Rng::seed_from_u64(seed)`.
///
/// # Errors
///
/// [`Error::InvalidArgument`](matexp_core::Error::InvalidArgument) when `edges` exceeds the
/// n(n−1)/2 node pairs, or when `n` or the number of stored entries does not fit the index type
/// `I`.
pub fn erdos_renyi_gnm<I: CsrIndex>(n: usize, edges: usize, seed: u64) -> Result<PatternCsr<I>> {
    I::narrow_checked(n, "n")?;
    let pairs = (n as u128) * (n.saturating_sub(1) as u128) / 2;
    if edges as u128 > pairs {
        return Err(Error::invalid(
            "edges",
            edges,
            format!("a simple graph on {n} nodes has at most {pairs} edges"),
        ));
    }
    let code = |u: usize, v: usize| (u.max(v) as u64) * n as u64 + u.min(v) as u64;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let complement = 2 * edges as u128 > pairs;
    let draw = if complement {
        (pairs - edges as u128) as usize
    } else {
        edges
    };
    let mut chosen: HashSet<u64> = HashSet::with_capacity(draw);
    let mut endpoints: Vec<I> = Vec::with_capacity(2 * edges);
    while chosen.len() < draw {
        let u = rng.random_range(0..n);
        let v = rng.random_range(0..n);
        if u != v && chosen.insert(code(u, v)) && !complement {
            endpoints.push(I::narrow(u.max(v)));
            endpoints.push(I::narrow(u.min(v)));
        }
    }
    if complement {
        for v in 1..n {
            for w in 0..v {
                if !chosen.contains(&code(v, w)) {
                    endpoints.push(I::narrow(v));
                    endpoints.push(I::narrow(w));
                }
            }
        }
    }
    from_simple_edges(n, &endpoints)
}
