//! The combustion problem of seed 003 (Hundsdorfer & Verwer, p. 439) on the unit cube:
//! u_t = Δu + g(u), g(u) = ¼(2 − u)e^{20(1 − 1/u)}, u = 1 on the boundary.
//!
//! Written for the state w = u − 1 so that the boundary condition is homogeneous Dirichlet:
//! w' = A w + g(1 + w), A the 7-point Laplacian on N³ interior points (h = 1/(N + 1)), with
//! w₀ = 0.1·sin(πx)sin(πy)sin(πz) (the seed gives no initial value; u₀ = 1 would make the
//! first exponential-Euler step the φ₁ of a constant). In three dimensions the reaction rate
//! g'(1) = 19/4 stays below the smallest diffusion rate 3π², so the temperature rises to a
//! steady state without igniting.

#![allow(dead_code)]

use matexp_core::{CpuBackend, RealScalar, Result, SpectralBounds};
use matexp_integrators::expint::Nonlinearity;

/// g(1 + w) with its exact pointwise Jacobian.
#[derive(Debug, Clone, Copy)]
pub struct Combustion;

/// g(u) = ¼(2 − u)e^{20(1 − 1/u)} and g'(u) = ¼e^{20(1 − 1/u)}(20(2 − u)/u² − 1).
pub fn source(u: f64) -> (f64, f64) {
    let e = (20.0 * (1.0 - 1.0 / u)).exp();
    (
        0.25 * (2.0 - u) * e,
        0.25 * e * (20.0 * (2.0 - u) / (u * u) - 1.0),
    )
}

impl<S: RealScalar> Nonlinearity<CpuBackend, S> for Combustion {
    fn eval(&self, _: &CpuBackend, _t: f64, w: &Vec<S>, out: &mut Vec<S>) -> Result<()> {
        for (o, wi) in out.iter_mut().zip(w) {
            *o = S::from_f64(source(1.0 + wi.as_f64()).0);
        }
        Ok(())
    }
    fn has_jacobian(&self) -> bool {
        true
    }
    fn jacobian_apply(
        &self,
        _: &CpuBackend,
        _t: f64,
        w: &Vec<S>,
        alpha: S,
        v: &Vec<S>,
        beta: S,
        y: &mut Vec<S>,
    ) -> Result<()> {
        for ((yi, wi), vi) in y.iter_mut().zip(w).zip(v) {
            let d = S::from_f64(source(1.0 + wi.as_f64()).1);
            *yi = alpha * d * *vi
                + if beta == S::zero() {
                    S::zero()
                } else {
                    beta * *yi
                };
        }
        Ok(())
    }
    fn is_autonomous(&self) -> bool {
        true
    }
    fn jacobian_bounds(
        &self,
        _: &CpuBackend,
        _t: f64,
        w: &Vec<S>,
    ) -> Result<Option<SpectralBounds>> {
        let (lo, hi) = w
            .iter()
            .map(|wi| source(1.0 + wi.as_f64()).1)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), d| {
                (a.min(d), b.max(d))
            });
        Ok(SpectralBounds::real(lo, hi).ok())
    }
    fn jacobian_is_hermitian(&self) -> bool {
        true
    }
}

/// w₀ on the N³ interior grid (index i = i_x + N i_y + N² i_z).
pub fn initial<S: RealScalar>(n: usize) -> Vec<S> {
    let h = 1.0 / (n + 1) as f64;
    let s: Vec<f64> = (1..=n)
        .map(|i| (std::f64::consts::PI * i as f64 * h).sin())
        .collect();
    let mut w = Vec::with_capacity(n * n * n);
    for iz in 0..n {
        for iy in 0..n {
            for ix in 0..n {
                w.push(S::from_f64(0.1 * s[ix] * s[iy] * s[iz]));
            }
        }
    }
    w
}

/// ‖a − b‖₂/‖b‖₂ in f64.
pub fn rel_diff<S: RealScalar, T: RealScalar>(a: &[S], b: &[T]) -> f64 {
    let num: f64 = a
        .iter()
        .zip(b)
        .map(|(x, y)| (x.as_f64() - y.as_f64()).powi(2))
        .sum();
    let den: f64 = b.iter().map(|y| y.as_f64().powi(2)).sum();
    (num / den).sqrt()
}
