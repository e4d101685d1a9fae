//! matexp-integrators (under construction in this commit series).
