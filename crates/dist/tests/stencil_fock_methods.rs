//! DistStencil and DistFock at 1–4 in-process ranks: the product equals the single-process
//! operator's bit for bit (every boundary kind, 2D and 3D, coefficients, open and periodic
//! chains, real and complex vectors, more ranks than planes); expmv by every method equals
//! the single-process solver (and the 1-rank run) to 1e-13 relative; so does one step of an
//! exponential integrator on a semilinear problem.

mod common;

use common::{at_1_to_4_ranks, rel};
use matexp::{Method, Options};
use matexp_core::{Backend, CpuBackend, LinearOperator, Result, c64};
use matexp_dist::comm::{Communicator, run_ranks};
use matexp_dist::{DistBackend, DistFock, DistStencil};
use matexp_fock::{BoseHubbard, Boundary as Chain, Coupling, FockBasis};
use matexp_stencil::{Boundary, BoundaryFunction, Coefficient, Dim, Stencil};
use std::sync::Arc;

const ALL: [Method; 5] = [
    Method::Leja,
    Method::Lanczos,
    Method::Arnoldi,
    Method::Taylor,
    Method::Auto,
];

fn start(n: usize) -> Vec<f64> {
    (0..n).map(|i| ((i * 7 % 11) as f64 - 5.0) / 5.0).collect()
}

fn stencils() -> Vec<(String, Stencil<f64>)> {
    let mut out = Vec::new();
    for dim in [Dim::Two, Dim::Three] {
        let n = if dim == Dim::Two { 7 } else { 5 };
        for kind in [
            Boundary::Dirichlet,
            Boundary::Neumann,
            Boundary::Periodic,
            Boundary::Frame,
        ] {
            for coef in [0, 1, 2] {
                let c = match coef {
                    0 => Coefficient::Unit,
                    1 => Coefficient::Seed,
                    _ => Coefficient::function(|p| 1.0 + p[0] * p[1] + 0.5 * p[2]),
                };
                let mut b = Stencil::builder(dim, n).boundary(kind).coefficient(c);
                if kind == Boundary::Dirichlet && coef == 1 {
                    b = b.boundary_values(BoundaryFunction::SineExp);
                }
                out.push((
                    format!("{dim:?} {kind:?} coefficient {coef}"),
                    b.build().unwrap(),
                ));
            }
        }
    }
    out
}

#[test]
fn stencil_product_is_bit_identical_for_every_boundary() {
    for (name, a) in stencils() {
        let nn = a.grid().len();
        let x = start(nn);
        let y0: Vec<f64> = (0..nn).map(|i| (i as f64 * 0.37).cos()).collect();
        let mut want = y0.clone();
        a.apply(&CpuBackend, 0.7, &x, -1.5, &mut want).unwrap();
        let mut want_affine = y0.clone();
        a.apply_affine(0.7, &x, -1.5, &mut want_affine).unwrap();
        // 7 ranks: more than the 5 planes of the 3D grids (two own nothing).
        for ranks in [1, 2, 3, 4, 7] {
            let got = run_ranks(ranks, |comm| {
                let comm = Arc::new(comm);
                let op = DistStencil::new(comm.clone(), &a).unwrap();
                let d = DistBackend::new(CpuBackend, comm, op.layout().clone()).unwrap();
                let xd = d.upload(&x).unwrap();
                let mut y = d.upload(&y0).unwrap();
                op.apply(&d, 0.7, &xd, -1.5, &mut y).unwrap();
                let mut ya = d.upload(&y0).unwrap();
                op.apply_affine(&d, 0.7, &xd, -1.5, &mut ya).unwrap();
                (d.to_host(&y).unwrap(), d.to_host(&ya).unwrap())
            });
            for (y, ya) in got {
                assert!(y == want, "{name} at {ranks} ranks: product differs");
                assert!(ya == want_affine, "{name} at {ranks} ranks: affine differs");
            }
        }
    }
}

