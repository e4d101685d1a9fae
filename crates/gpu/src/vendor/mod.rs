//! Vendor libraries bound to a device's stream: cuSPARSE (the reference SpMV). cuBLAS is used
//! directly through [`cudarc::cublas`] on [`Device::stream`](crate::rt::Device::stream).

pub(crate) mod cusparse;
