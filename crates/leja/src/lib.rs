//! matexp-leja (under construction in this commit series).
