//! The loss of orthogonality of the Lanczos vectors, estimated from α, β alone (the
//! ω-recurrence of Paige and Simon), for [`crate::Reorthogonalize::Auto`].
//!
//! With q_0, q_1, … the computed Lanczos vectors and ω_{i,j} ≈ q_iᵀq_j, the three-term
//! recurrence A·q_i = β_i q_{i−1} + α_i q_i + β_{i+1} q_{i+1} + f_i (f_i the rounding of the
//! step) gives, for j < i (Simon 1984, eq. (2.9); β_0 = 0):
//!
//! β_{i+1}·ω_{i+1,j} = β_{j+1}·ω_{i,j+1} + (α_j − α_i)·ω_{i,j} + β_j·ω_{i,j−1} − β_i·ω_{i−1,j} + ϑ,
//!
//! with ω_{i,i} = 1, ω_{i+1,i} = ψ the local orthogonality of a step, ψ = ε·‖T‖/β_{i+1}, and
//! the rounding ϑ modelled as 2ε·‖T‖ with the sign of the rest (so the estimate cannot
//! cancel to zero). ‖T‖ is the running Gershgorin bound of the tridiagonal matrix. The
//! estimate follows the true max_j |q_{i+1}ᵀq_j| within a modest factor (it is the standard
//! monitor of partial reorthogonalization): it stays near ε·‖T‖/β while no Ritz value has
//! converged and grows geometrically once one has. O(i) flops per step, two rows of memory,
//! on the host.
//!
//! **When reorthogonalization pays.** Lost orthogonality is the rule, not the exception, once
//! Ritz values converge, and for f(tA)v it is mostly harmless: on the 3D Laplacian, an XXZ
//! chain and the spin bath of seed 000's Tables 10 and 12 the estimate passes √ε before
//! convergence, yet plain Lanczos needs no more steps than a reorthogonalized one. It
//! hurts when converged Ritz values come back as *ghosts* (copies of an eigenvalue already
//! found), each copy a wasted dimension: a stiff spectrum, [−1e6, −1e−2] log-spaced at
//! n = 200, has 2 ghosts at k = 40, 20 at k = 81, 353 at k = 469 and never converges, where
//! full reorthogonalization converges at k = 134. So the verdict ([`OmegaMonitor::verdict`])
//! needs both: the estimate past min(√ε, rtol) since step i₀ (the restart point, where the
//! basis was still semi-orthogonal to the tolerance), the estimate now past 10⁻² (ghosts need
//! a total loss), and at least max(3, ⌈(k − i₀)/32⌉) ghosts in T_k, Ritz values within
//! √ε·‖T_k‖ of another (one eigenvalue solve, O(k²), made only at checks past that point):
//! the dimensions already lost must be a fair share of the steps the restart redoes (the
//! caller also asks that the restart pay against the steps still needed). Measured: the
//! stiff case has 2 ghosts at k = 40 and 3 at k = 44; a random sparse symmetric matrix
//! (n = 800, e^{−iτH}) 3 at k = 167 and 51 at k = 439; the 3D Laplacian and the XXZ and
//! tight-binding chains none; the spin bath of Table 10 one (below the minimum of 3).

/// The ω-recurrence over the steps seen so far.
#[derive(Debug, Clone)]
pub(crate) struct OmegaMonitor {
    /// ω_{i−1,·} and ω_{i,·} for the last vector i the recurrence has reached.
    prev: Vec<f64>,
    cur: Vec<f64>,
    /// Steps fed so far (the recurrence has reached vector `steps`).
    steps: usize,
    /// Running Gershgorin bound of ‖T‖.
    norm: f64,
    eps: f64,
    /// The level that marks the restart point: √ε, or the relative tolerance if smaller.
    level: f64,
    /// The first step whose new vector has an estimate above `level`.
    crossed: Option<usize>,
    /// max_j |ω_{i+1,j}| of the last step fed.
    last: f64,
}

/// The estimate past which ghosts are looked for (they need a total loss, ω ≈ 1).
const GHOST_LEVEL: f64 = 1e-2;

