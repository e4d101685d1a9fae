//! Pattern-only CSR: the structure of a sparse matrix without a value array, for unweighted
//! graphs (every stored entry means 1) and as the shared skeleton of [`crate::CsrMatrix`].

use crate::CsrIndex;
// Older paths of the raw CSR algorithms, kept for the modules that import them from here.
pub(crate) use crate::raw::canonicalize_in_place;
use crate::raw::{transpose_raw, validate};
use matexp_core::{Error, Result, SpectralBounds};
use rayon::prelude::*;
use std::fmt;
use std::sync::OnceLock;

/// A sparse pattern in compressed sparse row form: row `i` holds the column indices
/// `col_idx[row_ptr[i]..row_ptr[i+1]]`.
///
/// As an operator (see [`crate::operator`]) every stored entry counts as 1, so the pattern of
/// an undirected graph applies its adjacency matrix; a column index stored twice in a row
/// counts twice, exactly as a duplicate coordinate entry would in a weighted matrix.
///
/// Invariants, checked by every constructor: `row_ptr.len() == nrows + 1`, `row_ptr[0] == 0`,
/// `row_ptr` non-decreasing, `row_ptr[nrows] == col_idx.len()`, every column index
/// `< ncols`. Whether each row's columns are strictly increasing (the *canonical* form:
/// sorted, no duplicates) is recorded and available as [`PatternCsr::is_canonical`].
///
/// Memory: `(nrows + 1 + nnz) · size_of::<I>()` bytes.
///
/// ```
/// use matexp_sparse::PatternCsr;
/// // The path graph 0 – 1 – 2.
/// let g = PatternCsr::<u32>::undirected_graph(3, &[(0, 1), (1, 2)])?;
/// assert_eq!(g.nnz(), 4);
/// assert_eq!(g.degrees(), vec![1, 2, 1]);
/// assert!(g.is_symmetric());
/// # Ok::<(), matexp_core::Error>(())
/// ```
#[derive(Clone)]
pub struct PatternCsr<I: CsrIndex = u32> {
    nrows: usize,
    ncols: usize,
    row_ptr: Vec<I>,
    col_idx: Vec<I>,
    canonical: bool,
    symmetric: OnceLock<bool>,
    bounds: OnceLock<Option<SpectralBounds>>,
}

impl<I: CsrIndex> fmt::Debug for PatternCsr<I> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PatternCsr")
            .field("nrows", &self.nrows)
            .field("ncols", &self.ncols)
            .field("nnz", &self.nnz())
            .field("index", &I::NAME)
            .field("canonical", &self.canonical)
            .finish()
    }
}

impl<I: CsrIndex> PartialEq for PatternCsr<I> {
    /// Structural equality of the stored arrays (not of the sets they represent: an
    /// unsorted row differs from its sorted copy).
    fn eq(&self, other: &Self) -> bool {
        self.nrows == other.nrows
            && self.ncols == other.ncols
            && self.row_ptr == other.row_ptr
            && self.col_idx == other.col_idx
    }
}

impl<I: CsrIndex> PatternCsr<I> {
    /// A pattern from its CSR arrays, validated (see the type's invariants).
    ///
    /// Errors: [`Error::DimensionMismatch`] for wrong array lengths,
    /// [`Error::InvalidArgument`] for a non-monotone row pointer, an out-of-range column or
    /// a dimension too large for `I`. Cost O(nrows + nnz), parallel.
    ///
    /// # Errors
    ///
    /// [`Error::DimensionMismatch`] or [`Error::InvalidArgument`] for a malformed structure:
    /// `row_ptr` not of length `nrows + 1`, not starting at 0, decreasing or not ending at
    /// `col_idx.len()`, a column index ≥ `ncols`, or sizes beyond `I`.
    pub fn try_new(nrows: usize, ncols: usize, row_ptr: Vec<I>, col_idx: Vec<I>) -> Result<Self> {
        let canonical = validate(nrows, ncols, &row_ptr, &col_idx)?;
        Ok(Self::from_parts_trusted(
            nrows, ncols, row_ptr, col_idx, canonical,
        ))
    }

    /// Like [`PatternCsr::try_new`], and additionally requires every row to be strictly
    /// increasing (sorted, no duplicates).
    ///
    /// # Errors
    ///
    /// Those of [`PatternCsr::try_new`], and [`Error::InvalidArgument`] for a row with unsorted
    /// or repeated columns.
    pub fn try_new_canonical(
        nrows: usize,
        ncols: usize,
        row_ptr: Vec<I>,
        col_idx: Vec<I>,
    ) -> Result<Self> {
        let p = Self::try_new(nrows, ncols, row_ptr, col_idx)?;
        if !p.canonical {
            return Err(Error::invalid(
                "col_idx",
                "unsorted or duplicate column indices",
                "a canonical pattern needs strictly increasing columns in every row",
            ));
        }
        Ok(p)
    }

