//! The schemes, their orders and their coefficients (with sources).

/// An exponential integrator for `u' = A u + g(t, u)`.
///
/// All but [`Scheme::ExponentialEuler`] are of Rosenbrock type: each step linearises at
/// `u_n`, `J_n = A + ∂g/∂u(t_n, u_n)`, `v_n = ∂g/∂t(t_n, u_n)`, and propagates the remainder
/// `R(t, U) = g(t, U) − g(t_n, u_n) − ∂g/∂u·(U − u_n) − v_n (t − t_n)` (Hochbruck,
/// Ostermann & Schweitzer, *Exponential Rosenbrock-type methods*, SIAM J. Numer. Anal. 47
/// (2009) 786–803, §5 for the non-autonomous form). Their orders hold for stiff problems
/// (no dependence on ‖A‖), for Jacobians that are exact or differences accurate to
/// O(√ε_mach).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scheme {
    /// `u_{n+1} = e^{hA} u_n + h φ₁(hA) g(t_n, u_n)` — order 1, one φ-combination per step
    /// with the operator `A` itself (no Jacobian). Seed 003's combustion step. No error
    /// estimate: fixed steps only.
    ExponentialEuler,
    /// Exponential Rosenbrock–Euler `u_{n+1} = u_n + hφ₁(hJ)F(t_n,u_n) + h²φ₂(hJ)v_n` —
    /// order 2, one φ-combination per step. No error estimate: fixed steps only.
    RosenbrockEuler,
    /// `exprb32` (HOS 2009, Table 5.1): `U₂` = the Rosenbrock–Euler step,
    /// `u_{n+1} = U₂ + 2hφ₃(hJ)R(t_n + h, U₂)` — order 3 with the embedded order-2 `U₂`,
    /// so the error estimate `2hφ₃(hJ)R₂` is the correction itself: two φ-combinations per
    /// step.
    #[default]
    Exprb32,
    /// `exprb43` (HOS 2009, Table 5.2): `c = (½, 1)`, `U₂ = u + ½hφ₁(½hJ)F + …`,
    /// `U₃ = u + hφ₁(hJ)(F + R₂) + …`, `u_{n+1} = u + hφ₁F + h²φ₂v + hφ₃(16R₂ − 2R₃) +
    /// hφ₄(−48R₂ + 12R₃)` — order 4; the embedded order-3 solution drops the φ₄ term, so the
    /// estimate is `hφ₄(hJ)(−48R₂ + 12R₃)`. Three φ-combinations per step, a fourth for the
    /// estimate in adaptive mode.
    Exprb43,
    /// `EPIRK4s3` of Rainwater & Tokman (*A new approach to constructing efficient stiffly
    /// accurate EPIRK methods*, J. Comput. Phys. 323 (2016) 283–309), coefficients as in
    /// Tokman's EPIC library: `c = (1/8, 1/9)`, `U_i = u + c_i hφ₁(c_i hJ)F + …` (both
    /// stages from one φ-combination at two times), `u_{n+1} = u + hφ₁F + h²φ₂v +
    /// hφ₃(−1024R₂ + 1458R₃) + hφ₄(27648R₂ − 34992R₃)` — order 4 (Σbᵢcᵢ² = 2φ₃,
    /// Σbᵢcᵢ³ = 6φ₄). Embedded order 3: `u + hφ₁F + h²φ₂v + 128hφ₃R₂` (Σb̂ᵢcᵢ² = 2φ₃).
    /// Two φ-combinations per step, a third for the estimate in adaptive mode.
    Epirk4s3,
}

impl Scheme {
    /// The order of the propagated solution.
    pub fn order(self) -> u32 {
        match self {
            Scheme::ExponentialEuler => 1,
            Scheme::RosenbrockEuler => 2,
            Scheme::Exprb32 => 3,
            Scheme::Exprb43 | Scheme::Epirk4s3 => 4,
        }
    }

    /// The order of the embedded solution, for schemes that have one.
    pub fn embedded_order(self) -> Option<u32> {
        match self {
            Scheme::ExponentialEuler | Scheme::RosenbrockEuler => None,
            Scheme::Exprb32 => Some(2),
            Scheme::Exprb43 | Scheme::Epirk4s3 => Some(3),
        }
    }

    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::ExponentialEuler => "exponential Euler",
            Scheme::RosenbrockEuler => "exponential Rosenbrock-Euler",
            Scheme::Exprb32 => "exprb32",
            Scheme::Exprb43 => "exprb43",
            Scheme::Epirk4s3 => "epirk4s3",
        }
    }
}

/// EPIRK4s3 nodes and weights (Rainwater & Tokman 2016; EPIC library), the nodes in
/// increasing order as the φ-combination at several times wants them.
pub(crate) mod epirk4s3 {
    pub const NODES: [f64; 2] = [1.0 / 9.0, 1.0 / 8.0];
    /// Weights (of hφ₃R, of hφ₄R) of the stage at node 1/9 (U₃ in the paper) …
    pub const B_NINTH: (f64, f64) = (1458.0, -34992.0);
    /// … and at node 1/8 (U₂ in the paper).
    pub const B_EIGHTH: (f64, f64) = (-1024.0, 27648.0);
    /// The embedded order-3 weight of hφ₃R at node 1/8: 2/c² = 128.
    pub const B_HAT_EIGHTH: f64 = 128.0;
}
