//! Memory planning before allocation: how many full-size vectors a method holds at its peak,
//! what they and the operator cost in bytes, and whether that fits a budget.
//!
//! The methods allocate their workspaces on first use, sized by the operator; at the sizes one
//! device barely holds (a 19 GB state on a 141 GB GPU) a run should learn that it will not fit
//! *before* it allocates the first vector, and learn it with the sizes named. The plan is the
//! sum
//!
//! ```text
//! peak = vectors · bytes_per_vector + operator_bytes + workspace_bytes,
//! bytes_per_vector = local_len · size_of(scalar)
//! ```
//!
//! where `vectors` counts every vector of the operator's order alive at the peak — the input
//! `v` and the output `w` included — and `workspace_bytes` the small arrays (coefficients,
//! sums) that do not scale with the order. `local_len` is the order of the vectors one memory
//! holds: the operator's order on one device, a rank's block of rows in a distributed run
//! (which adds its ghost buffers as operator bytes).
//!
//! The counts, read from the workspaces of this crate and of `matexp-integrators`:
//!
//! | method, mode | vectors | which |
//! | --- | --- | --- |
//! | product `y ← A·x` | 2 | x, y |
//! | Leja (adaptive, fused step) | 6 | v, w; u, p, y_a, y_b of [`crate::LejaWorkspace`] |
//! | Leja, conjugate points (real scalars, imaginary spectrum) | 7 | + the third basis buffer y_c |
//! | Lanczos, one pass, dimension k | k + 3 | v, w; the basis q₀…q_k (k + 1) |
//! | Lanczos, two-pass ([`crate::LanczosOptions::two_pass`]) | 5 | v, w; three rotating basis vectors |
//! | Lanczos, two-pass with substeps | 7 | + the substep's current and next state |
//! | Arnoldi, dimension m | m + 6 | v, w; the basis (m + 1) and A·v, x, the candidate |
//! | Taylor | 5 | v, w; f, b and tmp |
//! | RK45 (Cash–Karp), standard | 9 | u; six stages, tmp and the error |
//! | RK45, lean (linear autonomous `u' = Au`) | 4 | u; the accumulated step, the power (hA)ʲu and its successor |
//! | RK4 | 4 | u; acc, tmp, k |
//!
//! The integrators live above this crate; their counts are here so that one planner serves
//! every propagation (the integrator crate's tests check its own count against this table).
//! Lanczos' one-pass basis grows as it runs: plan it with the dimension cap
//! ([`crate::LanczosOptions`]' `max_dim`).
//!
//! ```
//! use matexp_expmv::plan::{Method, Plan, ScalarKind};
//! // Bose–Hubbard M = N = 17: D = 1 166 803 110 complex doubles, Leja.
//! let p = Plan::new(Method::Leja { conjugate: false }, ScalarKind::C64, 1_166_803_110, 4_096)?;
//! assert_eq!(p.vectors, 6);
//! assert_eq!(p.bytes_per_vector, 16 * 1_166_803_110);
//! assert!(p.check(141_000_000_000, "device free memory").is_ok());
//! // The standard RK45 does not fit; its lean mode does.
//! let rk = Plan::new(Method::Rk45 { lean: false }, ScalarKind::C64, 1_166_803_110, 4_096)?;
//! assert!(rk.check(141_000_000_000, "device free memory").is_err());
//! # Ok::<(), matexp_core::Error>(())
//! ```

use matexp_core::{Error, Result, Scalar};
use std::fmt;

/// The scalar type of the vectors, for its size in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScalarKind {
    /// `f32`, 4 bytes.
    F32,
    /// `f64`, 8 bytes.
    F64,
    /// `c32`, 8 bytes.
    C32,
    /// `c64`, 16 bytes.
    C64,
}

impl ScalarKind {
    /// The kind of `S` (by [`Scalar::NAME`]).
    ///
    /// # Errors
    /// [`Error::Unsupported`] for a scalar type with another name.
    pub fn of<S: Scalar>() -> Result<Self> {
        match S::NAME {
            "f32" => Ok(Self::F32),
            "f64" => Ok(Self::F64),
            "c32" => Ok(Self::C32),
            "c64" => Ok(Self::C64),
            other => Err(Error::Unsupported(format!(
                "memory planning knows f32, f64, c32 and c64, not {other}"
            ))),
        }
    }