    pub(crate) fn from_parts_trusted(
        nrows: usize,
        ncols: usize,
        row_ptr: Vec<I>,
        col_idx: Vec<I>,
        canonical: bool,
    ) -> Self {
        debug_assert_eq!(
            validate(nrows, ncols, &row_ptr, &col_idx).ok(),
            Some(canonical)
        );
        PatternCsr {
            nrows,
            ncols,
            row_ptr,
            col_idx,
            canonical,
            symmetric: OnceLock::new(),
            bounds: OnceLock::new(),
        }
    }

    /// The canonical pattern holding the coordinates `(row, col)` (0-based; repeats are
    /// stored once). O(nnz log(row length)).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for a coordinate outside `nrows × ncols` or sizes beyond `I`.
    pub fn from_coordinates(
        nrows: usize,
        ncols: usize,
        entries: &[(usize, usize)],
    ) -> Result<Self> {
        for &(i, j) in entries {
            if i >= nrows || j >= ncols {
                return Err(Error::invalid(
                    "entries",
                    format!("({i}, {j})"),
                    format!("outside the {nrows} × {ncols} matrix"),
                ));
            }
        }
        I::narrow_checked(entries.len(), "number of entries")?;
        let rows: Vec<I> = entries.iter().map(|e| I::narrow(e.0)).collect();
        let cols: Vec<I> = entries.iter().map(|e| I::narrow(e.1)).collect();
        let units = vec![(); entries.len()];
        let (mut row_ptr, mut col_idx, mut units) =
            crate::raw::coo_to_csr(nrows, &rows, &cols, &units)?;
        canonicalize_in_place(&mut row_ptr, &mut col_idx, &mut units, |a, _| a);
        Ok(Self::from_parts_trusted(
            nrows, ncols, row_ptr, col_idx, true,
        ))
    }

    /// The adjacency pattern of an undirected graph on `n` nodes: each edge `(u, v)` is stored
    /// as (u, v) and (v, u); repeated edges are stored once; a loop (u, u) is stored once.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] for an endpoint ≥ `n` or sizes beyond `I`.
    pub fn undirected_graph(n: usize, edges: &[(usize, usize)]) -> Result<Self> {
        let mut both = Vec::with_capacity(2 * edges.len());
        for &(u, v) in edges {
            both.push((u, v));
            if u != v {
                both.push((v, u));
            }
        }
        Self::from_coordinates(n, n, &both)
    }

    /// Number of rows.
    pub fn nrows(&self) -> usize {
        self.nrows
    }
    /// Number of columns.
    pub fn ncols(&self) -> usize {
        self.ncols
    }
    /// Number of stored entries (for an undirected graph without loops: twice the edges).
    pub fn nnz(&self) -> usize {
        self.col_idx.len()
    }
    /// Row pointers (`nrows + 1` entries).
    pub fn row_ptr(&self) -> &[I] {
        &self.row_ptr
    }
    /// Column indices (`nnz` entries).
    pub fn col_idx(&self) -> &[I] {
        &self.col_idx
    }
    /// Column indices of row `i`. Panics if `i >= nrows` (an indexing error, like slices).
    pub fn row(&self, i: usize) -> &[I] {
        &self.col_idx[self.row_ptr[i].as_usize()..self.row_ptr[i + 1].as_usize()]
    }
    /// Whether every row's columns are strictly increasing.
    pub fn is_canonical(&self) -> bool {
        self.canonical
    }
    /// Stored entries per row (the degree of each node of a graph, loops counted once).
    pub fn degrees(&self) -> Vec<usize> {
        self.row_ptr
            .windows(2)
            .map(|w| w[1].as_usize() - w[0].as_usize())
            .collect()
    }
    /// The largest row length.
    pub fn max_degree(&self) -> usize {
        self.row_ptr
            .windows(2)
            .map(|w| w[1].as_usize() - w[0].as_usize())
            .max()
            .unwrap_or(0)
    }
    /// Whether some diagonal entry (i, i) is stored.
    pub fn has_diagonal_entries(&self) -> bool {
        (0..self.nrows.min(self.ncols))
            .into_par_iter()
            .any(|i| self.row(i).iter().any(|c| c.as_usize() == i))
    }
    /// The CSR arrays `(nrows, ncols, row_ptr, col_idx)`.
    pub fn into_parts(self) -> (usize, usize, Vec<I>, Vec<I>) {
        (self.nrows, self.ncols, self.row_ptr, self.col_idx)
    }

    /// The canonical form: rows sorted, repeated columns stored once.
    pub fn canonicalize(&self) -> Self {
        if self.canonical {
            return self.clone();
        }
        let (mut p, mut c) = (self.row_ptr.clone(), self.col_idx.clone());
        let mut units = vec![(); self.nnz()];
        canonicalize_in_place(&mut p, &mut c, &mut units, |a, _| a);
        Self::from_parts_trusted(self.nrows, self.ncols, p, c, true)
    }

