//! Constructors of [`DistCsr`]: from this rank's rows, from a whole matrix, scattered from
//! a root rank, or read from a MatrixMarket file.

use super::DistCsr;
use super::plan::GhostPlan;
use super::props::Rows;
use crate::comm::{Communicator, Reduce, alltoallv};
use crate::halo::Halo;
use crate::layout::RowLayout;
use crate::wire;
use matexp_core::{Error, Result, Scalar, check_dim};
use matexp_sparse::{CsrIndex, CsrMatrix};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Checks this rank's rows; the verdict is agreed by all ranks (so that a bad block on one
/// rank is an error on every rank, never a rank waiting for another that gave up).
fn check_rows<S: Scalar>(
    comm: &dyn Communicator,
    layout: &RowLayout,
    row_ptr: &[usize],
    cols: &[usize],
    vals: &[S],
) -> Result<()> {
    let local = (|| {
        check_dim("DistCsr: layout blocks = ranks", comm.size(), layout.size())?;
        wire::check_index_range(layout.n())?;
        let rows = layout.range(comm.rank()).len();
        check_dim(
            "DistCsr: row pointers of this rank",
            rows + 1,
            row_ptr.len(),
        )?;
        check_dim("DistCsr: values per column index", cols.len(), vals.len())?;
        if row_ptr[0] != 0 || row_ptr.windows(2).any(|w| w[0] > w[1]) || row_ptr[rows] != cols.len()
        {
            return Err(Error::invalid(
                "row_ptr",
                format!("[{}, …, {}]", row_ptr[0], row_ptr[rows]),
                format!("must rise from 0 to the {} stored entries", cols.len()),
            ));
        }
        if let Some(k) = cols.iter().position(|&c| c >= layout.n()) {
            return Err(Error::invalid(
                "column",
                cols[k],
                format!("columns are below n = {}", layout.n()),
            ));
        }
        if let Some(k) = vals.iter().position(|v| {
            let z = v.to_c64();
            !(z.re.is_finite() && z.im.is_finite())
        }) {
            return Err(Error::NonFinite {
                context: "DistCsr values".into(),
                index: k,
                value: vals[k].to_string(),
            });
        }
        Ok(())
    })();
    let ok = comm.all(local.is_ok())?;
    match (local, ok) {
        (Err(e), _) => Err(e),
        (Ok(()), false) => Err(Error::invalid(
            "rows",
            "of another rank",
            "another rank's rows were rejected (its error names the reason)",
        )),
        (Ok(()), true) => Ok(()),
    }
}

/// Sorts each row by column and sums repeated columns (no-op on canonical rows).
fn canonical<S: Scalar>(row_ptr: &mut Vec<usize>, cols: &mut Vec<usize>, vals: &mut Vec<S>) {
    let sorted = row_ptr
        .windows(2)
        .all(|w| cols[w[0]..w[1]].windows(2).all(|p| p[0] < p[1]));
    if sorted {
        return;
    }
    let (mut rp, mut cs, mut vs) = (
        vec![0],
        Vec::with_capacity(cols.len()),
        Vec::with_capacity(vals.len()),
    );
    for w in row_ptr.windows(2) {
        let mut row: Vec<(usize, S)> = (w[0]..w[1]).map(|k| (cols[k], vals[k])).collect();
        row.sort_by_key(|e| e.0);
        let start = cs.len();
        for (c, v) in row {
            if cs.len() > start && *cs.last().expect("non-empty") == c {
                *vs.last_mut().expect("non-empty") += v;
            } else {
                cs.push(c);
                vs.push(v);
            }
        }
        rp.push(cs.len());
    }
    (*row_ptr, *cols, *vals) = (rp, cs, vs);
}

