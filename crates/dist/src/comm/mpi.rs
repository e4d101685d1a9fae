//! MPI through rsmpi (feature `mpi`).

use super::{Communicator, Incoming, Outgoing, check_messages, comm_error, length_error};
use matexp_core::Result;
use mpi::Threading;
use mpi::datatype::PartitionMut;
use mpi::environment::Universe;
use mpi::raw::{AsRaw, FromRaw};
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::{Communicator as _, CommunicatorCollectives, Destination, Equivalence, Source};
use std::sync::{Arc, Mutex};

/// A communicator of MPI processes: [`MpiComm::world`], a [`MpiComm::split`] of one, or one
/// wrapped from a raw `MPI_Comm` ([`MpiComm::from_raw`], e.g. mpi4py's
/// `MPI._handleof(comm)`).
///
/// **Threads.** MPI is initialized with `MPI_THREAD_SERIALIZED` and every call of this type
/// holds a lock, so the communicator may be shared between threads (the rayon threads of
/// the local products never call MPI; the rank's main thread does).
///
/// **Lifetime.** The communicator made by [`MpiComm::world`] owns the MPI environment:
/// `MPI_Finalize` runs when it and every communicator split from it are dropped. If MPI was
/// already initialized (by mpi4py, or by the caller through rsmpi) nothing is finalized.
pub struct MpiComm {
    comm: SimpleCommunicator,
    lock: Mutex<()>,
    _universe: Option<Arc<Universe>>,
}

// SAFETY: the handle is only used under `lock`, and MPI is initialized with at least
// MPI_THREAD_SERIALIZED (checked in `world`), which permits calls from any thread as long
// as they do not overlap. An `MPI_Comm` is a plain handle (an int in MPICH, a pointer in
// Open MPI) valid in every thread of the process.
unsafe impl Send for MpiComm {}
// SAFETY: as above: all access is serialized by `lock`.
unsafe impl Sync for MpiComm {}

impl std::fmt::Debug for MpiComm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MpiComm({})", self.describe())
    }
}

impl MpiComm {
    /// `MPI_COMM_WORLD`, initializing MPI if nobody has.
    ///
    /// # Errors
    /// [`matexp_core::Error::Device`] when the MPI library offers less than
    /// `MPI_THREAD_SERIALIZED`.
    pub fn world() -> Result<Self> {
        let universe = match mpi::initialize_with_threading(Threading::Serialized) {
            Some((u, level)) => {
                if level < Threading::Serialized {
                    return Err(comm_error(format!(
                        "MPI provides thread level {level:?}, MPI_THREAD_SERIALIZED is needed"
                    )));
                }
                Some(Arc::new(u))
            }
            None => None,
        };
        Ok(MpiComm {
            comm: SimpleCommunicator::world(),
            lock: Mutex::new(()),
            _universe: universe,
        })
    }

    /// A communicator duplicated from a raw handle (`MPI_Comm_dup`, so the caller's
    /// communicator is neither freed nor disturbed by this one's messages). MPI must be
    /// initialized (mpi4py does so on import).
    ///
    /// # Safety
    /// `raw` must be a valid intra-communicator handle of the MPI library this crate is
    /// linked with.
    pub unsafe fn from_raw(raw: mpi::ffi::MPI_Comm) -> Self {
        let mut dup = raw;
        // SAFETY: the caller guarantees a valid handle; MPI_Comm_dup writes a new one.
        let comm = unsafe {
            mpi::ffi::MPI_Comm_dup(raw, &mut dup);
            SimpleCommunicator::from_raw(dup)
        };
        MpiComm {
            comm,
            lock: Mutex::new(()),
            _universe: None,
        }
    }

    /// The ranks of the same `color` in a new communicator, ordered by `key` (then by rank):
    /// `MPI_Comm_split`. Collective. `None` for a negative color (`MPI_UNDEFINED`).
    pub fn split(&self, color: i32, key: i32) -> Option<Self> {
        let _g = self.guard();
        let color = if color < 0 {
            Color::undefined()
        } else {
            Color::with_value(color)
        };
        self.comm
            .split_by_color_with_key(color, key)
            .map(|comm| MpiComm {
                comm,
                lock: Mutex::new(()),
                _universe: self._universe.clone(),
            })
    }

    /// The raw handle (to pass to C or Python).
    pub fn as_raw(&self) -> mpi::ffi::MPI_Comm {
        self.comm.as_raw()
    }

