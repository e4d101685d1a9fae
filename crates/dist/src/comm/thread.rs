//! Ranks as threads of one process: the communicator of the tests.

use super::{
    Communicator, Incoming, MAX_USER_TAG, Outgoing, check_messages, comm_error, length_error,
};
use matexp_core::Result;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

/// The tag of the in-process all-gather (above every user tag).
const GATHER_TAG: u32 = MAX_USER_TAG;

/// A message waiting in its destination's mailbox.
#[derive(Debug)]
struct Message {
    from: usize,
    tag: u32,
    data: Vec<f64>,
}

/// One rank's incoming messages, matched by (source, tag) in arrival order.
#[derive(Debug, Default)]
struct Mailbox {
    queue: Mutex<Vec<Message>>,
    arrived: Condvar,
}

/// What the ranks of one [`run_ranks`] call share.
#[derive(Debug)]
struct Shared {
    boxes: Vec<Mailbox>,
    /// `departed[r]`: rank r's communicator was dropped (its thread returned or panicked).
    departed: Vec<AtomicBool>,
}

/// One rank of a group of threads ([`run_ranks`]). Sends are buffered (a send never blocks),
/// receives wait for the matching message; a rank whose thread has returned counts as
/// departed, and waiting for a message it never sent is an error instead of a hang.
///
/// **Cost.** A message is one copy into the destination's mailbox; an all-gather sends
/// `size − 1` copies of each contribution. The model of MPI is kept exactly — same calls,
/// same matching by source and tag — so code tested here runs unchanged on
/// `MpiComm` (feature `mpi`).
#[derive(Debug)]
pub struct ThreadComm {
    rank: usize,
    shared: Arc<Shared>,
}

fn lock(m: &Mutex<Vec<Message>>) -> MutexGuard<'_, Vec<Message>> {
    // A panic while holding the lock cannot leave the queue half-written (push and remove
    // are single operations), so a poisoned lock is still usable.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl ThreadComm {
    /// `size` communicators of one group, rank `r` at index `r`; hand one to each thread.
    /// [`run_ranks`] does this and joins the threads.
    pub fn group(size: usize) -> Vec<ThreadComm> {
        let shared = Arc::new(Shared {
            boxes: (0..size).map(|_| Mailbox::default()).collect(),
            departed: (0..size).map(|_| AtomicBool::new(false)).collect(),
        });
        (0..size)
            .map(|rank| ThreadComm {
                rank,
                shared: Arc::clone(&shared),
            })
            .collect()
    }

    fn post(&self, to: usize, tag: u32, data: Vec<f64>) {
        let b = &self.shared.boxes[to];
        lock(&b.queue).push(Message {
            from: self.rank,
            tag,
            data,
        });
        b.arrived.notify_all();
    }

    fn take(&self, from: usize, tag: u32) -> Result<Vec<f64>> {
        let b = &self.shared.boxes[self.rank];
        let mut q = lock(&b.queue);
        loop {
            if let Some(k) = q.iter().position(|m| m.from == from && m.tag == tag) {
                return Ok(q.remove(k).data);
            }
            if self.shared.departed[from].load(Ordering::Acquire) {
                return Err(comm_error(format!(
                    "rank {} waits for a message (tag {tag}) from rank {from}, which has left",
                    self.rank
                )));
            }
            q = b.arrived.wait(q).unwrap_or_else(|e| e.into_inner());
        }
    }
}

impl Drop for ThreadComm {
    fn drop(&mut self) {
        self.shared.departed[self.rank].store(true, Ordering::Release);
        for b in &self.shared.boxes {
            // Taking the lock orders the flag before any waiter's next check.
            drop(lock(&b.queue));
            b.arrived.notify_all();
        }
    }
}

