//! What one call computes per column ([`Job`]) and how per-column results combine: shared by
//! the CPU path (`solve`) and the device path (`device`).

use crate::scalar::PyScalar;
use matexp::{KrylovBackend, LinearOperator, Options, Report, c64};

/// What a call computes for one column.
#[derive(Clone, Copy, Debug)]
pub enum Job<'a> {
    /// e^{tA}v at each time.
    Times(&'a [c64]),
    /// φ_k(tA)v, or φ₀ … φ_k (`all`).
    Phi { t: c64, k: usize, all: bool },
}

impl Job<'_> {
    pub fn outputs(&self) -> usize {
        match *self {
            Job::Times(ts) => ts.len(),
            Job::Phi { k, all: true, .. } => k + 1,
            Job::Phi { all: false, .. } => 1,
        }
    }
    pub fn complex(&self) -> bool {
        match *self {
            Job::Times(ts) => ts.iter().any(|t| t.im != 0.0),
            Job::Phi { t, .. } => t.im != 0.0,
        }
    }
    /// The solve for one column `v` on `backend`.
    pub fn run<B, S, O>(
        &self,
        backend: &B,
        opts: &Options,
        a: &O,
        v: &B::Vector<S>,
    ) -> matexp::Result<(Vec<B::Vector<S>>, Report)>
    where
        B: KrylovBackend,
        S: PyScalar,
        O: LinearOperator<B, S> + ?Sized,
    {
        let scalar = |t: c64| S::exact_from_c64(t).expect("complex jobs run complex");
        match *self {
            Job::Times(ts) => {
                let times: Vec<S> = ts.iter().map(|&t| scalar(t)).collect();
                matexp::expmv_times(backend, a, &times, v, opts)
            }
            Job::Phi { t, k, all: true } => matexp::phimv(backend, a, scalar(t), v, k, opts),
            Job::Phi { t, k, all: false } => {
                matexp::phimv_k(backend, a, scalar(t), v, k, opts).map(|(w, r)| (vec![w], r))
            }
        }
    }
}

/// Per column, its output vectors.
pub type Outputs<S> = Vec<Vec<Vec<S>>>;

/// Adds `r` to the running report of a multi-column call.
pub fn merge(total: &mut Option<Report>, r: Report) {
    match total {
        Some(t) => t.merge(&r),
        None => *total = Some(r),
    }
}
