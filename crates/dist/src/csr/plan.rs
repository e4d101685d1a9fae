//! The ghost plan of a distributed CSR block: which remote entries of x a rank needs, from
//! whom, and which of its own entries it sends to whom — built once from the column indices.

use crate::comm::{Communicator, alltoallv};
use crate::layout::RowLayout;
use matexp_core::{Error, Result};
use std::ops::Range;

/// The communication pattern of one product, and the local numbering of columns.
///
/// Columns of this rank's rows are renumbered: a column owned by this rank (global
/// `r0 + k`) becomes `k`; a remote column becomes `nl + g`, `g` its position in
/// [`GhostPlan::ghosts`] (sorted global indices, so the ghosts of one owner are contiguous).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GhostPlan {
    /// Global indices of the remote entries this rank reads, sorted.
    pub ghosts: Vec<usize>,
    /// `(owner, range of ghosts)`: what arrives from each neighbour, ascending owners.
    pub recv: Vec<(usize, Range<usize>)>,
    /// `(rank, local indices)`: what this rank sends to each neighbour, ascending ranks.
    pub send: Vec<(usize, Vec<usize>)>,
}

impl GhostPlan {
    /// The plan for this rank's rows with global column indices `cols`: the distinct remote
    /// columns, their owners, and (one all-to-all) the requests of the other ranks.
    ///
    /// **Cost.** O(nnz log nnz) locally for the distinct ghosts; one all-gather of `size`
    /// counts and one exchange of the requested indices.
    ///
    /// # Errors
    /// The communicator's errors.
    pub fn build(comm: &dyn Communicator, layout: &RowLayout, cols: &[usize]) -> Result<Self> {
        let me = comm.rank();
        let own = layout.range(me);
        let mut ghosts: Vec<usize> = cols.iter().copied().filter(|c| !own.contains(c)).collect();
        ghosts.sort_unstable();
        ghosts.dedup();
        let mut recv: Vec<(usize, Range<usize>)> = Vec::new();
        let mut requests = vec![Vec::new(); comm.size()];
        for (g, &c) in ghosts.iter().enumerate() {
            let owner = layout.owner(c);
            match recv.last_mut() {
                Some((o, r)) if *o == owner => r.end = g + 1,
                _ => recv.push((owner, g..g + 1)),
            }
            requests[owner].push(c as f64);
        }
        let asked = alltoallv(comm, &requests)?;
        let mut send = Vec::new();
        for (p, idx) in asked.into_iter().enumerate() {
            if idx.is_empty() {
                continue;
            }
            let local = idx
                .iter()
                .map(|&c| {
                    let c = c as usize;
                    if own.contains(&c) {
                        Ok(c - own.start)
                    } else {
                        Err(Error::invalid(
                            "ghost request",
                            c,
                            format!("rank {p} asked rank {me}, which owns {own:?}"),
                        ))
                    }
                })
                .collect::<Result<Vec<_>>>()?;
            send.push((p, local));
        }
        Ok(GhostPlan { ghosts, recv, send })
    }

    /// Entries received per product (ghosts) and sent.
    pub fn volume(&self) -> (usize, usize) {
        (
            self.ghosts.len(),
            self.send.iter().map(|(_, v)| v.len()).sum(),
        )
    }

    /// The local number of global column `c` (`nl` rows owned, starting at `r0`), if it is
    /// owned or a ghost.
    pub fn local_column(&self, c: usize, r0: usize, nl: usize) -> Option<usize> {
        if (r0..r0 + nl).contains(&c) {
            Some(c - r0)
        } else {
            self.ghosts.binary_search(&c).ok().map(|g| nl + g)
        }
    }
}