impl OmegaMonitor {
    /// A monitor for unit roundoff `eps` (of the vectors' precision) and relative tolerance
    /// `rtol`: the restart point is where the estimate passes min(√ε, rtol) (the steps before
    /// it are kept, and their loss of orthogonality enters the result at about that level
    /// times a modest factor: restarting at √ε = 1.5e−8 left errors of 2e−10 where 1e−12 was
    /// asked, on a random Hermitian matrix with τ‖A‖ = 10³).
    pub(crate) fn new(eps: f64, rtol: f64) -> Self {
        OmegaMonitor {
            prev: Vec::new(),
            cur: vec![1.0],
            steps: 0,
            norm: 0.0,
            eps,
            level: eps.sqrt().min(rtol).max(10.0 * eps),
            crossed: None,
            last: 0.0,
        }
    }

    /// Feeds the steps not yet seen up to step `k − 1` (α_i = `alpha[i]`, β_{i+1} = `beta[i]`),
    /// and returns the first step i whose new vector q_{i+1} has an estimated
    /// max_{j≤i} |q_{i+1}ᵀq_j| above the restart level, if any has so far.
    pub(crate) fn advance(&mut self, alpha: &[f64], beta: &[f64], k: usize) -> Option<usize> {
        while self.steps < k.min(alpha.len()).min(beta.len()) {
            let i = self.steps;
            let (a, b) = (alpha[i], beta[i]);
            let below = if i > 0 { beta[i - 1] } else { 0.0 };
            self.norm = self.norm.max(a.abs() + below + b);
            if b == 0.0 || !b.is_finite() {
                // Breakdown: the caller stops there.
                break;
            }
            let noise = 2.0 * self.eps * self.norm;
            // ω_{i+1,j} for j = 0..i−1 from ω_{i,·} (cur) and ω_{i−1,·} (prev).
            let mut next = vec![0.0; i + 2];
            let mut worst = 0.0f64;
            for j in 0..i {
                let up = beta[j] * self.cur[j + 1];
                let here = (alpha[j] - a) * self.cur[j];
                let down = if j > 0 {
                    beta[j - 1] * self.cur[j - 1]
                } else {
                    0.0
                };
                let back = below * self.prev.get(j).copied().unwrap_or(0.0);
                let t = up + here + down - back;
                let w = (t + noise.copysign(t)) / b;
                next[j] = w;
                worst = worst.max(w.abs());
            }
            let psi = (self.eps * self.norm / b).min(1.0);
            next[i] = psi;
            next[i + 1] = 1.0;
            worst = worst.max(psi);
            self.prev = std::mem::replace(&mut self.cur, next);
            self.steps += 1;
            self.last = worst;
            if self.crossed.is_none() && worst > self.level {
                self.crossed = Some(i);
            }
        }
        self.crossed
    }

    /// Feeds the steps up to `k − 1` and decides whether to restart with reorthogonalization
    /// (see the module docs): the step i₀ to restart from, or `None`. `pays(i₀)` is asked
    /// before the ghosts are counted (it spares the eigenvalue solve where a restart could
    /// not pay anyway).
    pub(crate) fn verdict(
        &mut self,
        alpha: &[f64],
        beta: &[f64],
        k: usize,
        pays: impl FnOnce(usize) -> bool,
    ) -> Option<usize> {
        let i0 = self.advance(alpha, beta, k)?;
        if self.last < GHOST_LEVEL || !pays(i0) {
            return None;
        }
        let g = ghosts(alpha, beta, k, self.eps);
        (g >= 3usize.max((k - i0).div_ceil(32))).then_some(i0)
    }
}

/// Ritz values of T_k that repeat another to within √ε·‖T_k‖ (the ghosts of lost
/// orthogonality: copies of an eigenvalue that has already converged, or nearly degenerate
/// eigenvalues, which a reorthogonalized run finds as well).
pub(crate) fn ghosts(alpha: &[f64], beta: &[f64], k: usize, eps: f64) -> usize {
    let Ok(mut theta) =
        matexp_dense::symmetric_tridiagonal_eigenvalues(&alpha[..k], &beta[..k.saturating_sub(1)])
    else {
        return 0;
    };
    theta.sort_by(f64::total_cmp);
    let norm = theta.iter().fold(0.0f64, |m, t| m.max(t.abs()));
    let delta = eps.sqrt() * norm;
    theta.windows(2).filter(|w| w[1] - w[0] <= delta).count()
}

