//! Typed errors of the exponential integrators on bad input, and single precision.

use matexp_core::{CpuBackend, DenseMatrixOperator, Error, Result};
use matexp_expmv::Tolerance;
use matexp_integrators::expint::{ExpIntOptions, ExpIntegrator, Nonlinearity, Scheme, Stepping};

/// g(u) = −u³ (a cubic damping), autonomous, Jacobian by differences.
struct Cubic;

impl Nonlinearity<CpuBackend, f64> for Cubic {
    fn eval(&self, _: &CpuBackend, _t: f64, u: &Vec<f64>, out: &mut Vec<f64>) -> Result<()> {
        for (o, x) in out.iter_mut().zip(u) {
            *o = -x * x * x;
        }
        Ok(())
    }
    fn is_autonomous(&self) -> bool {
        true
    }
}

impl Nonlinearity<CpuBackend, f32> for Cubic {
    fn eval(&self, _: &CpuBackend, _t: f64, u: &Vec<f32>, out: &mut Vec<f32>) -> Result<()> {
        for (o, x) in out.iter_mut().zip(u) {
            *o = -x * x * x;
        }
        Ok(())
    }
    fn is_autonomous(&self) -> bool {
        true
    }
}

/// Blows up: g(u) = u·10³⁰⁰.
struct Overflow;

impl Nonlinearity<CpuBackend, f64> for Overflow {
    fn eval(&self, _: &CpuBackend, _t: f64, u: &Vec<f64>, out: &mut Vec<f64>) -> Result<()> {
        for (o, x) in out.iter_mut().zip(u) {
            *o = x * 1e300 * 1e300;
        }
        Ok(())
    }
}

fn op() -> DenseMatrixOperator<f64> {
    DenseMatrixOperator::new(2, 2, vec![-2.0, 1.0, 1.0, -2.0]).unwrap()
}

#[test]
fn bad_options_are_rejected() {
    let cpu = CpuBackend::new();
    let adaptive_euler = ExpIntOptions {
        scheme: Scheme::ExponentialEuler,
        ..Default::default()
    };
    assert!(matches!(
        ExpIntegrator::<_, f64>::new(&cpu, 2, adaptive_euler),
        Err(Error::InvalidArgument { .. })
    ));
    let zero_steps = ExpIntOptions {
        stepping: Stepping::Fixed { steps: 0 },
        ..Default::default()
    };
    assert!(ExpIntegrator::<_, f64>::new(&cpu, 2, zero_steps).is_err());
    let tiny = ExpIntOptions {
        tol: Tolerance::new(1e-12, 0.0),
        ..Default::default()
    };
    assert!(
        ExpIntegrator::<_, f32>::new(&cpu, 2, tiny).is_err(),
        "below f32 roundoff"
    );
    let bad_h = ExpIntOptions {
        stepping: Stepping::Adaptive {
            h0: Some(-1.0),
            h_min: 1e-9,
            h_max: 1.0,
        },
        ..Default::default()
    };
    assert!(ExpIntegrator::<_, f64>::new(&cpu, 2, bad_h).is_err());
}

#[test]
fn bad_input_is_reported_not_propagated() {
    let cpu = CpuBackend::new();
    let mut integ = ExpIntegrator::<_, f64>::new(&cpu, 2, ExpIntOptions::default()).unwrap();
    let mut short = vec![1.0];
    assert!(matches!(
        integ.integrate(&op(), &Cubic, 0.0, 1.0, &mut short),
        Err(Error::DimensionMismatch { .. })
    ));
    let mut nan = vec![1.0, f64::NAN];
    assert!(matches!(
        integ.integrate(&op(), &Cubic, 0.0, 1.0, &mut nan),
        Err(Error::NonFinite { .. })
    ));
    let mut u = vec![1.0, 0.5];
    assert!(
        integ.integrate(&op(), &Cubic, 1.0, 1.0, &mut u).is_err(),
        "empty interval"
    );
    let mut out = vec![0.0; 2];
    assert!(
        integ
            .step(&op(), &Cubic, 0.0, f64::INFINITY, &u, &mut out, false)
            .is_err()
    );
    // A nonlinearity that overflows gives an error, never a silent NaN.
    let mut fixed = ExpIntegrator::<_, f64>::new(
        &cpu,
        2,
        ExpIntOptions {
            stepping: Stepping::Fixed { steps: 2 },
            ..Default::default()
        },
    )
    .unwrap();
    let mut u = vec![1.0, 0.5];
    assert!(fixed.integrate(&op(), &Overflow, 0.0, 1.0, &mut u).is_err());
}

/// f32 follows f64 on the cubic problem (adaptive epirk4s3): the f32 run has local
/// tolerance 1e−5 and a difference Jacobian accurate to √ε₃₂ ≈ 3·10⁻⁴, over about a hundred
/// steps, so agreement to 5·10⁻⁴ relative is what single precision can promise.
#[test]
fn single_precision_follows_double() {
    let cpu = CpuBackend::new();
    let run64 = {
        let opts = ExpIntOptions {
            scheme: Scheme::Epirk4s3,
            tol: Tolerance::new(1e-9, 0.0),
            ..Default::default()
        };
        let mut i = ExpIntegrator::<_, f64>::new(&cpu, 2, opts).unwrap();
        let mut u = vec![1.0, 0.5];
        i.integrate(&op(), &Cubic, 0.0, 2.0, &mut u).unwrap();
        u
    };
    let opts = ExpIntOptions {
        scheme: Scheme::Epirk4s3,
        tol: Tolerance::new(1e-5, 0.0),
        ..Default::default()
    };
    let a32 = DenseMatrixOperator::new(2, 2, vec![-2.0f32, 1.0, 1.0, -2.0]).unwrap();
    let mut i = ExpIntegrator::<_, f32>::new(&cpu, 2, opts).unwrap();
    let mut u = vec![1.0f32, 0.5];
    let rep = i.integrate(&a32, &Cubic, 0.0, 2.0, &mut u).unwrap();
    for k in 0..2 {
        assert!(
            (f64::from(u[k]) - run64[k]).abs() < 5e-4 * run64[k].abs().max(1e-2),
            "{u:?} vs {run64:?} ({rep:?})"
        );
    }
}
