//! Deterministic reductions and the all-to-all built on [`Communicator`].

use super::{Communicator, Incoming, Outgoing, comm_error};
use matexp_core::Result;

/// Reductions every rank finishes identically: the partial values are gathered and combined
/// in rank order, so every rank holds the same bits (see the module documentation of
/// [`crate::comm`]). Implemented for every communicator.
pub trait Reduce: Communicator {
    /// Elementwise Σ over ranks of `mine` (equal lengths on all ranks), summed in rank order.
    ///
    /// # Errors
    /// [`matexp_core::Error::Device`] when the lengths differ or a rank has left.
    fn sum_in_order(&self, mine: &[f64]) -> Result<Vec<f64>> {
        self.combine(mine, |a, b| a + b)
    }
    /// Elementwise max over ranks (NaN wins: a NaN anywhere gives NaN).
    ///
    /// # Errors
    /// As [`Reduce::sum_in_order`].
    fn max_in_order(&self, mine: &[f64]) -> Result<Vec<f64>> {
        self.combine(mine, |a, b| {
            if a.is_nan() || b > a || b.is_nan() {
                b
            } else {
                a
            }
        })
    }
    /// Elementwise min over ranks (NaN wins).
    ///
    /// # Errors
    /// As [`Reduce::sum_in_order`].
    fn min_in_order(&self, mine: &[f64]) -> Result<Vec<f64>> {
        self.combine(mine, |a, b| {
            if a.is_nan() || b < a || b.is_nan() {
                b
            } else {
                a
            }
        })
    }
    /// Whether `mine` holds on every rank.
    ///
    /// # Errors
    /// As [`Reduce::sum_in_order`].
    fn all(&self, mine: bool) -> Result<bool> {
        Ok(self.min_in_order(&[f64::from(u8::from(mine))])?[0] == 1.0)
    }
    /// The gathered values folded with `f` from rank 0 up.
    ///
    /// # Errors
    /// As [`Reduce::sum_in_order`].
    fn combine(&self, mine: &[f64], f: impl Fn(f64, f64) -> f64) -> Result<Vec<f64>> {
        let all = self.allgather(mine)?;
        let mut acc = all[0].clone();
        for (r, part) in all.iter().enumerate().skip(1) {
            if part.len() != acc.len() {
                return Err(comm_error(format!(
                    "reduction of {} values on rank 0 but {} on rank {r}",
                    acc.len(),
                    part.len()
                )));
            }
            for (a, &b) in acc.iter_mut().zip(part) {
                *a = f(*a, b);
            }
        }
        Ok(acc)
    }
}

impl<C: Communicator + ?Sized> Reduce for C {}

/// All-to-all of buffers of any length: `sends[q]` goes to rank q; returns what every rank
/// sent to this one, indexed by source. The lengths travel first (one all-gather of `size`
/// numbers per rank), then one [`Communicator::exchange`] with the non-empty messages.
/// Used to build plans (ghost requests, transposed entries), not per product.
///
/// # Errors
/// [`matexp_core::Error::DimensionMismatch`] unless `sends` has one buffer per rank; the
/// communicator's errors.
pub fn alltoallv<C: Communicator + ?Sized>(comm: &C, sends: &[Vec<f64>]) -> Result<Vec<Vec<f64>>> {
    let (size, me) = (comm.size(), comm.rank());
    matexp_core::check_dim("alltoallv: one buffer per rank", size, sends.len())?;
    let lens: Vec<f64> = sends.iter().map(|s| s.len() as f64).collect();
    let all = comm.allgather(&lens)?;
    let mut out: Vec<Vec<f64>> = (0..size).map(|p| vec![0.0; all[p][me] as usize]).collect();
    let outgoing: Vec<Outgoing<'_>> = sends
        .iter()
        .enumerate()
        .filter(|(_, s)| !s.is_empty())
        .map(|(to, s)| Outgoing {
            to,
            tag: 0,
            data: s,
        })
        .collect();
    let mut incoming: Vec<Incoming<'_>> = out
        .iter_mut()
        .enumerate()
        .filter(|(_, b)| !b.is_empty())
        .map(|(from, buf)| Incoming { from, tag: 0, buf })
        .collect();
    comm.exchange(&outgoing, &mut incoming, &mut || {})?;
    Ok(out)
}