#[test]
fn stencil_properties_and_halo_volume() {
    let a = Stencil::<f64>::laplacian(Dim::Three, 6, Boundary::Periodic).unwrap();
    let want = (
        LinearOperator::<CpuBackend, f64>::spectral_bounds(&a),
        LinearOperator::<CpuBackend, f64>::is_hermitian(&a),
    );
    let got = run_ranks(3, |comm| {
        let op = DistStencil::<f64>::new(Arc::new(comm), &a).unwrap();
        type D = DistBackend<CpuBackend>;
        (
            LinearOperator::<D, f64>::spectral_bounds(&op),
            LinearOperator::<D, f64>::is_hermitian(&op),
            op.exchange_volume(),
        )
    });
    for g in got {
        assert_eq!((g.0, g.1), want);
        // Periodic slabs of two planes: one plane of 36 points from each neighbour.
        assert_eq!(g.2, (72, 72));
    }
}

fn stencil_expmv(a: &Stencil<f64>, methods: &[Method], t: f64) {
    let v = start(a.grid().len());
    for &m in methods {
        let opts = Options::default().with_method(m).with_rtol(1e-12);
        let (w1, _) = matexp::expmv(&CpuBackend, a, t, &v, &opts).unwrap();
        at_1_to_4_ranks(&format!("stencil {m:?}"), &w1, 1e-13, |comm| {
            let op = DistStencil::new(comm.clone(), a).unwrap();
            let d = DistBackend::new(CpuBackend, comm, op.layout().clone()).unwrap();
            let (w, _) = matexp::expmv(&d, &op, t, &d.upload(&v).unwrap(), &opts).unwrap();
            d.to_host(&w).unwrap()
        });
    }
}

#[test]
fn stencil_expmv_by_every_method() {
    let a = Stencil::<f64>::laplacian(Dim::Three, 6, Boundary::Dirichlet).unwrap();
    stencil_expmv(&a, &ALL, 4e-3);
    let p = Stencil::<f64>::laplacian(Dim::Two, 9, Boundary::Periodic).unwrap();
    stencil_expmv(&p, &ALL, 2e-3);
}

#[test]
fn nonsymmetric_stencil_by_leja_arnoldi_taylor() {
    // D(x)·Δ with a varying coefficient is not symmetric; a frame grid is block triangular.
    let a = Stencil::<f64>::builder(Dim::Three, 6)
        .boundary(Boundary::Neumann)
        .coefficient(Coefficient::Seed)
        .build()
        .unwrap();
    let methods = [Method::Leja, Method::Arnoldi, Method::Taylor, Method::Auto];
    stencil_expmv(&a, &methods, 4e-3);
    let f = Stencil::<f64>::laplacian(Dim::Three, 6, Boundary::Frame).unwrap();
    stencil_expmv(&f, &methods, 4e-3);
}

fn chain(n: u32, m: u32, periodic: bool) -> BoseHubbard {
    let h = BoseHubbard::new(FockBasis::new(n, m).unwrap())
        .with_hopping(Coupling::function(|_, k| 1.0 + 0.1 * k as f64))
        .unwrap()
        .with_potential(Coupling::function(|_, k| 0.3 * (k as f64 - 2.0)))
        .unwrap()
        .with_interaction(Coupling::Uniform(2.5))
        .unwrap();
    if periodic {
        h.with_boundary(Chain::Periodic).unwrap()
    } else {
        h
    }
}

