//! Scan for benchmark figures in library sources (filled in by the next change).
