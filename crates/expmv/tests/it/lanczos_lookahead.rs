//! Lanczos on an asynchronous backend queues steps ahead of each convergence check (so that
//! a device works while the host solves the small eigenproblems). Here the CPU backend is
//! wrapped as one that says it is asynchronous, so the lookahead runs without a GPU: the
//! result must meet the tolerance against an exact reference, the products may exceed the
//! synchronous run's by at most a lookahead per check beyond the last, and `max_dim`,
//! `max_products` and breakdowns must hold as they do without it.

use matexp_core::{
    Backend, CpuBackend, Error, KrylovBackend, LinearOperator, Result, Scalar, SpectralBounds,
};
use matexp_expmv::{ExpmvMethod, Lanczos, LanczosOptions, ROUNDING_FACTOR};
use matexp_sparse::CsrMatrix;
use matexp_sparse::generators::laplacian_3d;
use matexp_testkit::reference::{laplace_initial, laplace_reference};

/// The CPU backend, declared asynchronous.
#[derive(Debug)]
struct Queued(CpuBackend);

impl Backend for Queued {
    type Vector<S: Scalar> = Vec<S>;
    fn name(&self) -> String {
        "queued cpu".into()
    }
    fn zeros<S: Scalar>(&self, n: usize) -> Result<Vec<S>> {
        self.0.zeros(n)
    }
    fn upload<S: Scalar>(&self, host: &[S]) -> Result<Vec<S>> {
        self.0.upload(host)
    }
    fn download<S: Scalar>(&self, x: &Vec<S>, host: &mut [S]) -> Result<()> {
        self.0.download(x, host)
    }
    fn len<S: Scalar>(&self, x: &Vec<S>) -> usize {
        x.len()
    }
    fn copy<S: Scalar>(&self, src: &Vec<S>, dst: &mut Vec<S>) -> Result<()> {
        self.0.copy(src, dst)
    }
    fn fill<S: Scalar>(&self, x: &mut Vec<S>, value: S) -> Result<()> {
        self.0.fill(x, value)
    }
    fn scale<S: Scalar>(&self, alpha: S, x: &mut Vec<S>) -> Result<()> {
        self.0.scale(alpha, x)
    }
    fn axpby<S: Scalar>(&self, alpha: S, x: &Vec<S>, beta: S, y: &mut Vec<S>) -> Result<()> {
        self.0.axpby(alpha, x, beta, y)
    }
    fn dot<S: Scalar>(&self, x: &Vec<S>, y: &Vec<S>) -> Result<S> {
        self.0.dot(x, y)
    }
    fn nrm2<S: Scalar>(&self, x: &Vec<S>) -> Result<S::Real> {
        self.0.nrm2(x)
    }
    fn amax<S: Scalar>(&self, x: &Vec<S>) -> Result<S::Real> {
        self.0.amax(x)
    }
    fn is_asynchronous(&self) -> bool {
        true
    }
}

/// The BLAS-1 defaults of every Krylov hook.
impl KrylovBackend for Queued {}

/// A CSR matrix applied on the wrapped backend.
struct Op<'a>(&'a CsrMatrix<f64, u32>);

impl LinearOperator<Queued, f64> for Op<'_> {
    fn nrows(&self) -> usize {
        LinearOperator::<CpuBackend, f64>::nrows(self.0)
    }
    fn ncols(&self) -> usize {
        LinearOperator::<CpuBackend, f64>::ncols(self.0)
    }
    fn apply(
        &self,
        b: &Queued,
        alpha: f64,
        x: &Vec<f64>,
        beta: f64,
        y: &mut Vec<f64>,
    ) -> Result<()> {
        self.0.apply(&b.0, alpha, x, beta, y)
    }
    fn spectral_bounds(&self) -> Option<SpectralBounds> {
        LinearOperator::<CpuBackend, f64>::spectral_bounds(self.0)
    }
    fn is_hermitian(&self) -> bool {
        true
    }
}

fn rel_err(a: &[f64], b: &[f64]) -> f64 {
    let d: f64 = a.iter().zip(b).map(|(x, y)| (x - y).powi(2)).sum();
    let r: f64 = b.iter().map(|y| y * y).sum();
    (d / r).sqrt()
}

