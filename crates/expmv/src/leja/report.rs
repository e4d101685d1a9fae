//! What a Leja call did: the common [`crate::Report`].

/// The report of the Leja methods: the [`crate::Report`] of every method (kept as a name for
/// existing callers).
pub type LejaReport = crate::Report;
