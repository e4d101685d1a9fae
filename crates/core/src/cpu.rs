//! The CPU backend: `Vec<S>` vectors, rayon-parallel BLAS-1.

use crate::error::check_dim;
use crate::memory::try_filled;
use crate::{Backend, KrylovBackend, Result, Scalar, norms};

/// Host vectors (`Vec<S>`) with rayon-parallel kernels; the reference every other backend is
/// tested against.
#[derive(Debug, Clone, Copy, Default)]
pub struct CpuBackend;

impl CpuBackend {
    /// The CPU backend (uses rayon's global pool; size it with `RAYON_NUM_THREADS`).
    pub fn new() -> Self {
        CpuBackend
    }
}

impl Backend for CpuBackend {
    type Vector<S: Scalar> = Vec<S>;

    fn name(&self) -> String {
        format!("cpu({} threads)", rayon::current_num_threads())
    }
    /// A zero vector, or [`crate::Error::InvalidArgument`] when `n` entries cannot be
    /// allocated (an operator claiming more rows than memory holds is an error, not an abort).
    fn zeros<S: Scalar>(&self, n: usize) -> Result<Vec<S>> {
        try_filled(n, S::zero(), "vector length")
    }
    fn upload<S: Scalar>(&self, host: &[S]) -> Result<Vec<S>> {
        Ok(host.to_vec())
    }
    fn download<S: Scalar>(&self, x: &Vec<S>, host: &mut [S]) -> Result<()> {
        check_dim("download: host length", x.len(), host.len())?;
        host.copy_from_slice(x);
        Ok(())
    }
    fn len<S: Scalar>(&self, x: &Vec<S>) -> usize {
        x.len()
    }
    fn copy<S: Scalar>(&self, src: &Vec<S>, dst: &mut Vec<S>) -> Result<()> {
        check_dim("copy: destination length", src.len(), dst.len())?;
        dst.copy_from_slice(src);
        Ok(())
    }
    fn fill<S: Scalar>(&self, x: &mut Vec<S>, value: S) -> Result<()> {
        x.iter_mut().for_each(|v| *v = value);
        Ok(())
    }
    fn seeded_entries<S: Scalar>(&self, x: &mut Vec<S>, seed: u64, offset: usize) -> Result<()> {
        crate::rng::fill_seeded(x, seed, offset);
        Ok(())
    }
    fn scale<S: Scalar>(&self, alpha: S, x: &mut Vec<S>) -> Result<()> {
        norms::scal(alpha, x);
        Ok(())
    }
    fn axpby<S: Scalar>(&self, alpha: S, x: &Vec<S>, beta: S, y: &mut Vec<S>) -> Result<()> {
        check_dim("axpby: y length", x.len(), y.len())?;
        norms::axpby(alpha, x, beta, y);
        Ok(())
    }
    /// One pass: each xᵢ read once, chunk by chunk (rayon).
    fn linear_combination<S: Scalar>(
        &self,
        coeffs: &[S],
        xs: &[&Vec<S>],
        y: &mut Vec<S>,
    ) -> Result<()> {
        crate::check_combination(self, coeffs, xs, y)?;
        let slices: Vec<&[S]> = xs.iter().map(|x| x.as_slice()).collect();
        norms::combine(coeffs, &slices, y);
        Ok(())
    }
    fn dot<S: Scalar>(&self, x: &Vec<S>, y: &Vec<S>) -> Result<S> {
        check_dim("dot: y length", x.len(), y.len())?;
        Ok(norms::dot(x, y))
    }
    fn nrm2<S: Scalar>(&self, x: &Vec<S>) -> Result<S::Real> {
        Ok(norms::nrm2(x))
    }
    fn amax<S: Scalar>(&self, x: &Vec<S>) -> Result<S::Real> {
        Ok(norms::amax(x))
    }
}

