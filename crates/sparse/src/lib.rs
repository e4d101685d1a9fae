//! matexp-sparse (under construction in this commit series).