#[test]
fn fock_product_is_bit_identical() {
    for periodic in [false, true] {
        let h = chain(4, 5, periodic);
        let dim = h.basis().len().unwrap();
        let x = start(dim);
        let xc: Vec<c64> = x
            .iter()
            .enumerate()
            .map(|(i, &v)| c64::new(v, (i as f64).sin()))
            .collect();
        let frozen = h.at(0.0).unwrap();
        let mut want = vec![0.5; dim];
        frozen.apply(&CpuBackend, 1.0, &x, 2.0, &mut want).unwrap();
        let mut want_c = vec![c64::new(0.0, 0.0); dim];
        let (one, zero) = (c64::new(0.0, 1.0), c64::new(0.0, 0.0));
        frozen
            .apply(&CpuBackend, one, &xc, zero, &mut want_c)
            .unwrap();
        for ranks in [1, 2, 3, 4, 5] {
            let got = run_ranks(ranks, |comm| {
                let comm = Arc::new(comm);
                let op = DistFock::new(comm.clone(), &h, 0.0).unwrap();
                if ranks > 1 {
                    assert!(op.exchange_volume().0 > 0);
                }
                let d = DistBackend::new(CpuBackend, comm, op.layout().clone()).unwrap();
                let mut y = d.upload(&vec![0.5; dim]).unwrap();
                op.apply(&d, 1.0, &d.upload(&x).unwrap(), 2.0, &mut y)
                    .unwrap();
                let mut yc = d.zeros::<c64>(dim).unwrap();
                op.apply(&d, one, &d.upload(&xc).unwrap(), zero, &mut yc)
                    .unwrap();
                (d.to_host(&y).unwrap(), d.to_host(&yc).unwrap())
            });
            for (y, yc) in got {
                assert!(
                    y == want,
                    "periodic {periodic}, {ranks} ranks: real product"
                );
                assert!(
                    yc == want_c,
                    "periodic {periodic}, {ranks} ranks: complex product"
                );
            }
        }
    }
}

#[test]
fn fock_expmv_by_every_method() {
    for periodic in [false, true] {
        let h = chain(4, 5, periodic);
        let frozen = h.at(0.0).unwrap();
        let v = start(h.basis().len().unwrap());
        for m in ALL {
            // Imaginary time: e^{−τH}v.
            let opts = Options::default().with_method(m).with_rtol(1e-12);
            let (w1, _) = matexp::expmv(&CpuBackend, &frozen, -0.2, &v, &opts).unwrap();
            at_1_to_4_ranks(&format!("fock {m:?}"), &w1, 1e-13, |comm| {
                let op = DistFock::new(comm.clone(), &h, 0.0).unwrap();
                let d = DistBackend::new(CpuBackend, comm, op.layout().clone()).unwrap();
                let (w, _) = matexp::expmv(&d, &op, -0.2, &d.upload(&v).unwrap(), &opts).unwrap();
                d.to_host(&w).unwrap()
            });
        }
    }
}

#[test]
fn different_models_on_different_ranks_are_refused() {
    let errs = run_ranks(2, |comm| {
        let r = comm.rank();
        let h = chain(3, 4 + r as u32, false);
        DistFock::new(Arc::new(comm), &h, 0.0).is_err()
    });
    assert_eq!(errs, vec![true, true]);
    let errs = run_ranks(2, |comm| {
        let n = 5 + comm.rank();
        let a = Stencil::<f64>::laplacian(Dim::Three, n, Boundary::Dirichlet).unwrap();
        DistStencil::new(Arc::new(comm), &a).is_err()
    });
    assert_eq!(errs, vec![true, true]);
}

mod integrator {
    use super::*;
    use matexp_expmv::Tolerance;
    use matexp_integrators::expint::{
        ExpIntOptions, ExpIntegrator, Nonlinearity, Scheme, Stepping,
    };

