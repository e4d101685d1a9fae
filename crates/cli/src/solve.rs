//! Device choice and the solver calls shared by the subcommands that take a matrix.

use crate::error::{CliError, CliResult, Kind};
use matexp::{
    CpuBackend, CsrMatrix, GpuBackend, GpuCsr, KrylovBackend, LinearOperator, MultiGpuBackend,
    MultiGpuCsr, Options, Report, Scalar,
};

/// Where to compute: `cpu`, `gpu` (= `gpu:0`), `gpu:N` or several GPUs `gpu:0,1`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeviceSpec {
    /// The CPU backend (rayon).
    Cpu,
    /// One GPU or several GPUs of one host, by ordinal.
    Gpu(Vec<usize>),
}

impl std::fmt::Display for DeviceSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DeviceSpec::Cpu => f.write_str("cpu"),
            DeviceSpec::Gpu(ids) => {
                let ids: Vec<String> = ids.iter().map(ToString::to_string).collect();
                write!(f, "gpu:{}", ids.join(","))
            }
        }
    }
}

impl std::str::FromStr for DeviceSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("unknown device '{s}': expected cpu, gpu, gpu:N or gpu:0,1");
        match s.trim().to_ascii_lowercase().as_str() {
            "cpu" => Ok(DeviceSpec::Cpu),
            "gpu" => Ok(DeviceSpec::Gpu(vec![0])),
            other => {
                let list = other.strip_prefix("gpu:").ok_or_else(bad)?;
                let ids: Vec<usize> = list
                    .split(',')
                    .map(|p| p.trim().parse().map_err(|_| bad()))
                    .collect::<Result<_, _>>()?;
                let mut sorted = ids.clone();
                sorted.sort_unstable();
                sorted.dedup();
                if sorted.len() != ids.len() {
                    return Err(format!("device '{s}' names a GPU twice"));
                }
                Ok(DeviceSpec::Gpu(ids))
            }
        }
    }
}

/// Checks that the GPUs `ids` exist, with a message that says how to use the CPU instead.
pub fn check_gpus(ids: &[usize]) -> CliResult<()> {
    let count = matexp::gpu::device_count().map_err(|e| {
        CliError::new(
            Kind::Device,
            format!(
                "no usable GPU: the CUDA driver could not be loaded ({}); run with --device cpu",
                crate::error::one_line(&e.to_string())
            ),
        )
    })?;
    if let Some(&bad) = ids.iter().find(|&&i| i >= count) {
        return Err(CliError::new(
            Kind::Device,
            format!(
                "gpu:{bad} was asked for, but this machine has {count} GPU(s); run with --device cpu or a GPU below {count}"
            ),
        ));
    }
    Ok(())
}

/// What to compute with `f(tA)v`.
#[derive(Debug, Clone)]
pub enum Job<S> {
    /// `e^{tA}v` for each time.
    Exp(Vec<S>),
    /// `φ_0(tA)v, …, φ_k(tA)v`.
    Phi(S, usize),
}

/// Runs `job` for the operator `op` on backend `b`, returning host vectors.
pub fn run_on<B: KrylovBackend, S: Scalar, O: LinearOperator<B, S> + ?Sized>(
    b: &B,
    op: &O,
    v: &[S],
    job: &Job<S>,
    opts: &Options,
) -> matexp::Result<(Vec<Vec<S>>, Report)> {
    let vb = b.upload(v)?;
    let (ws, report) = match job {
        Job::Exp(ts) if ts.len() == 1 => {
            let (w, r) = matexp::expmv(b, op, ts[0], &vb, opts)?;
            (vec![w], r)
        }
        Job::Exp(ts) => matexp::expmv_times(b, op, ts, &vb, opts)?,
        Job::Phi(t, k) => matexp::phimv(b, op, *t, &vb, *k, opts)?,
    };
    let host = ws
        .iter()
        .map(|w| b.to_host(w))
        .collect::<matexp::Result<_>>()?;
    Ok((host, report))
}

/// Runs `job` for the CSR matrix `a` on `device`.
pub fn solve_csr<S: Scalar>(
    device: &DeviceSpec,
    a: &CsrMatrix<S>,
    v: &[S],
    job: &Job<S>,
    opts: &Options,
) -> CliResult<(Vec<Vec<S>>, Report)> {
    match device {
        DeviceSpec::Cpu => run_on(&CpuBackend::new(), a, v, job, opts).map_err(CliError::compute),
        DeviceSpec::Gpu(ids) if ids.len() == 1 => {
            check_gpus(ids)?;
            let g = GpuBackend::new(ids[0]).map_err(gpu_err)?;
            let ag = GpuCsr::from_csr(&g, a).map_err(gpu_err)?;
            run_on(&g, &ag, v, job, opts).map_err(CliError::compute)
        }
        DeviceSpec::Gpu(ids) => {
            check_gpus(ids)?;
            let g = MultiGpuBackend::new(ids).map_err(gpu_err)?;
            let ag = MultiGpuCsr::from_parts(
                &g,
                a.nrows(),
                a.ncols(),
                a.row_ptr(),
                a.col_idx(),
                a.values(),
            )
            .map_err(gpu_err)?;
            run_on(&g, &ag, v, job, opts).map_err(CliError::compute)
        }
    }
}

