//! matexp-gpu (under construction in this commit series).
