//! Divided differences as the first column of a matrix exponential, by Taylor series and
//! repeated multiplication (McCurdy–Ng–Parlett 1984; Caliari 2007; Zivcovich 2019).
//!
//! With `z_i = α + βξ_i`, Opitz's theorem gives `g[ξ_0..ξ_j] = e_j^T exp(Z) e_0` for the
//! lower bidiagonal `Z` with `z_0..z_m` on the diagonal and `β` on the subdiagonal. For `φ_k`,
//! `φ_k[z_0..z_j] = exp[0,…,0, z_0..z_j]` with `k` zeros (because `φ_k(z) = exp[0^k, z]` and a
//! divided difference of a divided difference in its last argument is the divided difference
//! on the union of the nodes), so `k` zero nodes joined by subdiagonal ones are put in front.
//!
//! The algorithm:
//! 1. shift: `exp(Z) = e^σ exp(Z − σI)` with `σ` chosen so that for real data every diagonal
//!    entry of `Z − σI` is `≥ 0` (then `exp(Z − σI)` and every rounding step below involve
//!    nonnegative quantities only, up to the sign pattern `diag((−1)^i)` when `β < 0`), and for
//!    complex data `σ` is the centre of the nodes' bounding box;
//! 2. scale: `M = (Z − σI)/s`, `s = ⌈ν/θ⌉`, `ν = max|diag| + max|subdiag|`;
//! 3. `F = exp(M)` column by column from its Taylor series; column `j` is the first column of
//!    the exponential of the trailing block `M[j.., j..]`, so each column is a short
//!    recurrence on a vector. Entries of `F` decay like `‖M‖^{i−j}/(i−j)!` and underflow
//!    below 2^−1000 beyond a bandwidth `w` (≈ 130–160 for `θ ≤ 4`, ≈ 220 for `θ = 16`): `F`
//!    is stored as a band;
//! 4. `v = F^s e_0` by `s` banded matrix–vector products, rescaling `v` by an exact power of
//!    two after each product;
//! 5. `d_j = e^σ · 2^E · v_{k+j}`, with `e^σ` assembled from `e^α`, `e^{βc}` (with the
//!    rounding error of `βc` carried) and `e^τ`, each carried with a separate binary exponent.
//!
//! Cost: `O(n·w·(T + s))` with `n = k + m + 1`, `T ≤ w` Taylor terms per column; memory
//! `O(n·w)`.

use crate::scalar::{Scaled, exponent, pow2, two_prod};
use crate::{Affine, DdScalar};
use matexp_core::{Error, Result, c64};
use rayon::prelude::*;

/// Scaling target `‖(Z − σI)/s‖ ≤ θ` for real data (no cancellation: a larger θ costs
/// nothing in accuracy and saves products). The cost is `s·n·w` multiply-adds for the
/// products (`s = ⌈ν/θ⌉`) plus `n·T·w` for the Taylor columns (`T` terms, band `w`, both
/// growing slowly with θ: entries of `exp(M)` decay like `θ^l/l!`), so a larger θ pays until
/// the Taylor columns dominate; 16 takes a quarter of the products of θ = 4 for a band about
/// 1.4 times wider (timings: `bench-results/notes/tuning.md`, "divdiff: scaling target").
/// Accuracy: `long_real_substeps_against_512_bit_reference` (tests/it/accuracy.rs).
pub(crate) const THETA_REAL: f64 = 16.0;
/// Scaling target for complex data, where the Taylor series of `exp(M)` cancels by up to
/// `e^{2θ}`; 3 keeps the measured error at the level of the real case.
pub(crate) const THETA_COMPLEX: f64 = 3.0;

/// Result of [`stable`].
#[derive(Debug)]
pub(crate) struct StableOutput<T> {
    pub values: Vec<T>,
    pub substeps: usize,
    pub bandwidth: usize,
}

