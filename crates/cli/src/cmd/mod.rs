//! One module per subcommand; the arguments shared by the solver subcommands.

pub mod centrality;
pub mod expmv;
pub mod heat;
pub mod phimv;
pub mod spectrum;
pub mod spin_bath;

use crate::error::{CliError, CliResult};
use crate::solve::DeviceSpec;
use matexp::{Method, Options};

/// Scalar precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Precision {
    /// Single precision (`f32`, `Complex<f32>`).
    F32,
    /// Double precision (`f64`, `Complex<f64>`).
    F64,
}

/// The method, tolerances, precision and device of a solver subcommand.
#[derive(Debug, Clone, clap::Args)]
pub struct SolverArgs {
    /// auto, leja, lanczos, arnoldi or taylor.
    #[arg(long, default_value = "auto", value_parser = parse_method)]
    pub method: Method,
    /// Relative tolerance (default: by precision).
    #[arg(long, allow_hyphen_values = true)]
    pub rtol: Option<f64>,
    /// Absolute tolerance (default: by precision).
    #[arg(long, allow_hyphen_values = true)]
    pub atol: Option<f64>,
    /// Arithmetic precision.
    #[arg(long, value_enum, default_value = "f64")]
    pub precision: Precision,
    /// cpu, gpu, gpu:N or several GPUs gpu:0,1.
    #[arg(long, default_value = "cpu")]
    pub device: DeviceSpec,
}

fn parse_method(s: &str) -> Result<Method, String> {
    s.parse::<Method>().map_err(|e| e.to_string())
}

impl SolverArgs {
    /// The library options.
    pub fn options(&self) -> CliResult<Options> {
        let mut o = Options::default().with_method(self.method);
        for (name, v) in [("--rtol", self.rtol), ("--atol", self.atol)] {
            if let Some(x) = v {
                if !(x.is_finite() && x >= 0.0) {
                    return Err(CliError::usage(format!(
                        "{name} {x}: must be a finite number ≥ 0"
                    )));
                }
            }
        }
        if let Some(r) = self.rtol {
            o = o.with_rtol(r);
        }
        if let Some(a) = self.atol {
            o = o.with_atol(a);
        }
        Ok(o)
    }

    /// The common report fields.
    pub fn report(&self, r: &mut serde_json::Map<String, serde_json::Value>) {
        r.insert("device".into(), self.device.to_string().into());
        r.insert(
            "precision".into(),
            match self.precision {
                Precision::F32 => "f32",
                Precision::F64 => "f64",
            }
            .into(),
        );
    }
}

/// Runs `$body` with the type alias `$S` bound to the scalar picked by precision and
/// complexity.
#[macro_export]
macro_rules! with_scalar {
    ($prec:expr, $complex:expr, |$S:ident| $body:expr) => {{
        use $crate::cmd::Precision as P;
        match ($prec, $complex) {
            (P::F64, false) => {
                type $S = f64;
                $body
            }
            (P::F32, false) => {
                type $S = f32;
                $body
            }
            (P::F64, true) => {
                type $S = matexp::c64;
                $body
            }
            (P::F32, true) => {
                type $S = matexp::c32;
                $body
            }
        }
    }};
}