fn gpu_err(e: matexp::Error) -> CliError {
    let mut err = CliError::compute(e);
    if err.kind == Kind::Device {
        err.message += "; run with --device cpu to compute on the CPU";
    }
    err
}

/// The JSON fields of a solver report.
pub fn report_json(r: &Report) -> serde_json::Value {
    serde_json::json!({
        "method": r.method,
        "products": r.matvecs,
        "estimate_products": r.estimate_matvecs,
        "substeps": r.substeps,
        "rejected": r.rejected,
        "max_degree": r.max_degree,
        "rel_error_estimate": finite_or_null(r.rel_error_estimate),
        "rtol": r.rtol,
        "atol": r.atol,
        "converged": r.converged,
        "spectral_bounds": r.bounds.map(|(b, _)| serde_json::json!([b.re_min, b.re_max, b.im_min, b.im_max])),
    })
}

/// Flags results that underflowed to zero. e^{tA} is invertible, so e^{tA}v ≠ 0 for v ≠ 0:
/// an all-zero column among the first `exp_columns` of `table` (the exponentials) lost all
/// relative accuracy — every entry fell below the smallest positive number of the precision
/// (f32: about 1.4e−45), as e^{−200} does — and is not an answer. Each such column gets a
/// warning in the report's `warnings`; `converged` becomes false and `rel_error_estimate` at
/// least 1 (the relative error of 0), so `converged ⇔ rel_error_estimate ≤ rtol` still holds.
pub fn flag_underflow(
    report: &mut serde_json::Map<String, serde_json::Value>,
    table: &crate::io::Table,
    exp_columns: usize,
    input_nonzero: bool,
) {
    if !input_nonzero {
        return;
    }
    let zero: Vec<&String> = table
        .names
        .iter()
        .zip(&table.columns)
        .take(exp_columns)
        .filter(|(_, c)| !c.is_empty() && c.iter().all(|z| z.re == 0.0 && z.im == 0.0))
        .map(|(n, _)| n)
        .collect();
    if zero.is_empty() {
        return;
    }
    let precision = report
        .get("precision")
        .and_then(|p| p.as_str())
        .unwrap_or("the working precision")
        .to_string();
    let mut warnings: Vec<serde_json::Value> = report
        .get("warnings")
        .and_then(|w| w.as_array().cloned())
        .unwrap_or_default();
    for name in zero {
        warnings.push(
            format!(
                "result '{name}' underflowed to zero in {precision}: the exact result is \
                 nonzero but below the smallest positive {precision} number; use \
                 --precision f64 or a smaller |t|"
            )
            .into(),
        );
    }
    report.insert("warnings".into(), warnings.into());
    report.insert("converged".into(), false.into());
    let est = report
        .get("rel_error_estimate")
        .and_then(|e| e.as_f64())
        .unwrap_or(0.0);
    report.insert("rel_error_estimate".into(), serde_json::json!(est.max(1.0)));
}

/// A finite number, or JSON `null` (JSON has no NaN).
pub fn finite_or_null(x: f64) -> serde_json::Value {
    if x.is_finite() {
        serde_json::json!(x)
    } else {
        serde_json::Value::Null
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_specs_parse() {
        assert_eq!("cpu".parse::<DeviceSpec>(), Ok(DeviceSpec::Cpu));
        assert_eq!("GPU".parse::<DeviceSpec>(), Ok(DeviceSpec::Gpu(vec![0])));
        assert_eq!("gpu:1".parse::<DeviceSpec>(), Ok(DeviceSpec::Gpu(vec![1])));
        assert_eq!(
            "gpu:0,1".parse::<DeviceSpec>(),
            Ok(DeviceSpec::Gpu(vec![0, 1]))
        );
        assert_eq!(DeviceSpec::Gpu(vec![0, 1]).to_string(), "gpu:0,1");
        for bad in ["tpu", "gpu:", "gpu:x", "gpu:0,0", "gpu:-1"] {
            assert!(bad.parse::<DeviceSpec>().is_err(), "{bad}");
        }
    }
}