/// See the module documentation. The caller has validated the inputs (finite, nonempty,
/// `k ≤ MAX_PHI_ORDER`, spread ≤ `MAX_SPREAD`).
pub(crate) fn stable<T: DdScalar>(
    k: usize,
    map: Affine<T>,
    nodes: &[f64],
) -> Result<StableOutput<T>> {
    let Affine { alpha, beta } = map;
    let n = k + nodes.len();
    let (xmin, xmax) = nodes
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        });
    let real = !T::IS_COMPLEX;

    // σ = α + βc + τ. The data part of the diagonal is β(ξ_i − c) − τ, the zero nodes get
    // −(α + βc) − τ.
    let c = if real {
        if beta.re() >= 0.0 { xmin } else { xmax }
    } else {
        0.5 * xmin + 0.5 * xmax
    };
    let zero_node = -(alpha + beta.scale(c));
    let data: Vec<T> = nodes.iter().map(|&x| beta.scale(x - c)).collect();
    let tau = if k == 0 {
        T::zero()
    } else if real {
        T::from_real(zero_node.re().min(0.0))
    } else {
        bounding_box_centre(data.iter().copied().chain(std::iter::once(zero_node)))
    };

    let mut diag = Vec::with_capacity(n);
    diag.extend(std::iter::repeat_n(zero_node - tau, k));
    diag.extend(data.iter().map(|&x| x - tau));
    // sub[i] is entry (i+1, i): ones along the zero nodes and into the first data node.
    let sub: Vec<T> = (0..n.saturating_sub(1))
        .map(|i| if i < k { T::one() } else { beta })
        .collect();

    let nu = diag.iter().map(|x| x.modulus()).fold(0.0, f64::max)
        + sub.iter().map(|x| x.modulus()).fold(0.0, f64::max);
    let theta = if real { THETA_REAL } else { THETA_COMPLEX };
    let substeps = ((nu / theta).ceil() as usize).max(1);
    let inv_s = 1.0 / substeps as f64;
    let a: Vec<T> = diag.iter().map(|x| x.scale(inv_s)).collect();
    let b: Vec<T> = sub.iter().map(|x| x.scale(inv_s)).collect();
    let norm_m = nu * inv_s;

    // The columns are independent (each the exponential of a trailing block) and cost about
    // `T·w` each, as much as all the banded products together at θ = 16: computed in
    // parallel, each by the same serial recurrence, so the result does not depend on the
    // thread count.
    let columns: Vec<BandColumn<T>> = (0..n)
        .into_par_iter()
        .map(|j| BandColumn::new(taylor_column(&a, &b, j, norm_m)))
        .collect();
    let bandwidth = columns.iter().map(|c| c.values.len()).max().unwrap_or(0);

    // v = F^s e_0 with exact power-of-two rescaling.
    let mut v = vec![T::zero(); n];
    v[0] = T::one();
    let mut y = vec![T::zero(); n];
    let mut exp2: i64 = 0;
    for _ in 0..substeps {
        y.iter_mut().for_each(|x| *x = T::zero());
        for (j, col) in columns.iter().enumerate() {
            let vj = v[j];
            if vj == T::zero() {
                continue;
            }
            let len = col.useful_len(exponent(vj.max_component()));
            for (yi, &f) in y[j..].iter_mut().zip(&col.values[..len]) {
                *yi += f * vj;
            }
        }
        let big = y.iter().map(|x| x.max_component()).fold(0.0, f64::max);
        if !(big.is_finite() && big > 0.0) {
            // Cannot happen for finite inputs (the diagonal of F is e^{a_i} > 0 and the
            // entries are bounded by e^θ); reported rather than propagated if it ever does.
            return Err(Error::NonFinite {
                context: "divided differences (stable): banded product".into(),
                index: 0,
                value: format!("{big}"),
            });
        }
        let e = exponent(big);
        let f = pow2(-e);
        for (vi, &yi) in v.iter_mut().zip(&y) {
            let x = yi.scale(f);
            *vi = if x.max_component() < TINY {
                T::zero()
            } else {
                x
            };
        }
        exp2 += i64::from(e);
    }

    // e^σ = e^α · e^{βc} · e^τ, each with its own binary exponent.
    let bc_re = two_prod(beta.re(), c);
    let bc_im = two_prod(beta.im(), c);
    let mut scale = Scaled::exp(alpha.to_c64())
        .mul(Scaled::exp(c64::new(bc_re.0, bc_im.0)).mul_mant(c64::new(1.0 + bc_re.1, bc_im.1)))
        .mul(Scaled::exp(tau.to_c64()));
    // Saturating, as in `Scaled::mul`: an exponent at i64::MAX is an overflow to report.
    scale.exp2 = scale.exp2.saturating_add(exp2);

    let mut values = Vec::with_capacity(nodes.len());
    for (j, &vj) in v[k..].iter().enumerate() {
        let d = scale.apply(vj.to_c64());
        if !(d.re.is_finite() && d.im.is_finite()) {
            return Err(overflow_error(j, scale.log10_abs(vj.to_c64()), alpha, beta));
        }
        values.push(T::from_c64(d));
    }
    Ok(StableOutput {
        values,
        substeps,
        bandwidth,
    })
}

/// Magnitude below which entries of `exp(M)`, of its Taylor terms and of the product vector
/// are set to zero (2^−1000 ≈ 1e−301). Their contributions are below 2^−1000 relative to the
/// largest entry; flushing them keeps the arithmetic out of the subnormal range, which is two
/// orders of magnitude slower on common hardware. Coefficients smaller than about 1e−290
/// relative to the largest therefore carry no relative accuracy.
const TINY: f64 = 9.332_636_185_032_189e-302;

