//! Test support shared by the crates of matexp (not published): reproducible random inputs,
//! relative errors, and reference solutions of the seed studies.
//!
//! * [`seed`]: one test seed per process, fixed by default, printed, and settable through the
//!   `MATEXP_TEST_SEED` environment variable, so a failure seen anywhere (a GPU host included)
//!   is replayed by exporting the printed value; [`rng`] derives an independent stream per
//!   test from it.
//! * [`SplitMix64`]: the counter-based mixer, for inputs that must be a pure function of an
//!   index.
//! * [`rel_err`], [`rel_err_c64`]: ‖a − b‖₂ / ‖b‖₂ in double precision; [`assert_invalid`],
//!   [`assert_non_finite`]: the typed errors a rejected input must give.
//! * [`reference`]: the seed-000 reference solutions (Chebyshev–Bessel propagation of the
//!   spin bath, the separable 3D heat equation).
//! * [`gpu_sizes`]: problem sizes of the GPU tests, small under compute-sanitizer
//!   (`MATEXP_GPU_TEST_SCALE=small`, set by the GPU bundle's sanitizer mode).
//! * [`nonnormal`]: the Pascal matrix and SciPy's non-normal expm test matrices, with
//!   references for e^{A}v independent of the solvers (exact nilpotent sums, mpmath).
//! * [`ClaimsOrder`]: an operator claiming an order no memory holds, for failure paths.
//! * [`import_cycles`]: cycles among the modules of a crate (the workspace's crates are
//!   checked by this crate's test `module_imports_have_no_cycle`).
//!
//! ```
//! use rand::Rng;
//! let mut r = matexp_testkit::rng("doc example");
//! let x: f64 = r.random_range(-1.0..1.0);
//! assert!((-1.0..1.0).contains(&x));
//! ```

mod error;
pub mod gpu_sizes;
mod modules;
pub mod nonnormal;
mod operators;
pub mod reference;
mod seed;

pub use error::{assert_invalid, assert_non_finite, rel_err, rel_err_c64};
pub use modules::import_cycles;
pub use operators::ClaimsOrder;
pub use seed::{SEED_VAR, SplitMix64, rng, seed};
