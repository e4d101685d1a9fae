//! Freshness of generated files (filled in by a later change).