/// Contributions `F_ij·v_j` below `2^LOWEST_CONTRIBUTION` (relative to `max |v| ∈ [1, 2)`)
/// are skipped in the banded products.
const LOWEST_CONTRIBUTION: i32 = -1020;

/// One column of the band of `exp(M)` with, for each offset `l`, the largest binary exponent
/// of the entries at offsets `≥ l` (nonincreasing), so that the part of the column whose
/// products with `v_j` stay above the subnormal range is found by binary search.
#[derive(Debug)]
struct BandColumn<T> {
    values: Vec<T>,
    tail_exponent: Vec<i16>,
}

impl<T: DdScalar> BandColumn<T> {
    fn new(values: Vec<T>) -> Self {
        let mut tail_exponent = vec![i16::MIN; values.len()];
        let mut running = i16::MIN;
        for (l, x) in values.iter().enumerate().rev() {
            let m = x.max_component();
            if m > 0.0 {
                running = running.max(exponent(m) as i16);
            }
            tail_exponent[l] = running;
        }
        BandColumn {
            values,
            tail_exponent,
        }
    }

    /// Number of leading entries whose product with a value of binary exponent `ev` can
    /// reach `2^LOWEST_CONTRIBUTION`.
    fn useful_len(&self, ev: i32) -> usize {
        if ev >= -20 {
            // Entries are ≥ TINY = 2^−1000, so no product can fall below 2^−1020.
            return self.values.len();
        }
        self.tail_exponent
            .partition_point(|&e| i32::from(e) + ev >= LOWEST_CONTRIBUTION)
    }
}

/// Column `j` of `exp(M)` (rows `j..`), `M` lower bidiagonal with diagonal `a`, subdiagonal
/// `b`, `‖M‖ ≤ norm_m`, truncated after its last nonzero entry.
///
/// Term `t` of the series is `term_t = M·term_{t−1}/t` on the trailing block: entry `i` is
/// `(a_i·term[i] + b_{i−1}·term[i−1])/t`, flushed to zero below [`TINY`]. The loops are
/// branch-free over the interior of the support (so that they vectorise), the sum and the
/// convergence test share one pass; the arithmetic, its order and the stopping decision are
/// those of the plain entry-by-entry recurrence.
fn taylor_column<T: DdScalar>(a: &[T], b: &[T], j: usize, norm_m: f64) -> Vec<T> {
    let a = &a[j..];
    // b[i] is entry (j+i+1, j+i): it carries term[i] into row i + 1.
    let b = &b[j.min(b.len())..];
    let len_max = a.len();
    let flush = |x: T| {
        if x.max_component() < TINY {
            T::zero()
        } else {
            x
        }
    };
    let mut col = vec![T::one()];
    let mut term = vec![T::one()];
    let mut next: Vec<T> = Vec::new();
    // The number of leading entries of `term` up to its last nonzero one.
    let mut support = 1usize;
    // Terms shrink like ‖M‖^t/t! and fall below TINY (flushed to zero) well before this cap.
    for t in 1..4000usize {
        if support == 0 {
            break;
        }
        let len = (support + 1).min(len_max);
        next.resize(len, T::zero());
        let inv_t = 1.0 / t as f64;
        next[0] = flush((a[0] * term[0]).scale(inv_t));
        // Rows 1..support: both the diagonal and the subdiagonal contribute.
        for (((n, &ai), &bi), w) in next[1..support]
            .iter_mut()
            .zip(&a[1..support])
            .zip(&b[..support - 1])
            .zip(term[..support].windows(2))
        {
            *n = flush((ai * w[1] + bi * w[0]).scale(inv_t));
        }
        // Row `support` (when inside the block): only the subdiagonal.
        if support < len {
            next[support] = flush((b[support - 1] * term[support - 1]).scale(inv_t));
        }
        if col.len() < len {
            col.resize(len, T::zero());
        }
        // Componentwise convergence (only possible once the column's support is complete):
        // the last term no longer changes any entry (2^-60 relative).
        let check = len == len_max && t as f64 > norm_m;
        let mut converged = true;
        if check {
            for (c, &x) in col.iter_mut().zip(&next) {
                *c += x;
                converged &= x.max_component() <= c.max_component() * CONVERGED;
            }
        } else {
            for (c, &x) in col.iter_mut().zip(&next) {
                *c += x;
            }
        }
        std::mem::swap(&mut term, &mut next);
        support = support_of(&term);
        if check && converged {
            break;
        }
    }
    col.truncate(support_of(&col).max(1));
    col
}

/// The number of leading entries of `v` up to its last nonzero one.
fn support_of<T: DdScalar>(v: &[T]) -> usize {
    v.iter().rposition(|x| *x != T::zero()).map_or(0, |p| p + 1)
}

