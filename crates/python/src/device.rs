//! Solves on a GPU (`device="gpu:N"`): the CSR arrays are uploaded once per call
//! ([`matexp::GpuCsr::from_parts`], no host copy of borrowed arrays), each column is uploaded,
//! solved by the facade on the [`matexp::GpuBackend`] and downloaded. Without the cargo
//! feature `gpu` every such call is a `DeviceError`. Signals are not polled during a GPU
//! solve (its products are asynchronous kernels).

use crate::job::{Job, Outputs};
use crate::operator::Operator;
use crate::scalar::PyScalar;
use matexp::{Options, Report};
use pyo3::prelude::*;

#[cfg(feature = "gpu")]
mod enabled {
    use super::*;
    use crate::job::merge;
    use crate::operator::{Index, Parts};
    use matexp::{Backend, GpuBackend, GpuCsr};

    /// One call's columns on GPU `ordinal`.
    pub struct OnGpu<'a, 'py, S> {
        pub py: Python<'py>,
        pub ordinal: usize,
        pub cols: Vec<Vec<S>>,
        pub job: Job<'a>,
        pub opts: &'a Options,
    }

    impl<S: PyScalar> Parts<S> for OnGpu<'_, '_, S> {
        type Out = (Outputs<S>, Report);
        fn call<I: Index>(
            self,
            nrows: usize,
            ncols: usize,
            ptr: &[I],
            idx: &[I],
            vals: &[S],
        ) -> matexp::Result<Self::Out> {
            let OnGpu {
                py,
                ordinal,
                cols,
                job,
                opts,
            } = self;
            py.detach(move || {
                let gpu = GpuBackend::new(ordinal)?;
                let a = GpuCsr::from_parts(&gpu, nrows, ncols, ptr, idx, vals)?;
                let mut out = Vec::with_capacity(cols.len());
                let mut total = None;
                for c in &cols {
                    let v = gpu.upload(c)?;
                    let (ws, r) = job.run(&gpu, opts, &a, &v)?;
                    out.push(
                        ws.iter()
                            .map(|w| gpu.to_host(w))
                            .collect::<matexp::Result<_>>()?,
                    );
                    merge(&mut total, r);
                }
                Ok((out, total.unwrap_or_default()))
            })
        }
    }
}

/// The columns of one call solved on GPU `ordinal`.
pub fn columns<S: PyScalar>(
    py: Python<'_>,
    op: &Operator,
    ordinal: usize,
    cols: Vec<Vec<S>>,
    job: Job<'_>,
    opts: &Options,
) -> PyResult<matexp::Result<(Outputs<S>, Report)>> {
    #[cfg(feature = "gpu")]
    {
        op.with_parts(
            py,
            enabled::OnGpu {
                py,
                ordinal,
                cols,
                job,
                opts,
            },
        )
    }
    #[cfg(not(feature = "gpu"))]
    {
        let _ = (py, op, cols, job, opts);
        Ok(Err(matexp::Error::Device(format!(
            "gpu:{ordinal}: this build of matexp has no GPU backend (build the wheel with the cargo feature `gpu`)"
        ))))
    }
}