    /// g(u) = b + 10·u²(1 − u) (the stencil's Dirichlet data and a logistic source), on the
    /// whole vector of one process, with its exact Jacobian (a difference Jacobian's step
    /// follows ‖u‖, whose last bit depends on the summation order, and its rounding noise
    /// of ~1e-8 would then differ between rank counts).
    struct Source<'a>(&'a [f64]);
    impl Nonlinearity<CpuBackend, f64> for Source<'_> {
        fn eval(&self, _: &CpuBackend, _: f64, u: &Vec<f64>, out: &mut Vec<f64>) -> Result<()> {
            for ((o, &ui), &bi) in out.iter_mut().zip(u).zip(self.0) {
                *o = bi + 10.0 * ui * ui * (1.0 - ui);
            }
            Ok(())
        }
        fn has_jacobian(&self) -> bool {
            true
        }
        fn jacobian_apply(
            &self,
            _: &CpuBackend,
            _: f64,
            u: &Vec<f64>,
            alpha: f64,
            v: &Vec<f64>,
            beta: f64,
            y: &mut Vec<f64>,
        ) -> Result<()> {
            jacobian(u, alpha, v, beta, y);
            Ok(())
        }
        fn is_autonomous(&self) -> bool {
            true
        }
    }
    /// y ← α·g'(u)·v + β·y, g'(u) = 10·(2u − 3u²).
    fn jacobian(u: &[f64], alpha: f64, v: &[f64], beta: f64, y: &mut [f64]) {
        for ((yi, &ui), &vi) in y.iter_mut().zip(u).zip(v) {
            let j = 10.0 * (2.0 * ui - 3.0 * ui * ui);
            *yi = alpha * j * vi + if beta == 0.0 { 0.0 } else { beta * *yi };
        }
    }
    /// The same on each rank's rows.
    struct DistSource<'a>(&'a [f64]);
    type D = DistBackend<CpuBackend>;
    type V = <D as Backend>::Vector<f64>;
    impl Nonlinearity<D, f64> for DistSource<'_> {
        fn eval(&self, _: &D, _: f64, u: &V, out: &mut V) -> Result<()> {
            for ((o, &ui), &bi) in out.local_mut().iter_mut().zip(u.local()).zip(self.0) {
                *o = bi + 10.0 * ui * ui * (1.0 - ui);
            }
            Ok(())
        }
        fn has_jacobian(&self) -> bool {
            true
        }
        fn jacobian_apply(
            &self,
            _: &D,
            _: f64,
            u: &V,
            alpha: f64,
            v: &V,
            beta: f64,
            y: &mut V,
        ) -> Result<()> {
            jacobian(u.local(), alpha, v.local(), beta, y.local_mut());
            Ok(())
        }
        fn is_autonomous(&self) -> bool {
            true
        }
    }

    #[test]
    fn one_exprb32_step_equals_the_single_process() {
        let a = Stencil::<f64>::builder(Dim::Three, 6)
            .boundary(Boundary::Dirichlet)
            .boundary_values(BoundaryFunction::Polynomial)
            .build()
            .unwrap();
        let nn = a.grid().len();
        let u0: Vec<f64> = (0..nn)
            .map(|i| 0.2 + 0.1 * (i as f64 * 0.3).sin())
            .collect();
        let opts = ExpIntOptions {
            scheme: Scheme::Exprb32,
            stepping: Stepping::Fixed { steps: 1 },
            tol: Tolerance::relative(1e-12),
            ..Default::default()
        };
        let (t0, t1) = (0.0, 2e-3);
        let b = a.affine_term().unwrap().to_vec();
        let mut want = u0.clone();
        ExpIntegrator::new(&CpuBackend, nn, opts)
            .unwrap()
            .integrate(&a, &Source(&b), t0, t1, &mut want)
            .unwrap();
        assert!(rel(&want, &u0) > 1e-4, "the step moves the state");
        at_1_to_4_ranks("exprb32 step", &want, 1e-13, |comm| {
            let op = DistStencil::new(comm.clone(), &a).unwrap();
            let d = DistBackend::new(CpuBackend, comm, op.layout().clone()).unwrap();
            let g = DistSource(op.affine_term_local().unwrap());
            let mut u = d.upload(&u0).unwrap();
            ExpIntegrator::new(&d, nn, opts)
                .unwrap()
                .integrate(&op, &g, t0, t1, &mut u)
                .unwrap();
            d.to_host(&u).unwrap()
        });
    }
}