    /// The transposed pattern (rows sorted). O(nnz + ncols), serial.
    pub fn transpose(&self) -> Self {
        let units = vec![(); self.nnz()];
        let (p, c, _) = transpose_raw(
            self.nrows,
            self.ncols,
            &self.row_ptr,
            &self.col_idx,
            &units,
            |v| v,
        );
        // Rows of a transpose are sorted; they are strictly increasing iff the input had no
        // duplicates.
        // Decided before construction: the trusted constructor's debug check compares it.
        let canonical = self.canonical || crate::raw::rows_strictly_increasing(&p, &c);
        Self::from_parts_trusted(self.ncols, self.nrows, p, c, canonical)
    }

    /// Whether the pattern equals its transpose (the adjacency of an undirected graph).
    /// Repeated entries are compared as sets. Cached after the first call; O(nnz log d)
    /// by binary search in sorted rows (a canonical copy is made first if needed).
    pub fn is_symmetric(&self) -> bool {
        *self.symmetric.get_or_init(|| {
            if self.nrows != self.ncols {
                return false;
            }
            let canon;
            let p = if self.canonical {
                self
            } else {
                canon = self.canonicalize();
                &canon
            };
            (0..p.nrows).into_par_iter().with_min_len(256).all(|i| {
                p.row(i)
                    .iter()
                    .all(|j| p.row(j.as_usize()).binary_search(&I::narrow(i)).is_ok())
            })
        })
    }

    /// Gershgorin bounds of the 0/1 matrix the pattern represents: disc `i` is centred at the
    /// number of stored (i, i) entries with radius the number of other entries of row `i`.
    /// A real interval when the pattern is symmetric. `None` for a non-square or empty
    /// pattern. Cached after the first call; O(nnz), parallel.
    pub fn gershgorin(&self) -> Option<SpectralBounds> {
        *self.bounds.get_or_init(|| {
            if self.nrows != self.ncols || self.nrows == 0 {
                return None;
            }
            let (lo, hi, im_lo, im_hi) =
                crate::gershgorin_box::<f64, I>(self.nrows, &self.row_ptr, &self.col_idx, None);
            if self.is_symmetric() {
                SpectralBounds::real(lo, hi).ok()
            } else {
                // Discs centred on the real axis: the imaginary extent is the largest radius.
                SpectralBounds::new(lo, hi, im_lo, im_hi).ok()
            }
        })
    }

    /// The same pattern with index type `J`; errors if a size does not fit `J`.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidArgument`] if a dimension or `nnz` does not fit `J`.
    pub fn with_index<J: CsrIndex>(&self) -> Result<PatternCsr<J>> {
        J::narrow_checked(self.nrows, "nrows")?;
        J::narrow_checked(self.ncols, "ncols")?;
        J::narrow_checked(self.nnz(), "nnz")?;
        Ok(PatternCsr::from_parts_trusted(
            self.nrows,
            self.ncols,
            self.row_ptr
                .par_iter()
                .map(|i| J::narrow(i.as_usize()))
                .collect(),
            self.col_idx
                .par_iter()
                .map(|i| J::narrow(i.as_usize()))
                .collect(),
            self.canonical,
        ))
    }

    /// Weakly connected components (edge direction ignored), by union–find with path
    /// halving over all stored entries: returns the number of components and each row's
    /// component label in `0..count` (labels numbered in order of first appearance).
    /// Requires a square pattern. O(nnz · α(n)), serial.
    ///
    /// # Errors
    ///
    /// [`Error::DimensionMismatch`] if the pattern is not square.
    pub fn connected_components(&self) -> Result<(usize, Vec<usize>)> {
        if self.nrows != self.ncols {
            return Err(Error::dim(
                "connected_components: square pattern (ncols)",
                self.nrows,
                self.ncols,
            ));
        }
        let n = self.nrows;
        let mut parent: Vec<usize> = (0..n).collect();
        fn find(parent: &mut [usize], mut x: usize) -> usize {
            while parent[x] != x {
                parent[x] = parent[parent[x]];
                x = parent[x];
            }
            x
        }
        for i in 0..n {
            for j in self.row(i) {
                let (a, b) = (find(&mut parent, i), find(&mut parent, j.as_usize()));
                if a != b {
                    // Attach the larger root under the smaller: deterministic labels.
                    let (lo, hi) = if a < b { (a, b) } else { (b, a) };
                    parent[hi] = lo;
                }
            }
        }
        let mut label = vec![usize::MAX; n];
        let mut count = 0;
        let mut out = vec![0; n];
        for i in 0..n {
            let r = find(&mut parent, i);
            if label[r] == usize::MAX {
                label[r] = count;
                count += 1;
            }
            out[i] = label[r];
        }
        Ok((count, out))
    }
}