    fn guard(&self) -> std::sync::MutexGuard<'_, ()> {
        self.lock.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// How long [`settle`] polls without pausing: about what a message or a small collective
/// takes on an interconnect.
const SPIN: std::time::Duration = std::time::Duration::from_micros(50);
/// Until when [`settle`] yields the core between polls; it sleeps [`NAP`] between them after.
const YIELD_UNTIL: std::time::Duration = std::time::Duration::from_millis(2);
/// The pause between polls of a long wait.
const NAP: std::time::Duration = std::time::Duration::from_micros(20);

/// Waits for `req` by polling `MPI_Test`: busy for [`SPIN`], then yielding the core between
/// polls until [`YIELD_UNTIL`], then sleeping [`NAP`] between them. A blocking `MPI_Wait`
/// spins in the library; with more ranks than cores (CI runs four ranks on two) spinning
/// ranks take the cores from the ranks they wait for, and every collective then costs
/// scheduler time slices.
fn settle<'a, D: ?Sized, S: mpi::request::Scope<'a>>(
    mut req: mpi::request::Request<'a, D, S>,
) -> mpi::point_to_point::Status {
    let start = std::time::Instant::now();
    loop {
        match req.test() {
            Ok(status) => return status,
            Err(pending) => req = pending,
        }
        let waited = start.elapsed();
        if waited < SPIN {
            std::hint::spin_loop();
        } else if waited < YIELD_UNTIL {
            std::thread::yield_now();
        } else {
            std::thread::sleep(NAP);
        }
    }
}

impl Communicator for MpiComm {
    fn rank(&self) -> usize {
        self.comm.rank() as usize
    }
    fn size(&self) -> usize {
        self.comm.size() as usize
    }
    fn allgather(&self, mine: &[f64]) -> Result<Vec<Vec<f64>>> {
        let _g = self.guard();
        let size = self.size();
        let count =
            i32::try_from(mine.len()).map_err(|_| comm_error("message above 2^31 numbers"))?;
        let mut counts = vec![0i32; size];
        mpi::request::scope(|scope| {
            settle(
                self.comm
                    .immediate_all_gather_into(scope, &count, &mut counts[..]),
            );
        });
        let displs: Vec<i32> = counts
            .iter()
            .scan(0i32, |acc, &c| {
                let d = *acc;
                *acc += c;
                Some(d)
            })
            .collect();
        let total: usize = counts.iter().map(|&c| c as usize).sum();
        let mut buf = vec![0.0f64; total];
        {
            let mut part = PartitionMut::new(&mut buf[..], &counts[..], &displs[..]);
            mpi::request::scope(|scope| {
                settle(
                    self.comm
                        .immediate_all_gather_varcount_into(scope, mine, &mut part),
                );
            });
        }
        Ok(counts
            .iter()
            .zip(&displs)
            .map(|(&c, &d)| buf[d as usize..(d + c) as usize].to_vec())
            .collect())
    }
    fn exchange(
        &self,
        sends: &[Outgoing<'_>],
        recvs: &mut [Incoming<'_>],
        overlap: &mut dyn FnMut(),
    ) -> Result<()> {
        check_messages(self.size(), sends, recvs)?;
        let _g = self.guard();
        let expected: Vec<(usize, usize, u32)> =
            recvs.iter().map(|r| (r.buf.len(), r.from, r.tag)).collect();
        let statuses = mpi::request::scope(|scope| {
            let send_reqs: Vec<_> = sends
                .iter()
                .map(|s| {
                    self.comm
                        .process_at_rank(s.to as i32)
                        .immediate_send_with_tag(scope, s.data, s.tag as i32)
                })
                .collect();
            let recv_reqs: Vec<_> = recvs
                .iter_mut()
                .map(|r| {
                    self.comm
                        .process_at_rank(r.from as i32)
                        .immediate_receive_into_with_tag(scope, &mut *r.buf, r.tag as i32)
                })
                .collect();
            overlap();
            let st: Vec<_> = recv_reqs.into_iter().map(settle).collect();
            for q in send_reqs {
                settle(q);
            }
            st
        });
        for (st, (len, from, tag)) in statuses.iter().zip(expected) {
            let got = st.count(f64::equivalent_datatype()) as usize;
            if got != len {
                return Err(length_error(self.rank(), len, from, tag, got));
            }
        }
        Ok(())
    }
    fn barrier(&self) -> Result<()> {
        let _g = self.guard();
        settle(self.comm.immediate_barrier());
        Ok(())
    }
    fn describe(&self) -> String {
        let lib = mpi::environment::library_version().unwrap_or_default();
        let lib = lib.lines().next().unwrap_or("").trim().to_string();
        format!("mpi {}/{} ({lib})", self.rank(), self.size())
    }
}
