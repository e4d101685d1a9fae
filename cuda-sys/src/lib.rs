//! matexp CUDA kernels.