impl Communicator for ThreadComm {
    fn rank(&self) -> usize {
        self.rank
    }
    fn size(&self) -> usize {
        self.shared.boxes.len()
    }
    fn allgather(&self, mine: &[f64]) -> Result<Vec<Vec<f64>>> {
        for to in (0..self.size()).filter(|&r| r != self.rank) {
            self.post(to, GATHER_TAG, mine.to_vec());
        }
        (0..self.size())
            .map(|from| {
                if from == self.rank {
                    Ok(mine.to_vec())
                } else {
                    self.take(from, GATHER_TAG)
                }
            })
            .collect()
    }
    fn exchange(
        &self,
        sends: &[Outgoing<'_>],
        recvs: &mut [Incoming<'_>],
        overlap: &mut dyn FnMut(),
    ) -> Result<()> {
        check_messages(self.size(), sends, recvs)?;
        for s in sends {
            self.post(s.to, s.tag, s.data.to_vec());
        }
        overlap();
        for r in recvs.iter_mut() {
            let data = self.take(r.from, r.tag)?;
            if data.len() != r.buf.len() {
                return Err(length_error(
                    self.rank,
                    r.buf.len(),
                    r.from,
                    r.tag,
                    data.len(),
                ));
            }
            r.buf.copy_from_slice(&data);
        }
        Ok(())
    }
    fn describe(&self) -> String {
        format!("threads {}/{}", self.rank, self.size())
    }
}

/// Runs `body` on `size` ranks, each a thread with its [`ThreadComm`], and returns their
/// results in rank order. A panic on any rank is resumed here after every thread has
/// finished (ranks waiting for the panicked one get an error instead of hanging).
///
/// ```
/// use matexp_dist::comm::{Communicator, run_ranks};
/// let sums = run_ranks(3, |comm| {
///     let all = comm.allgather(&[comm.rank() as f64]).unwrap();
///     all.iter().map(|v| v[0]).sum::<f64>()
/// });
/// assert_eq!(sums, vec![3.0; 3]);
/// ```
pub fn run_ranks<T, F>(size: usize, body: F) -> Vec<T>
where
    T: std::marker::Send,
    F: Fn(ThreadComm) -> T + Sync,
{
    let body = &body;
    std::thread::scope(|s| {
        let handles: Vec<_> = ThreadComm::group(size)
            .into_iter()
            .map(|comm| {
                std::thread::Builder::new()
                    .name(format!("rank-{}", comm.rank))
                    // Solvers keep small dense problems on the stack; be generous.
                    .stack_size(16 << 20)
                    .spawn_scoped(s, move || body(comm))
                    .expect("spawn a rank thread")
            })
            .collect();
        let results: Vec<_> = handles.into_iter().map(|h| h.join()).collect();
        results
            .into_iter()
            .map(|r| r.unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exchange_matches_by_source_and_tag_and_overlaps() {
        let out = run_ranks(2, |comm| {
            let me = comm.rank() as f64;
            let other = 1 - comm.rank();
            // Two messages to the same peer, received in the opposite order of sending.
            let (a, b) = ([me, 10.0], [me, 20.0]);
            let sends = [
                Outgoing {
                    to: other,
                    tag: 1,
                    data: &a,
                },
                Outgoing {
                    to: other,
                    tag: 2,
                    data: &b,
                },
            ];
            let (mut ra, mut rb) = ([0.0; 2], [0.0; 2]);
            let mut ran = false;
            {
                let mut recvs = [
                    Incoming {
                        from: other,
                        tag: 2,
                        buf: &mut rb,
                    },
                    Incoming {
                        from: other,
                        tag: 1,
                        buf: &mut ra,
                    },
                ];
                comm.exchange(&sends, &mut recvs, &mut || ran = true)
                    .unwrap();
            }
            (ra, rb, ran)
        });
        assert_eq!(out[0], ([1.0, 10.0], [1.0, 20.0], true));
        assert_eq!(out[1], ([0.0, 10.0], [0.0, 20.0], true));
    }

    #[test]
    fn a_departed_rank_is_an_error_not_a_hang() {
        let out = run_ranks(2, |comm| {
            if comm.rank() == 1 {
                return Ok(vec![]);
            }
            comm.allgather(&[1.0])
        });
        assert!(out[0].is_err());
        let msg = out[0].as_ref().unwrap_err().to_string();
        assert!(msg.contains("has left"), "{msg}");
    }

    #[test]
    fn wrong_length_and_bad_tags_are_typed_errors() {
        let out = run_ranks(2, |comm| {
            let other = 1 - comm.rank();
            let data = [1.0; 3];
            let mut buf = [0.0; 2];
            let bad_tag = comm.exchange(
                &[Outgoing {
                    to: other,
                    tag: MAX_USER_TAG,
                    data: &data,
                }],
                &mut [],
                &mut || {},
            );
            let short = comm.exchange(
                &[Outgoing {
                    to: other,
                    tag: 0,
                    data: &data,
                }],
                &mut [Incoming {
                    from: other,
                    tag: 0,
                    buf: &mut buf,
                }],
                &mut || {},
            );
            (bad_tag.is_err(), short.map_err(|e| e.to_string()))
        });
        for (bad_tag, short) in out {
            assert!(bad_tag);
            assert!(short.unwrap_err().contains("expected 2 numbers"));
        }
    }
}