impl<S: Scalar> DistCsr<S> {
    /// The operator from this rank's rows `layout.range(rank)`: row pointers (from 0),
    /// **global** column indices and values. Collective: every rank calls it with its rows.
    /// Builds the ghost plan and the spectral information (see [`DistCsr`]).
    ///
    /// # Errors
    /// On every rank when any rank's rows are malformed ([`Error::DimensionMismatch`],
    /// [`Error::InvalidArgument`] for pointers or columns out of range, [`Error::NonFinite`]
    /// for NaN or ∞; the rank at fault names the reason); [`Error::InvalidArgument`] when
    /// the local numbering of a rank exceeds 32-bit indices; the communicator's errors.
    pub fn from_local_rows(
        comm: Arc<dyn Communicator>,
        layout: RowLayout,
        mut row_ptr: Vec<usize>,
        mut cols: Vec<usize>,
        mut vals: Vec<S>,
    ) -> Result<Self> {
        check_rows(comm.as_ref(), &layout, &row_ptr, &cols, &vals)?;
        canonical(&mut row_ptr, &mut cols, &mut vals);
        let plan = GhostPlan::build(comm.as_ref(), &layout, &cols)?;
        let own = layout.range(comm.rank());
        let nl = own.len();
        let fits = nl + plan.ghosts.len() <= u32::MAX as usize;
        if !comm.all(fits)? {
            return Err(Error::invalid(
                "rows per rank",
                nl,
                "owned rows plus ghosts of a rank must fit 32-bit local indices: use more ranks",
            ));
        }
        let local: Vec<u32> = cols
            .iter()
            .map(|&c| {
                plan.local_column(c, own.start, nl)
                    .expect("every column is owned or a ghost") as u32
            })
            .collect();
        drop(cols);
        let boundary = row_ptr
            .windows(2)
            .map(|w| local[w[0]..w[1]].iter().any(|&c| c as usize >= nl))
            .collect();
        let rows = Rows {
            comm: comm.as_ref(),
            layout: &layout,
            row_ptr: &row_ptr,
            cols: &local,
            vals: &vals,
            plan: &plan,
        };
        let props = rows.properties()?;
        Ok(DistCsr {
            comm,
            layout,
            row_ptr,
            cols: local,
            vals,
            boundary,
            plan,
            props,
            scratch: Mutex::new((Halo::default(), Vec::new())),
        })
    }

    /// This rank's rows of a matrix every rank holds, in blocks balanced by stored entries
    /// ([`RowLayout::by_work`]). Collective.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] for a non-square matrix; those of
    /// [`DistCsr::from_local_rows`].
    pub fn from_global<I: CsrIndex>(
        comm: Arc<dyn Communicator>,
        a: &CsrMatrix<S, I>,
    ) -> Result<Self> {
        check_dim("DistCsr: square matrix (columns)", a.nrows(), a.ncols())?;
        let rp: Vec<usize> = a.row_ptr().iter().map(|p| p.as_usize()).collect();
        let layout = RowLayout::by_work(&rp, comm.size())?;
        Self::with_layout(comm, a, layout)
    }

    /// As [`DistCsr::from_global`] with a given layout.
    ///
    /// # Errors
    /// As [`DistCsr::from_global`].
    pub fn with_layout<I: CsrIndex>(
        comm: Arc<dyn Communicator>,
        a: &CsrMatrix<S, I>,
        layout: RowLayout,
    ) -> Result<Self> {
        check_dim("DistCsr: square matrix (columns)", a.nrows(), a.ncols())?;
        check_dim("DistCsr: layout rows", a.nrows(), layout.n())?;
        let own = layout.range(comm.rank().min(layout.size() - 1));
        let rp = a.row_ptr();
        let (s, e) = (rp[own.start].as_usize(), rp[own.end].as_usize());
        let row_ptr = rp[own.start..=own.end]
            .iter()
            .map(|p| p.as_usize() - s)
            .collect();
        let cols = a.col_idx()[s..e].iter().map(|c| c.as_usize()).collect();
        let vals = a.values()[s..e].to_vec();
        Self::from_local_rows(comm, layout, row_ptr, cols, vals)
    }

