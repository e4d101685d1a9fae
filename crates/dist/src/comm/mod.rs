//! Communicators: who the ranks are and how they exchange numbers.
//!
//! [`Communicator`] is the small interface every distributed type is written against: the
//! rank and size, an all-gather of `f64` buffers (each rank's contribution, possibly of a
//! different length, returned to every rank in rank order) and a tagged point-to-point
//! exchange that runs a closure while the messages travel (the halo exchange overlapped with
//! the interior rows). Two implementations:
//!
//! * [`ThreadComm`]: ranks as threads of one process ([`run_ranks`]), so that partitions at
//!   1–4 ranks are tested by plain `cargo test` without MPI;
//! * `MpiComm` (feature `mpi`): MPI through rsmpi — the world, a split of it, or a
//!   communicator wrapped from a raw C handle (for example one created by mpi4py).
//!
//! **Data on the wire.** Everything travels as `f64`: scalars as their real part, complex
//! scalars as (re, im) pairs ([`crate::wire`]), indices as exact integers below 2⁵³. One
//! type on the wire keeps the interface object-safe (`Arc<dyn Communicator>`) and free of
//! `unsafe` reinterpretation; `f32` data is widened (twice its bytes) on the way.
//!
//! **Determinism.** Reductions are not delegated to `MPI_Allreduce`, whose summation order
//! may differ between ranks and implementations: [`Reduce`] gathers the partial results and
//! every rank combines them in rank order, so every rank holds the same bits and a run is
//! reproducible for a given number of ranks.
//!
//! **Errors.** A communication failure (a rank that left, a message of the wrong length) is
//! reported as [`matexp_core::Error::Device`] with a message starting `communicator:` (the
//! interconnect is this crate's device); MPI's own default error handler aborts the job.

#[cfg(feature = "mpi")]
mod mpi;
mod reduce;
mod thread;

#[cfg(feature = "mpi")]
pub use self::mpi::MpiComm;
pub use reduce::{Reduce, alltoallv};
pub use thread::{ThreadComm, run_ranks};

use matexp_core::{Error, Result};
use std::fmt::Debug;

/// Tags below this value are free for [`Communicator::exchange`]; collectives of the
/// in-process communicator use the ones above.
pub const MAX_USER_TAG: u32 = 1 << 20;

/// One outgoing message of [`Communicator::exchange`].
#[derive(Debug, Clone, Copy)]
pub struct Outgoing<'a> {
    /// Destination rank.
    pub to: usize,
    /// Tag (below [`MAX_USER_TAG`]); a receive matches source and tag.
    pub tag: u32,
    /// The numbers sent.
    pub data: &'a [f64],
}

/// One incoming message of [`Communicator::exchange`]: its length is known in advance.
#[derive(Debug)]
pub struct Incoming<'a> {
    /// Source rank.
    pub from: usize,
    /// Tag (below [`MAX_USER_TAG`]).
    pub tag: u32,
    /// Where the numbers go; the message must have exactly this length.
    pub buf: &'a mut [f64],
}

/// A group of ranks that exchange `f64` buffers (see the module documentation).
///
/// Every rank must make the same sequence of collective calls ([`Communicator::allgather`],
/// [`Communicator::barrier`]), as in MPI; exchanges pair each send with one receive of the
/// same source, tag and length on the other side.
pub trait Communicator: Send + Sync + Debug {
    /// This rank, `0..size()`.
    fn rank(&self) -> usize;
    /// Number of ranks.
    fn size(&self) -> usize;
    /// Every rank's `mine`, in rank order, on every rank (lengths may differ).
    ///
    /// # Errors
    /// [`Error::Device`] when a rank has left.
    fn allgather(&self, mine: &[f64]) -> Result<Vec<Vec<f64>>>;
    /// Sends and receives the given messages without blocking, runs `overlap` while they
    /// travel, then waits for all of them. Messages to this rank itself are allowed.
    ///
    /// # Errors
    /// [`Error::Device`] when a message has another length than its receive buffer or a
    /// rank has left; [`Error::InvalidArgument`] for a rank out of range or a tag at or
    /// above [`MAX_USER_TAG`].
    fn exchange(
        &self,
        sends: &[Outgoing<'_>],
        recvs: &mut [Incoming<'_>],
        overlap: &mut dyn FnMut(),
    ) -> Result<()>;
    /// Waits until every rank has called it.
    ///
    /// # Errors
    /// [`Error::Device`] when a rank has left.
    fn barrier(&self) -> Result<()> {
        self.allgather(&[]).map(|_| ())
    }
    /// A short description (`threads 2/4`, `mpi 0/4 (MPICH …)`), for reports.
    fn describe(&self) -> String {
        format!("{}/{}", self.rank(), self.size())
    }
}

/// The argument checks shared by the implementations of [`Communicator::exchange`].
pub(crate) fn check_messages(
    size: usize,
    sends: &[Outgoing<'_>],
    recvs: &[Incoming<'_>],
) -> Result<()> {
    let peers = sends
        .iter()
        .map(|s| (s.to, s.tag))
        .chain(recvs.iter().map(|r| (r.from, r.tag)));
    for (rank, tag) in peers {
        if rank >= size {
            return Err(Error::invalid(
                "rank",
                rank,
                format!("a communicator of {size} ranks"),
            ));
        }
        if tag >= MAX_USER_TAG {
            return Err(Error::invalid(
                "tag",
                tag,
                format!("exchange tags are below {MAX_USER_TAG}"),
            ));
        }
    }
    Ok(())
}

/// The error of a message whose length differs from its receive buffer's.
pub(crate) fn length_error(me: usize, want: usize, from: usize, tag: u32, got: usize) -> Error {
    comm_error(format!(
        "rank {me} expected {want} numbers from rank {from} (tag {tag}), received {got}"
    ))
}

/// The error of a failed transfer.
pub(crate) fn comm_error(what: impl std::fmt::Display) -> Error {
    Error::Device(format!("communicator: {what}"))
}
