//! The integration tests of `expmv`, one test binary (a module per former test file), so
//! that the crate's generic code is compiled and linked once for all of them.

#[path = "../common/mod.rs"]
mod common;
#[path = "../leja_common/mod.rs"]
mod leja_common;

mod accuracy;
mod accuracy_suite;
mod arnoldi_spectrum;
mod errors;
mod failure_paths;
mod features;
mod krylov_taylor_cost;
mod lanczos_deferred;
mod lanczos_estimate;
mod lanczos_lookahead;
mod lanczos_robust;
mod leja_accuracy;
mod leja_api;
mod leja_cost;
mod leja_errors;
mod leja_phi;
mod leja_properties;
mod method_trait;
mod nonnormal;
mod overflow;
mod properties;
mod report_rule;
mod reported_spectrum;
mod scipy_fixtures;
mod seed000_reproduction;
mod spectral_info;
mod spectrum;
mod taylor_phi;