    /// The matrix held by rank `root` only, its row blocks sent to their ranks (one message
    /// each: the layout, row lengths, columns and values): the other ranks never hold more
    /// than their rows. Pass `Some(a)` on the root and `None` elsewhere. Collective.
    ///
    /// # Errors
    /// On every rank: [`Error::InvalidArgument`] when the root passes no matrix or `root`
    /// is out of range; those of [`DistCsr::from_global`].
    pub fn scatter_from_root<I: CsrIndex>(
        comm: Arc<dyn Communicator>,
        a: Option<&CsrMatrix<S, I>>,
        root: usize,
    ) -> Result<Self> {
        let (me, size) = (comm.rank(), comm.size());
        if root >= size {
            return Err(Error::invalid("root", root, format!("a rank of {size}")));
        }
        let given = me != root || a.is_some_and(|a| a.nrows() == a.ncols());
        if !comm.all(given)? {
            return Err(Error::invalid(
                "a",
                "None or not square",
                "the root rank must pass a square matrix",
            ));
        }
        let mut sends = vec![Vec::new(); size];
        if let Some(a) = a.filter(|_| me == root) {
            let rp: Vec<usize> = a.row_ptr().iter().map(|p| p.as_usize()).collect();
            let layout = RowLayout::by_work(&rp, size)?;
            for (p, msg) in sends.iter_mut().enumerate() {
                let r = layout.range(p);
                msg.extend(layout.offsets().iter().map(|&o| o as f64));
                msg.extend(r.clone().map(|i| (rp[i + 1] - rp[i]) as f64));
                msg.extend(
                    a.col_idx()[rp[r.start]..rp[r.end]]
                        .iter()
                        .map(|c| c.as_usize() as f64),
                );
                wire::encode(a.values()[rp[r.start]..rp[r.end]].iter().copied(), msg);
            }
        }
        let msg = alltoallv(comm.as_ref(), &sends)?.swap_remove(root);
        let offsets: Vec<usize> = msg[..=size].iter().map(|&o| o as usize).collect();
        let layout = RowLayout::from_offsets(offsets)?;
        let rows = layout.range(me).len();
        let lens = &msg[size + 1..size + 1 + rows];
        let mut row_ptr = Vec::with_capacity(rows + 1);
        row_ptr.push(0usize);
        for &l in lens {
            row_ptr.push(row_ptr.last().expect("non-empty") + l as usize);
        }
        let nnz = row_ptr[rows];
        let body = &msg[size + 1 + rows..];
        let cols = body[..nnz].iter().map(|&c| c as usize).collect();
        let vals = wire::decode::<S>(&body[nnz..]).collect();
        Self::from_local_rows(comm, layout, row_ptr, cols, vals)
    }

    /// A MatrixMarket file read by every rank, each keeping its rows (blocks balanced by
    /// stored entries). Every format the `matexp_sparse` reader accepts (symmetric files
    /// mirrored, duplicates summed). **Memory:** each rank parses the whole file, so its
    /// peak is the whole matrix while reading; use [`DistCsr::read_matrix_market_root`] when
    /// one rank's memory should hold it only once per job.
    ///
    /// # Errors
    /// The reader's errors (on the ranks that see them; the others stop at the agreement
    /// that follows); those of [`DistCsr::from_global`].
    pub fn read_matrix_market(comm: Arc<dyn Communicator>, path: impl AsRef<Path>) -> Result<Self> {
        let a = matexp_sparse::matrix_market::read_csr_file::<S, u32>(path.as_ref());
        let ok = comm.all(a.is_ok())?;
        match a {
            Err(e) => Err(e),
            Ok(_) if !ok => Err(Error::invalid(
                "path",
                path.as_ref().display(),
                "another rank could not read the file",
            )),
            Ok(a) => Self::from_global(comm, &a),
        }
    }

    /// A MatrixMarket file read by rank `root` and scattered ([`DistCsr::scatter_from_root`]).
    ///
    /// # Errors
    /// The reader's errors on the root (an agreed error on the others); those of
    /// [`DistCsr::scatter_from_root`].
    pub fn read_matrix_market_root(
        comm: Arc<dyn Communicator>,
        path: impl AsRef<Path>,
        root: usize,
    ) -> Result<Self> {
        let a = if comm.rank() == root {
            match matexp_sparse::matrix_market::read_csr_file::<S, u32>(path.as_ref()) {
                Ok(a) => Some(a),
                Err(e) => {
                    comm.all(false)?;
                    return Err(e);
                }
            }
        } else {
            None
        };
        if comm.rank() == root {
            comm.all(true)?;
        } else if !comm.all(true)? {
            return Err(Error::invalid(
                "path",
                path.as_ref().display(),
                "the root could not read the file",
            ));
        }
        Self::scatter_from_root(comm, a.as_ref(), root)
    }
}
