//! matexp-divdiff (under construction in this commit series).