#[cfg(test)]
mod tests {
    use super::{OmegaMonitor, ghosts};

    /// Lanczos in f64 on diag(λ) (full reorthogonalization if `reorth`), with the true
    /// max_j |q_{i+1}ᵀq_j| per step.
    fn lanczos_diag(lambda: &[f64], k: usize, reorth: bool) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let n = lambda.len();
        let dot = |x: &[f64], y: &[f64]| x.iter().zip(y).map(|(a, b)| a * b).sum::<f64>();
        let mut q: Vec<Vec<f64>> = vec![vec![1.0 / (n as f64).sqrt(); n]];
        let (mut alpha, mut beta, mut loss) = (vec![], vec![], vec![]);
        for i in 0..k {
            let mut u: Vec<f64> = q[i].iter().zip(lambda).map(|(x, l)| x * l).collect();
            let a = dot(&u, &q[i]);
            for (x, y) in u.iter_mut().zip(&q[i]) {
                *x -= a * y;
            }
            if i > 0 {
                for (x, y) in u.iter_mut().zip(&q[i - 1]) {
                    *x -= beta[i - 1] * y;
                }
            }
            if reorth {
                for p in &q {
                    let h = dot(p, &u);
                    for (x, y) in u.iter_mut().zip(p) {
                        *x -= h * y;
                    }
                }
            }
            let b = dot(&u, &u).sqrt();
            u.iter_mut().for_each(|x| *x /= b);
            let worst = q.iter().map(|p| dot(p, &u).abs()).fold(0.0, f64::max);
            alpha.push(a);
            beta.push(b);
            loss.push(worst);
            q.push(u);
        }
        (alpha, beta, loss)
    }

    fn stiff(n: usize) -> Vec<f64> {
        (0..n)
            .map(|i| -(10f64).powf(-2.0 + 8.0 * i as f64 / (n - 1) as f64))
            .collect()
    }

    #[test]
    fn omega_tracks_the_true_loss_of_orthogonality() {
        let k = 60;
        let (alpha, beta, loss) = lanczos_diag(&stiff(200), k, false);
        let mut m = OmegaMonitor::new(f64::EPSILON, 1e-6);
        let first = m.advance(&alpha, &beta, k).expect("orthogonality is lost");
        let truth = loss.iter().position(|&l| l > f64::EPSILON.sqrt()).unwrap();
        // The estimate passes √ε no later than the truth, and not far earlier.
        assert!(first <= truth && first + 10 >= truth, "{first} vs {truth}");
        // Lost orthogonality brings ghosts; a reorthogonalized run has none.
        assert!(ghosts(&alpha, &beta, k, f64::EPSILON) >= 3);
        assert!(m.verdict(&alpha, &beta, k, |_| true).is_some());
        let (alpha, beta, _) = lanczos_diag(&stiff(200), k, true);
        assert_eq!(ghosts(&alpha, &beta, k, f64::EPSILON), 0);
    }

    #[test]
    fn omega_stays_small_where_orthogonality_holds() {
        // Equispaced spectrum, few steps: no Ritz value has converged.
        let lambda: Vec<f64> = (0..400).map(|i| -(i as f64)).collect();
        let k = 30;
        let (alpha, beta, loss) = lanczos_diag(&lambda, k, false);
        let mut m = OmegaMonitor::new(f64::EPSILON, 1e-6);
        assert_eq!(m.advance(&alpha, &beta, k), None);
        assert_eq!(m.verdict(&alpha, &beta, k, |_| true), None);
        assert!(loss.iter().all(|&l| l < 1e-12));
        assert!(m.last < 1e-10, "{}", m.last);
    }
}