/// A Taylor term at most this fraction (2^−60) of an entry no longer changes it.
const CONVERGED: f64 = 8.673_617_379_884_035e-19;

fn bounding_box_centre<T: DdScalar>(points: impl Iterator<Item = T>) -> T {
    let (mut re_lo, mut re_hi, mut im_lo, mut im_hi) = (
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::INFINITY,
        f64::NEG_INFINITY,
    );
    for p in points {
        re_lo = re_lo.min(p.re());
        re_hi = re_hi.max(p.re());
        im_lo = im_lo.min(p.im());
        im_hi = im_hi.max(p.im());
    }
    T::from_c64(c64::new(
        0.5 * re_lo + 0.5 * re_hi,
        0.5 * im_lo + 0.5 * im_hi,
    ))
}

pub(crate) fn overflow_error<T: DdScalar>(j: usize, log10: f64, alpha: T, beta: T) -> Error {
    Error::NonFinite {
        context: format!(
            "divided differences: d_{j} has magnitude ≈ 1e{log10:.1}, beyond the f64 range \
             (α = {alpha}, β = {beta}); reduce Re α or the step"
        ),
        index: j,
        value: format!("1e{log10:.1}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The entry-by-entry recurrence `taylor_column` restructures (kept as the reference).
    fn reference_column<T: DdScalar>(a: &[T], b: &[T], j: usize, norm_m: f64) -> Vec<T> {
        let len_max = a.len() - j;
        let mut col = vec![T::one()];
        let mut term = vec![T::one()];
        for t in 1..4000usize {
            let support = support_of(&term);
            if support == 0 {
                break;
            }
            let len = (support + 1).min(len_max);
            let mut next = vec![T::zero(); len];
            for (i, n) in next.iter_mut().enumerate() {
                let mut x = if i < support {
                    a[j + i] * term[i]
                } else {
                    T::zero()
                };
                if i >= 1 && i - 1 < support {
                    x += b[j + i - 1] * term[i - 1];
                }
                let x = x.scale(1.0 / t as f64);
                *n = if x.max_component() < TINY {
                    T::zero()
                } else {
                    x
                };
            }
            if col.len() < len {
                col.resize(len, T::zero());
            }
            for (c, &x) in col.iter_mut().zip(&next) {
                *c += x;
            }
            term = next;
            if len == len_max
                && t as f64 > norm_m
                && col
                    .iter()
                    .zip(&term)
                    .all(|(c, x)| x.max_component() <= c.max_component() * CONVERGED)
            {
                break;
            }
        }
        col.truncate(support_of(&col).max(1));
        col
    }

    /// Every column of `exp(M)` for the scaled node matrices the stable method builds (real
    /// and complex, short and long, with entries flushed to zero) is bit for bit that of the
    /// reference recurrence.
    fn check<T: DdScalar>(diag: &[T], sub: T) {
        let nu = diag.iter().map(|x| x.modulus()).fold(0.0, f64::max) + sub.modulus();
        let theta = if T::IS_COMPLEX {
            THETA_COMPLEX
        } else {
            THETA_REAL
        };
        let inv_s = 1.0 / ((nu / theta).ceil()).max(1.0);
        let a: Vec<T> = diag.iter().map(|x| x.scale(inv_s)).collect();
        let b: Vec<T> = vec![sub.scale(inv_s); diag.len().saturating_sub(1)];
        for j in 0..a.len() {
            let got = taylor_column(&a, &b, j, nu * inv_s);
            let want = reference_column(&a, &b, j, nu * inv_s);
            assert_eq!(got.len(), want.len(), "column {j} of {}", a.len());
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!(
                    g.re().to_bits() == w.re().to_bits() && g.im().to_bits() == w.im().to_bits(),
                    "column {j}, row {i}: {g} vs {w}"
                );
            }
        }
    }

    #[test]
    fn taylor_columns_equal_the_entrywise_recurrence() {
        for n in [1usize, 2, 7, 60, 260] {
            // Scattered points of [−2, 2] (the order does not matter here).
            let xi: Vec<f64> = (0..n).map(|k| 2.0 * (2.399_963 * k as f64).cos()).collect();
            for beta in [1e-3, 0.7, 32.7, 300.0, -5.0] {
                let c = if beta >= 0.0 { -2.0 } else { 2.0 };
                let diag: Vec<f64> = xi.iter().map(|&x| beta * (x - c)).collect();
                check(&diag, beta);
            }
            for beta in [
                c64::new(0.0, -40.0),
                c64::new(-5.0, 3.0),
                c64::new(0.0, 1e-2),
            ] {
                let diag: Vec<c64> = xi.iter().map(|&x| beta.scale(x)).collect();
                check(&diag, beta);
            }
        }
    }
}