    /// Bytes of one element.
    pub fn bytes(self) -> u64 {
        match self {
            Self::F32 => 4,
            Self::F64 | Self::C32 => 8,
            Self::C64 => 16,
        }
    }

    /// The short name (`f32`, `f64`, `c32`, `c64`).
    pub fn name(self) -> &'static str {
        match self {
            Self::F32 => "f32",
            Self::F64 => "f64",
            Self::C32 => "c32",
            Self::C64 => "c64",
        }
    }
}

/// A method and the mode that decides its vector count (see the module table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    /// One product `y ← α·A·x + β·y`.
    Product,
    /// Leja interpolation, adaptive; `conjugate` for conjugate Leja points (real scalars whose
    /// spectrum is nearer the imaginary axis: one more basis buffer).
    Leja {
        /// Whether the conjugate-point recurrence's third buffer is needed.
        conjugate: bool,
    },
    /// Lanczos with its basis stored, up to dimension `max_dim`.
    Lanczos {
        /// The dimension cap.
        max_dim: usize,
    },
    /// Lanczos in two-pass mode (the basis regenerated, not stored).
    LanczosTwoPass {
        /// Whether the run may substep (two more vectors: the substep's states).
        substeps: bool,
    },
    /// Arnoldi up to dimension `max_dim`.
    Arnoldi {
        /// The dimension cap.
        max_dim: usize,
    },
    /// Taylor (Al-Mohy–Higham).
    Taylor,
    /// The Cash–Karp RK45 pair of `matexp-integrators`; `lean` for its mode for a linear
    /// autonomous `u' = Au`.
    Rk45 {
        /// The lean mode.
        lean: bool,
    },
    /// The classical RK4 of `matexp-integrators`.
    Rk4,
}

impl Method {
    /// Full-size vectors alive at the peak, input and output included (the module table).
    pub fn full_vectors(self) -> u64 {
        match self {
            Method::Product => 2,
            Method::Leja { conjugate } => 6 + u64::from(conjugate),
            Method::Lanczos { max_dim } => max_dim as u64 + 3,
            Method::LanczosTwoPass { substeps } => 5 + 2 * u64::from(substeps),
            Method::Arnoldi { max_dim } => max_dim as u64 + 6,
            Method::Taylor => 5,
            Method::Rk45 { lean } => {
                if lean {
                    4
                } else {
                    9
                }
            }
            Method::Rk4 => 4,
        }
    }

    /// Bytes of the small arrays that do not scale with the order (coefficients, sums,
    /// device-side reductions), an upper estimate.
    pub fn workspace_bytes(self) -> u64 {
        match self {
            // α, β and the step's sums on the device; 64 KiB covers k ≤ 4 000.
            Method::Lanczos { max_dim } => 16 * max_dim as u64 + (1 << 16),
            // The Hessenberg matrix lives on the host; device reductions only.
            Method::Arnoldi { max_dim } => 16 * (max_dim as u64 + 2) + (1 << 16),
            _ => 1 << 16,
        }
    }

    /// A short name for reports: `leja`, `lanczos-two-pass`, `rk45-lean`, …
    pub fn name(self) -> &'static str {
        match self {
            Method::Product => "product",
            Method::Leja { conjugate: false } => "leja",
            Method::Leja { conjugate: true } => "leja-conjugate",
            Method::Lanczos { .. } => "lanczos",
            Method::LanczosTwoPass { substeps: false } => "lanczos-two-pass",
            Method::LanczosTwoPass { substeps: true } => "lanczos-two-pass-substeps",
            Method::Arnoldi { .. } => "arnoldi",
            Method::Taylor => "taylor",
            Method::Rk45 { lean: false } => "rk45",
            Method::Rk45 { lean: true } => "rk45-lean",
            Method::Rk4 => "rk4",
        }
    }
}

/// The predicted peak memory of one run (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// The method and mode.
    pub method: Method,
    /// The scalar type.
    pub scalar: ScalarKind,
    /// Order of the vectors this memory holds.
    pub local_len: u64,
    /// Full-size vectors alive at the peak.
    pub vectors: u64,
    /// `local_len · size_of(scalar)`.
    pub bytes_per_vector: u64,
    /// Memory the operator holds (tables, matrix, ghost buffers).
    pub operator_bytes: u64,
    /// The small arrays that do not scale with the order.
    pub workspace_bytes: u64,
}