/// The coefficient array is a host `Vec<f64>`: ranged reads and writes are slice copies;
/// every other hook runs its BLAS-1 default.
impl KrylovBackend for CpuBackend {
    fn read_coeffs(&self, c: &Vec<f64>, start: usize, out: &mut [f64]) -> Result<()> {
        let end = start.saturating_add(out.len());
        check_dim("read_coeffs: range end", c.len(), end.max(c.len()))?;
        out.copy_from_slice(&c[start..end]);
        Ok(())
    }
    fn write_coeffs(&self, c: &mut Vec<f64>, start: usize, values: &[f64]) -> Result<()> {
        let end = start.saturating_add(values.len());
        check_dim("write_coeffs: range end", c.len(), end.max(c.len()))?;
        c[start..end].copy_from_slice(values);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-pass combination equals repeated axpby (same order of additions) and checks
    /// its arguments.
    #[test]
    fn linear_combination_equals_repeated_axpby() {
        let cpu = CpuBackend::new();
        for n in [0usize, 5, 70_001] {
            let xs: Vec<Vec<f64>> = (0..4)
                .map(|j| {
                    (0..n)
                        .map(|i| ((i * 7 + j * 13) % 17) as f64 - 8.5)
                        .collect()
                })
                .collect();
            let cs = [0.5, -1.25, 0.0, 3.0];
            let refs: Vec<&Vec<f64>> = xs.iter().collect();
            let mut y = vec![f64::NAN; n];
            cpu.linear_combination(&cs, &refs, &mut y).unwrap();
            let mut want = vec![0.0; n];
            for (c, x) in cs.iter().zip(&xs) {
                cpu.axpby(*c, x, 1.0, &mut want).unwrap();
            }
            assert_eq!(y, want);
        }
        let x = vec![1.0; 3];
        let mut y = vec![0.0; 3];
        assert!(cpu.linear_combination(&[1.0], &[&x, &x], &mut y).is_err());
        assert!(
            cpu.linear_combination(&[1.0], &[&vec![1.0; 4]], &mut y)
                .is_err()
        );
        let mut z = vec![f64::NAN; 3];
        cpu.linear_combination::<f64>(&[], &[], &mut z).unwrap();
        assert_eq!(z, vec![0.0; 3]);
    }

    /// The Pythagorean step (sums, then update) on the CPU: the classical step's
    /// coefficients and vector where β is trusted; the exact-norm fallback where the identity
    /// cancels (q close to an eigenvector) or breaks down (an eigenvector).
    #[test]
    fn pythagorean_lanczos_step_matches_the_classical_one() {
        use crate::{LANCZOS_SUMS, LinearOperator, OperatorSteps, lanczos_pythagoras};
        let cpu = CpuBackend::new();
        let a = crate::DenseMatrixOperator::new(
            3,
            3,
            vec![1.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 3.0],
        )
        .unwrap();
        let step = |q: Vec<f64>| {
            let mut sums = vec![0.0; LANCZOS_SUMS];
            let (mut w, mut c) = (vec![0.0; 3], vec![0.0; 2]);
            a.lanczos_product(&cpu, 0, None, &q, &mut w, &c, &mut sums)
                .unwrap();
            let four = [sums[0], sums[1], sums[2], sums[3]];
            cpu.lanczos_update(0, &q, &mut w, &mut c, &mut sums)
                .unwrap();
            let (mut w2, mut c2) = (vec![0.0; 3], vec![0.0; 2]);
            a.apply(&cpu, 1.0, &q, 0.0, &mut w2).unwrap();
            cpu.lanczos_step(0, None, &q, &mut w2, &mut c2).unwrap();
            (four, c, w, c2, w2)
        };
        // Trusted: q = (1, 1, 1)/√3, α = 2, β² = 2/3 of ‖w‖² = 14/3 (> 1/16).
        let s = 1.0 / 3f64.sqrt();
        let (four, c, w, c2, w2) = step(vec![s; 3]);
        assert!(lanczos_pythagoras(&four).is_some());
        assert!(
            (c[0] - c2[0]).abs() < 1e-15 && (c[1] - c2[1]).abs() < 1e-14,
            "{c:?} {c2:?}"
        );
        for (x, y) in w.iter().zip(&w2) {
            assert!((x - y).abs() < 1e-14, "{w:?} {w2:?}");
        }
        // Nearly an eigenvector: β² ≈ 2e−12 of ‖w‖², the identity is not trusted and the
        // exact norm gives the classical β to full relative accuracy.
        let d: f64 = 1e-6;
        let nq = (1.0 + 2.0 * d * d).sqrt();
        let (four, c, w, c2, w2) = step(vec![d / nq, 1.0 / nq, d / nq]);
        assert!(lanczos_pythagoras(&four).is_none());
        assert!((c[1] - c2[1]).abs() <= 1e-9 * c2[1], "{c:?} {c2:?}");
        for (x, y) in w.iter().zip(&w2) {
            assert!((x - y).abs() < 1e-9, "{w:?} {w2:?}");
        }
        // An eigenvector: β = 0 and q₁ = 0, as the classical step.
        let (four, c, w, _, _) = step(vec![0.0, 1.0, 0.0]);
        assert!(lanczos_pythagoras(&four).is_none());
        assert_eq!(c, [2.0, 0.0]);
        assert_eq!(w, [0.0; 3]);
        // Short arrays are errors, not panics.
        let (mut w, mut c, mut sums) = (vec![0.0; 3], vec![0.0; 2], vec![0.0; 4]);
        assert!(
            cpu.lanczos_update(0, &w.clone(), &mut w, &mut c, &mut sums)
                .is_err()
        );
    }

    /// The default fused Lanczos step on the CPU: α, β land in the coefficient array, the
    /// residual is normalized in place, and an exact breakdown leaves zeros (not NaN).
    #[test]
    fn lanczos_step_writes_its_coefficients() {
        let cpu = CpuBackend::new();
        // A = diag(1, 2, 3), q₀ = (1, 1, 1)/√3: α₀ = 2, w = (−1, 0, 1)/√3, β₁ = √(2/3).
        let s = 1.0 / 3f64.sqrt();
        let q0 = vec![s; 3];
        let mut w = vec![s, 2.0 * s, 3.0 * s];
        let mut c = vec![0.0; 4];
        cpu.lanczos_step(0, None, &q0, &mut w, &mut c).unwrap();
        assert!((c[0] - 2.0).abs() < 1e-15);
        assert!((c[1] - (2.0f64 / 3.0).sqrt()).abs() < 1e-15);
        let r = 0.5f64.sqrt();
        for (x, y) in w.iter().zip([-r, 0.0, r]) {
            assert!((x - y).abs() < 1e-15, "{w:?}");
        }
        let mut out = [0.0; 2];
        cpu.read_coeffs(&c, 0, &mut out).unwrap();
        assert_eq!(out, [c[0], c[1]]);
        assert!(cpu.read_coeffs(&c, 3, &mut out).is_err());
        // An eigenvector: w − α q = 0 exactly, β = 0 and q₁ = 0.
        let e = vec![0.0, 1.0, 0.0];
        let mut w = vec![0.0, 2.0, 0.0];
        let mut c = vec![0.0; 2];
        cpu.lanczos_step(0, None, &e, &mut w, &mut c).unwrap();
        assert_eq!(c, [2.0, 0.0]);
        assert_eq!(w, [0.0; 3]);
        // A coefficient array too short for step j is an error, not a panic.
        assert!(cpu.lanczos_step(3, None, &e, &mut w, &mut c).is_err());
    }
}
