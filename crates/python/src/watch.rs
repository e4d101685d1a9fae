//! What runs between the products of a solve whose GIL is released: Python's signal
//! handlers (so Ctrl-C stops a long solve) and the optional progress callback, both at most
//! every [`POLL`], and the exception of a Python callback operator, which stops the solve at
//! the next product and is raised in place of the library's error.

use crate::errors;
use matexp::{
    CpuBackend, FusedOperator, LinearOperator, OperatorSteps, Result, Scalar, ShiftedStep,
    SpectralBounds,
};
use pyo3::prelude::*;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How often the signal handlers and the progress callback run: a KeyboardInterrupt lands
/// within this much of a product's end, and the GIL is taken at most 20 times a second.
pub const POLL: Duration = Duration::from_millis(50);

/// The state one Python call shares with its solve.
#[derive(Debug)]
pub struct Ctx {
    failure: Mutex<Option<PyErr>>,
    last_poll: Mutex<Instant>,
    progress: Option<Py<PyAny>>,
    products: AtomicUsize,
}

/// The library error that stands for a Python exception kept in [`Ctx`] (which is raised
/// instead): `InvalidArgument`, so that no method falls back on another.
fn stopped() -> matexp::Error {
    matexp::Error::invalid(
        "operator",
        "stopped",
        "a Python exception (KeyboardInterrupt, or one raised by a callback) stopped the solve",
    )
}

impl Ctx {
    /// A context calling `progress(products)` (if given) at most every [`POLL`].
    pub fn new(progress: Option<Py<PyAny>>) -> Self {
        Ctx {
            failure: Mutex::new(None),
            last_poll: Mutex::new(Instant::now()),
            progress,
            products: AtomicUsize::new(0),
        }
    }

    /// Keeps the first Python exception of the solve.
    pub fn fail(&self, e: PyErr) {
        let mut f = self.failure.lock().unwrap_or_else(|p| p.into_inner());
        if f.is_none() {
            *f = Some(e);
        }
    }

    /// Before each product: stops once an exception is kept; every [`POLL`] takes the GIL
    /// to run the signal handlers and the progress callback.
    pub fn poll(&self) -> Result<()> {
        let products = self.products.fetch_add(1, Ordering::Relaxed) + 1;
        if self.failure.lock().map(|f| f.is_some()).unwrap_or(true) {
            return Err(stopped());
        }
        let due = {
            let mut last = self.last_poll.lock().unwrap_or_else(|p| p.into_inner());
            let due = last.elapsed() >= POLL;
            if due {
                *last = Instant::now();
            }
            due
        };
        if due && let Err(e) = Python::attach(|py| self.signals_and_progress(py, products)) {
            self.fail(e);
            return Err(stopped());
        }
        Ok(())
    }

    fn signals_and_progress(&self, py: Python<'_>, products: usize) -> PyResult<()> {
        py.check_signals()?;
        if let Some(f) = &self.progress {
            f.call1(py, (products,))?;
        }
        Ok(())
    }

    /// The call's result: the kept Python exception if there is one, else the library's
    /// result with its error mapped to a `matexp` exception; the progress callback is told
    /// the final count.
    pub fn finish<T>(self, py: Python<'_>, r: Result<T>) -> PyResult<T> {
        if let Some(e) = self.failure.into_inner().unwrap_or_else(|p| p.into_inner()) {
            return Err(e);
        }
        if let Some(f) = &self.progress {
            f.call1(py, (self.products.load(Ordering::Relaxed),))?;
        }
        r.map_err(|e| errors::to_py(py, e))
    }
}

/// `op` with [`Ctx::poll`] before each product; everything else is the inner operator's.
pub struct Watched<'a, S: Scalar> {
    /// The operator.
    pub op: &'a (dyn LinearOperator<CpuBackend, S> + 'a),
    /// The call's context.
    pub ctx: &'a Ctx,
}

impl<S: Scalar> LinearOperator<CpuBackend, S> for Watched<'_, S> {
    fn nrows(&self) -> usize {
        self.op.nrows()
    }
    fn ncols(&self) -> usize {
        self.op.ncols()
    }
    fn apply(&self, b: &CpuBackend, alpha: S, x: &Vec<S>, beta: S, y: &mut Vec<S>) -> Result<()> {
        self.ctx.poll()?;
        self.op.apply(b, alpha, x, beta, y)
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        self.op.spectral_bounds()
    }
    fn is_hermitian(&self) -> bool {
        self.op.is_hermitian()
    }
    fn hermitian_part_bounds(&self) -> Option<(f64, f64)> {
        self.op.hermitian_part_bounds()
    }
    fn norm_bound(&self) -> Option<f64> {
        self.op.norm_bound()
    }
    fn spectral_bounds_are_tight(&self) -> bool {
        self.op.spectral_bounds_are_tight()
    }
    fn fused(&self) -> Option<&dyn FusedOperator<CpuBackend, S>> {
        Some(self)
    }
}

/// Leja's fused step stays fused (one pass of a CSR matrix) and is polled like a product;
/// the Lanczos passes fall back on [`LinearOperator::apply`], which polls.
impl<S: Scalar> FusedOperator<CpuBackend, S> for Watched<'_, S> {
    fn shifted_step(
        &self,
        b: &CpuBackend,
        step: &ShiftedStep<S>,
        y_prev: &Vec<S>,
        y_next: &mut Vec<S>,
        p: &mut Vec<S>,
    ) -> Result<S::Real> {
        self.ctx.poll()?;
        OperatorSteps::shifted_step(self.op, b, step, y_prev, y_next, p)
    }
}