impl Plan {
    /// The plan of `method` on vectors of `local_len` elements of `scalar`, with an operator
    /// holding `operator_bytes`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when a size overflows 64 bits.
    pub fn new(
        method: Method,
        scalar: ScalarKind,
        local_len: u64,
        operator_bytes: u64,
    ) -> Result<Self> {
        let bytes_per_vector = local_len.checked_mul(scalar.bytes()).ok_or_else(|| {
            Error::invalid(
                "local_len",
                local_len,
                format!("{local_len} elements of {} overflow 64 bits", scalar.name()),
            )
        })?;
        let plan = Plan {
            method,
            scalar,
            local_len,
            vectors: method.full_vectors(),
            bytes_per_vector,
            operator_bytes,
            workspace_bytes: method.workspace_bytes(),
        };
        plan.checked_peak()?;
        Ok(plan)
    }

    /// [`Plan::new`] with the scalar type given as a type parameter.
    ///
    /// # Errors
    /// As [`Plan::new`] and [`ScalarKind::of`].
    pub fn for_scalar<S: Scalar>(
        method: Method,
        local_len: u64,
        operator_bytes: u64,
    ) -> Result<Self> {
        Self::new(method, ScalarKind::of::<S>()?, local_len, operator_bytes)
    }

    fn checked_peak(&self) -> Result<u64> {
        self.vectors
            .checked_mul(self.bytes_per_vector)
            .and_then(|v| v.checked_add(self.operator_bytes))
            .and_then(|v| v.checked_add(self.workspace_bytes))
            .ok_or_else(|| {
                Error::invalid(
                    "plan",
                    self.to_string(),
                    "the predicted peak memory overflows 64 bits",
                )
            })
    }

    /// Bytes of the full-size vectors: `vectors · bytes_per_vector`.
    pub fn vector_bytes(&self) -> u64 {
        self.vectors * self.bytes_per_vector
    }

    /// The predicted peak in bytes (vectors, operator and workspace).
    pub fn peak_bytes(&self) -> u64 {
        self.vector_bytes() + self.operator_bytes + self.workspace_bytes
    }

    /// Whether the plan fits `available` bytes.
    ///
    /// # Errors
    /// [`Error::OutOfMemoryBudget`] naming the method, the vector count and size, the
    /// operator's bytes, the peak and `available`, with `limit` saying which limit binds
    /// (for example "device free memory").
    pub fn check(&self, available: u64, limit: &str) -> Result<()> {
        let needed = self.peak_bytes();
        if needed <= available {
            return Ok(());
        }
        Err(Error::OutOfMemoryBudget {
            what: self.to_string(),
            needed,
            available,
            limit: limit.to_string(),
        })
    }

    /// The largest `local_len` for which this method and scalar fit `available` bytes with the
    /// same operator bytes (0 when even the operator does not fit).
    pub fn max_local_len(&self, available: u64) -> u64 {
        let fixed = self.operator_bytes + self.workspace_bytes;
        let per_row = self.vectors * self.scalar.bytes();
        available.saturating_sub(fixed) / per_row.max(1)
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} vectors of {} {} ({} bytes each) + operator {} bytes + workspace {} bytes",
            self.method.name(),
            self.vectors,
            self.local_len,
            self.scalar.name(),
            self.bytes_per_vector,
            self.operator_bytes,
            self.workspace_bytes
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use matexp_core::{c32, c64};

    #[test]
    fn peak_is_the_sum_of_its_parts() {
        let p = Plan::new(
            Method::LanczosTwoPass { substeps: false },
            ScalarKind::F64,
            1000,
            77,
        )
        .unwrap();
        assert_eq!(p.vectors, 5);
        assert_eq!(p.peak_bytes(), 5 * 8000 + 77 + (1 << 16));
        assert_eq!(p.max_local_len(p.peak_bytes()), 1000);
        assert_eq!(p.max_local_len(p.peak_bytes() - 1), 999);
        assert_eq!(p.max_local_len(10), 0);
    }

