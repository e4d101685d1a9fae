//! The choice of method, and the rule behind [`Method::Auto`].

use matexp_core::{Backend, LinearOperator, Scalar};
use std::fmt;

/// The algorithm that computes f(tA)v.
///
/// | method | operators | cost in products | note |
/// |---|---|---|---|
/// | [`Method::Leja`] | any | ~‖tA‖ (interpolation degree per substep ≤ 128); ~√‖tA‖ for diffusion on large problems (long substeps, degree ≤ 512) | no inner products; fused GPU step; needs spectral bounds (estimated when the operator has none) |
/// | [`Method::Lanczos`] | Hermitian | ~√‖tA‖ | one basis for every output time and every φ_j |
/// | [`Method::Arnoldi`] | any | ~‖tA‖ with substeps of dimension 30 | Expokit error control; the most robust for strongly nonnormal A |
/// | [`Method::Taylor`] | any | ~5.6‖tA‖ | Al-Mohy–Higham (SciPy's `expm_multiply`); exp only |
///
/// [`Method::Auto`] picks by the rule of [`Method::resolve`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Method {
    /// Chosen per call by [`Method::resolve`].
    #[default]
    Auto,
    /// Newton interpolation at Leja points ([`matexp_expmv::Leja`]).
    Leja,
    /// The Lanczos method for Hermitian operators ([`matexp_expmv::Lanczos`]).
    Lanczos,
    /// Arnoldi with adaptive substeps ([`matexp_expmv::Arnoldi`]).
    Arnoldi,
    /// The truncated Taylor series of Al-Mohy and Higham ([`matexp_expmv::Taylor`]).
    Taylor,
}

impl Method {
    /// Every concrete method, in the order of the table above.
    pub const ALL: [Method; 4] = [
        Method::Leja,
        Method::Lanczos,
        Method::Arnoldi,
        Method::Taylor,
    ];

    /// The method that runs for `op`: `self` unless it is [`Method::Auto`], which chooses
    ///
    /// 1. **Lanczos** when `op.is_hermitian()` (for e^{tA}v, e^{−itH}v and φ_k alike);
    /// 2. **Arnoldi** otherwise.
    ///
    /// Leja and Taylor are never chosen automatically; name them to use them.
    ///
    /// **Products behind the rule.** Product counts are exact (they do not depend on the
    /// machine). At rtol 10⁻⁸, from the facade's `choose_method` example (exp; φ₀ and φ₁
    /// together):
    ///
    /// | problem | Lanczos | Leja | Arnoldi | Taylor |
    /// |---|---|---|---|---|
    /// | 3D Laplacian N = 24, t = 10⁻³ (Hermitian) | 20; 20 | 15; 32 | 62; 124 | 21; — |
    /// | 2D Laplacian N = 64, t = 10⁻³ (Hermitian) | 32; 32 | 28; 58 | 62; 124 | 64; — |
    /// | convection–diffusion n = 2000, cell Péclet 10·h, t = 10⁻⁴ | — | 3306; 6612 | 465; 899 | 3762; — |
    /// | the same, Péclet 1000·h | — | 3306; 6612 | 744; 1457 | 3758; — |
    ///
    /// Lanczos needs the fewest products on every Hermitian problem but the smallest-norm ones
    /// (where Leja saves a few products, and its products without inner products are cheaper),
    /// and computes every φ_j from one basis. For the nonsymmetric convection–diffusion
    /// operator Arnoldi needs several times fewer products than Leja (whose focal interval
    /// comes from a power-iteration box that is wide for a nonnormal operator) and than
    /// Taylor. Times of every method on the `expmv` suite's problems, CPU and GPU:
    /// `bench-results/notes/tuning.md` and the records beside it. The rule is the same for every backend: GPU runs
    /// of all methods on one problem (the facade's `gpu_facade` test prints them) are the
    /// measurement that could make Leja, whose GPU step is one fused pass without inner
    /// products, the choice there for Hermitian problems of small norm.
    ///
    /// Leja takes long substeps for diffusion on large problems: on seed 000's Table 12 it
    /// runs more products than Lanczos (321 against 273–288) but no inner products, and wins
    /// on the matrix-free stencil, a diffusion operator with exact bounds, while Lanczos wins
    /// on the CSR matrix. The rule is unchanged; name Leja for such runs.
    pub fn resolve<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
        self,
        op: &O,
    ) -> Method {
        match self {
            Method::Auto if op.is_hermitian() => Method::Lanczos,
            Method::Auto => Method::Arnoldi,
            m => m,
        }
    }

    /// The methods a call tries for `op`, in order: `[self]` for a named method; for
    /// [`Method::Auto`] the choice of [`Method::resolve`] (Lanczos for a Hermitian operator,
    /// Arnoldi otherwise), then **Taylor**. A method that refuses, with
    /// [`matexp_core::Error::NoConvergence`] (its caps: Krylov dimension, substeps, step-size
    /// rejections, the rounding of its small exponentials) or
    /// [`matexp_core::Error::Unsupported`], passes the call to the next one; the last one's
    /// error is returned, and every other error (bad input, `NonFinite` for an overflowing
    /// result) at once. The report names the method that answered ([`crate::Report::method`])
    /// and those that declined before it ([`crate::Report::declined`]); its products are
    /// those of the answering method only.
    ///
    /// Why Taylor: its cost follows from the norm information of A before the first series
    /// product (a call beyond its product caps is refused before any work), and it needs
    /// neither a Krylov space nor a spectral enclosure, so it answers where a large ‖A‖ with
    /// small powers ‖A^p‖^{1/p} (strongly non-normal, nearly nilpotent) defeats the
    /// step-size control of Arnoldi and the spectral estimate of Leja. Leja is not in the
    /// list: its refusals come after its work.
    pub fn candidates<B: Backend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
        self,
        op: &O,
    ) -> Vec<Method> {
        match self {
            Method::Auto => vec![self.resolve(op), Method::Taylor],
            m => vec![m],
        }
    }

    /// The name used in reports (`"leja"`, `"lanczos"`, …; `"auto"`).
    pub fn name(self) -> &'static str {
        match self {
            Method::Auto => "auto",
            Method::Leja => "leja",
            Method::Lanczos => "lanczos",
            Method::Arnoldi => "arnoldi",
            Method::Taylor => "taylor",
        }
    }
}

impl fmt::Display for Method {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for Method {
    type Err = matexp_core::Error;

    /// Parses `auto`, `leja`, `lanczos`, `arnoldi` or `taylor` (any case).
    fn from_str(s: &str) -> matexp_core::Result<Self> {
        match s.to_ascii_lowercase().as_str() {
            "auto" => Ok(Method::Auto),
            "leja" => Ok(Method::Leja),
            "lanczos" => Ok(Method::Lanczos),
            "arnoldi" => Ok(Method::Arnoldi),
            "taylor" => Ok(Method::Taylor),
            _ => Err(matexp_core::Error::invalid(
                "method",
                s,
                "expected auto, leja, lanczos, arnoldi or taylor",
            )),
        }
    }
}
