//! Test support: discrete Leja points and a 512-bit reference for the divided differences.
#![allow(dead_code)]

use dashu_float::{FBig, round::mode::HalfEven};
use matexp_core::c64;

/// Working precision of the reference (bits).
pub const PREC: usize = 512;

type Big = FBig<HalfEven, 2>;

/// Discrete Leja points of `[−2, 2]` on a uniform grid of `grid` points: `ξ_0 = 2`, then
/// `ξ_n = argmax_x Σ_{j<n} ln|x − ξ_j|` over the grid (the first maximiser on ties).
pub fn leja_points(count: usize, grid: usize) -> Vec<f64> {
    let xs: Vec<f64> = (0..grid)
        .map(|i| -2.0 + 4.0 * i as f64 / (grid - 1) as f64)
        .collect();
    let mut logp = vec![0.0f64; grid];
    let mut pts = vec![2.0];
    for _ in 1..count {
        let last = *pts.last().unwrap();
        for (lp, &x) in logp.iter_mut().zip(&xs) {
            *lp += (x - last).abs().ln(); // −∞ at chosen points keeps them out
        }
        let (i, _) = logp
            .iter()
            .enumerate()
            .fold((0, f64::NEG_INFINITY), |best, (i, &v)| {
                if v > best.1 { (i, v) } else { best }
            });
        pts.push(xs[i]);
    }
    pts
}

fn big(x: f64) -> Big {
    Big::try_from(x).unwrap().with_precision(PREC).value()
}

/// A complex number in `PREC`-bit arithmetic.
#[derive(Clone, Debug)]
struct C {
    re: Big,
    im: Big,
}

impl C {
    fn from_c64(z: c64) -> C {
        C {
            re: big(z.re),
            im: big(z.im),
        }
    }
    fn zero() -> C {
        C::from_c64(c64::new(0.0, 0.0))
    }
    fn add(&self, o: &C) -> C {
        C {
            re: &self.re + &o.re,
            im: &self.im + &o.im,
        }
    }
    fn sub(&self, o: &C) -> C {
        C {
            re: &self.re - &o.re,
            im: &self.im - &o.im,
        }
    }
    fn mul(&self, o: &C) -> C {
        C {
            re: &self.re * &o.re - &self.im * &o.im,
            im: &self.re * &o.im + &self.im * &o.re,
        }
    }
    fn div(&self, o: &C) -> C {
        let den = &o.re * &o.re + &o.im * &o.im;
        C {
            re: (&self.re * &o.re + &self.im * &o.im) / &den,
            im: (&self.im * &o.re - &self.re * &o.im) / &den,
        }
    }
    fn div_real(&self, r: &Big) -> C {
        C {
            re: &self.re / r,
            im: &self.im / r,
        }
    }
    fn exp(&self) -> C {
        let m = self.re.exp();
        let (s, c) = self.im.sin_cos();
        C {
            re: &m * &c,
            im: &m * &s,
        }
    }
    fn modulus_f64(&self) -> f64 {
        let r = self.re.to_f64().value();
        let i = self.im.to_f64().value();
        r.hypot(i)
    }
    fn to_c64(&self) -> c64 {
        c64::new(self.re.to_f64().value(), self.im.to_f64().value())
    }
}

fn big_inv_factorial(l: usize) -> Big {
    let mut f = big(1.0);
    for i in 1..=l {
        f /= big(i as f64);
    }
    f
}

/// `φ_k(z)` in `PREC`-bit arithmetic: Taylor series for `|z| < 1`, otherwise `e^z` and the
/// upward recurrence (whose cancellation costs a few of the 512 bits at most).
fn big_phi(k: usize, z: &C) -> C {
    if k == 0 {
        return z.exp();
    }
    if z.modulus_f64() < 1.0 {
        let f = big_inv_factorial(k);
        let mut term = C {
            re: f.clone(),
            im: big(0.0),
        };
        let mut sum = term.clone();
        for j in 1..200 {
            term = term.mul(z).div_real(&big((j + k) as f64));
            sum = sum.add(&term);
        }
        sum
    } else {
        let mut v = z.exp();
        for l in 0..k {
            let f = C {
                re: big_inv_factorial(l),
                im: big(0.0),
            };
            v = v.sub(&f).div(z);
        }
        v
    }
}

/// Reference `d_j = g[ξ_0..ξ_j]`, `g(ξ) = φ_k(α + βξ)`, by the Newton table in `PREC`-bit
/// arithmetic on the exact (binary) inputs, rounded to `c64`.
pub fn reference(k: usize, alpha: c64, beta: c64, nodes: &[f64]) -> Vec<c64> {
    let a = C::from_c64(alpha);
    let b = C::from_c64(beta);
    let xs: Vec<C> = nodes
        .iter()
        .map(|&x| C::from_c64(c64::new(x, 0.0)))
        .collect();
    let mut d: Vec<C> = Vec::with_capacity(nodes.len());
    for j in 0..nodes.len() {
        let z = a.add(&b.mul(&xs[j]));
        let mut t = big_phi(k, &z);
        for i in 0..j {
            let dx = &xs[j].re - &xs[i].re;
            t = t.sub(&d[i]).div_real(&dx);
        }
        d.push(t);
    }
    let _ = C::zero();
    d.iter().map(C::to_c64).collect()
}

/// `max_j |a_j − b_j| / max_j |b_j|`.
pub fn normwise_error(a: &[c64], reference: &[c64]) -> f64 {
    let scale = reference.iter().map(|z| z.norm()).fold(0.0, f64::max);
    let err = a
        .iter()
        .zip(reference)
        .map(|(x, y)| (x - y).norm())
        .fold(0.0, f64::max);
    err / scale
}

/// `max_j |a_j − b_j| / |b_j|` over the coefficients with `|b_j| ≥ floor · max |b|`.
pub fn componentwise_error(a: &[c64], reference: &[c64], floor: f64) -> f64 {
    let scale = reference.iter().map(|z| z.norm()).fold(0.0, f64::max);
    a.iter()
        .zip(reference)
        .filter(|(_, y)| y.norm() >= floor * scale)
        .map(|(x, y)| (x - y).norm() / y.norm())
        .fold(0.0, f64::max)
}