    #[test]
    fn a_plan_that_does_not_fit_names_its_sizes() {
        let p = Plan::for_scalar::<c64>(Method::Rk45 { lean: false }, 1_000_000, 0).unwrap();
        let e = p.check(1_000_000, "test budget").unwrap_err();
        let Error::OutOfMemoryBudget {
            what,
            needed,
            available,
            limit,
        } = &e
        else {
            panic!("expected OutOfMemoryBudget, got {e:?}");
        };
        assert_eq!(*needed, 9 * 16_000_000 + (1 << 16));
        assert_eq!(*available, 1_000_000);
        assert_eq!(limit, "test budget");
        assert!(what.contains("rk45") && what.contains("9 vectors") && what.contains("c64"));
    }

    #[test]
    fn overflow_is_a_typed_error() {
        assert!(Plan::new(Method::Product, ScalarKind::C64, u64::MAX / 8, 0).is_err());
        assert!(
            Plan::new(
                Method::Lanczos { max_dim: 1 << 40 },
                ScalarKind::F64,
                1 << 30,
                0
            )
            .is_err()
        );
    }

    /// The counts of the table against the workspaces the methods allocate (input and output
    /// are the caller's two).
    #[test]
    fn the_counts_are_the_workspaces_vectors() {
        use crate::{ExpmvMethod, Lanczos, LanczosOptions, Leja, LejaOptions};
        use matexp_core::{CpuBackend, DenseMatrixOperator};
        let cpu = CpuBackend;
        let n = 40;
        let mut a = vec![0.0; n * n];
        for i in 0..n {
            a[i * n + i] = -2.0;
            if i + 1 < n {
                a[i * n + i + 1] = 1.0;
                a[(i + 1) * n + i] = 1.0;
            }
        }
        let real = DenseMatrixOperator::new(n, n, a.clone()).unwrap();
        let v: Vec<f64> = (0..n).map(|i| 1.0 + (i as f64).sin()).collect();
        let mut w = vec![0.0; n];
        // Leja, real spectrum: u, p, y_a, y_b.
        let mut leja = Leja::new(&cpu, LejaOptions::default()).unwrap();
        leja.expmv(&real, 0.5, &v, &mut w).unwrap();
        assert_eq!(
            leja.workspace().vectors() as u64 + 2,
            Method::Leja { conjugate: false }.full_vectors()
        );
        // Complex e^{−itH}v: complex arithmetic on the imaginary segment, no third buffer.
        let cplx: Vec<c64> = a.iter().map(|&x| c64::new(x, 0.0)).collect();
        let h = DenseMatrixOperator::new(n, n, cplx).unwrap();
        let vc: Vec<c64> = v.iter().map(|&x| c64::new(x, 0.0)).collect();
        let mut wc = vec![c64::new(0.0, 0.0); n];
        let mut leja_c = Leja::new(&cpu, LejaOptions::default()).unwrap();
        leja_c.schrodinger(&h, 2.0, &vc, &mut wc).unwrap();
        assert_eq!(
            leja_c.workspace().vectors() as u64 + 2,
            Method::Leja { conjugate: false }.full_vectors()
        );
        // Two-pass Lanczos: three rotating basis vectors.
        let opts = LanczosOptions {
            two_pass: true,
            ..LanczosOptions::default()
        };
        let mut lz = Lanczos::new(&cpu, opts).unwrap();
        lz.expmv(&real, 0.5, &v, &mut w).unwrap();
        assert_eq!(
            lz.stored_vectors() as u64 + 2,
            Method::LanczosTwoPass { substeps: false }.full_vectors()
        );
        // One pass: the basis q₀…q_k is within the cap's count.
        let mut lz1 = Lanczos::new(&cpu, LanczosOptions::default()).unwrap();
        lz1.expmv(&real, 0.5, &v, &mut w).unwrap();
        let k = lz1.stored_vectors() as u64;
        assert!(
            k + 2
                <= Method::Lanczos {
                    max_dim: k as usize
                }
                .full_vectors()
        );
    }

    #[test]
    fn scalar_sizes_are_the_types_sizes() {
        assert_eq!(ScalarKind::of::<f32>().unwrap().bytes(), 4);
        assert_eq!(ScalarKind::of::<f64>().unwrap().bytes(), 8);
        assert_eq!(
            ScalarKind::of::<c32>().unwrap().bytes() as usize,
            std::mem::size_of::<c32>()
        );
        assert_eq!(
            ScalarKind::of::<c64>().unwrap().bytes() as usize,
            std::mem::size_of::<c64>()
        );
    }
}