#[test]
fn lookahead_meets_the_tolerance_within_a_lookahead_of_the_synchronous_products() {
    let n = 16;
    let a: CsrMatrix<f64, u32> = laplacian_3d(n).unwrap();
    let u0 = laplace_initial(n);
    let queued = Queued(CpuBackend::new());
    let cpu = CpuBackend::new();
    // t‖A‖ ≈ 12·17²·t: 35 and 350.
    for t in [0.01, 0.1] {
        let exact = laplace_reference(n, t);
        for rtol in [1e-6, 1e-10] {
            let opts = LanczosOptions::default().with_rtol(rtol);
            let mut w = vec![0.0; u0.len()];
            let rq = Lanczos::new(&queued, opts)
                .unwrap()
                .expmv(&Op(&a), t, &u0, &mut w)
                .unwrap();
            let eq = rel_err(&w, &exact);
            let rc = Lanczos::new(&cpu, opts)
                .unwrap()
                .expmv(&a, t, &u0, &mut w)
                .unwrap();
            let ec = rel_err(&w, &exact);
            eprintln!(
                "t {t} rtol {rtol:e}: queued {} products (dimension {}), error {eq:.1e}; \
                 synchronous {} ({}), {ec:.1e}",
                rq.matvecs, rq.max_degree, rc.matvecs, rc.max_degree
            );
            assert!(
                rq.converged && eq <= rtol,
                "queued: error {eq:e} at rtol {rtol:e}"
            );
            // The report shows the interval of T_k's Gershgorin discs: inside ±‖T‖ ≤ ±‖A‖₁.
            let (b, source) = rq.bounds.expect("Lanczos reports its interval");
            let norm = 24.0 * ((n + 1) * (n + 1)) as f64;
            assert_eq!(source, matexp_expmv::BoundsSource::Ritz);
            assert!(b.is_real() && -norm <= b.re_min && b.re_min < b.re_max && b.re_max <= norm);
            // Checks reached by both are the same; the queued run adds a lookahead (at most
            // max(check_every, k/4)) at the check that converges and may stop one check later,
            // pushed by the lookahead of the check before: about (5/4)² of the products at most.
            let bound = rc.matvecs + (9 * rc.matvecs).div_ceil(16) + 10;
            assert!(
                rq.matvecs >= rc.matvecs && rq.matvecs <= bound,
                "queued {} products, synchronous {}",
                rq.matvecs,
                rc.matvecs
            );
        }
    }
}

#[test]
fn lookahead_respects_max_dim_the_cost_cap_and_breakdown() {
    let n = 12;
    let a: CsrMatrix<f64, u32> = laplacian_3d(n).unwrap();
    let u0 = laplace_initial(n);
    let queued = Queued(CpuBackend::new());
    let mut w = vec![0.0; u0.len()];
    // max_dim: never a dimension past it, and the unconverged result is flagged (two
    // output times: one basis serves both, no substeps).
    let opts = LanczosOptions {
        max_dim: 20,
        allow_unconverged: true,
        ..LanczosOptions::default().with_rtol(1e-14)
    };
    let mut outs = vec![vec![0.0; u0.len()], vec![0.0; u0.len()]];
    let r = Lanczos::new(&queued, opts)
        .unwrap()
        .expmv_times(&Op(&a), &[0.5, 1.0], &u0, &mut outs)
        .unwrap();
    assert!(!r.converged && r.max_degree <= 20 && r.matvecs <= 20, "{r}");
    // The cost cap stops the call with an error naming it, never past the cap.
    let opts = LanczosOptions {
        max_products: 15,
        ..LanczosOptions::default().with_rtol(1e-14)
    };
    match Lanczos::new(&queued, opts)
        .unwrap()
        .expmv(&Op(&a), 1.0, &u0, &mut w)
    {
        Err(Error::NoConvergence { detail, .. }) => assert!(detail.contains("max_products")),
        other => panic!("expected the cost cap, got {other:?}"),
    }
    // u₀ = sin(2πx) ⊗ 1 ⊗ 1 lies in an invariant subspace of dimension 1 + ⌈N/2⌉² (the
    // sine modes of 1 along y and z are the odd ones): Lanczos breaks down there, and the
    // steps queued past the breakdown must not spoil the (exact) result.
    // At rtol 1e-13 the result is exact but cannot be certified: the rounding floor of a
    // report, ROUNDING_FACTOR·ε·(1 + products), passes 1e-13 after 7 products, so the
    // report must say not converged; at rtol 1e-12 it is certified.
    let exact = laplace_reference(n, 0.001);
    for rtol in [1e-13, 1e-12] {
        let r = Lanczos::new(&queued, LanczosOptions::default().with_rtol(rtol))
            .unwrap()
            .expmv(&Op(&a), 0.001, &u0, &mut w)
            .unwrap();
        let e = rel_err(&w, &exact);
        assert!(e <= 1e-12, "rtol {rtol:e}: error {e:e}; {r}");
        let floor = ROUNDING_FACTOR * f64::EPSILON * (1 + r.matvecs) as f64;
        assert_eq!(r.converged, r.rel_error_estimate <= rtol, "{r}");
        if floor > rtol {
            assert!(!r.converged, "rtol {rtol:e} below the floor {floor:e}: {r}");
        } else {
            assert!(r.converged, "rtol {rtol:e}: {r}");
        }
    }
}
