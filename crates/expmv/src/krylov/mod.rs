//! Krylov subspace methods: Lanczos (Hermitian operators) and Arnoldi (general operators).

pub(crate) mod arnoldi;
pub(crate) mod lanczos;
mod orthogonality;
mod small;
