//! matexp-dense (under construction in this commit series).
