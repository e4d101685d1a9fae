//! Problem sizes of the GPU tests: full by default, small under a sanitizer.
//!
//! compute-sanitizer slows kernels down by one to three orders of magnitude, so the GPU test
//! suite at its usual sizes (grids of 37³, matrices of 10⁵–10⁶ rows, Fock spaces of 10⁶
//! states) does not finish under it in the time of one run. The GPU bundle's sanitizer mode
//! exports [`SCALE_VAR`]`=small`; the tests then take their problem sizes through [`pick`],
//! which returns the small choice. A small choice keeps every code path of the full one
//! (each kernel variant, partition count, scalar and index type, tier and tile boundary) at
//! hundreds to a few thousand rows; only sizes change, never what is checked.
//!
//! ```
//! // 20 000 rows normally, 3 000 under the sanitizer (MATEXP_GPU_TEST_SCALE=small).
//! let n = matexp_testkit::gpu_sizes::pick(20_000usize, 3_000);
//! assert!(n == 20_000 || n == 3_000);
//! ```

use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

/// The environment variable that selects the sizes: `small`, or `full` (also when unset or
/// empty).
pub const SCALE_VAR: &str = "MATEXP_GPU_TEST_SCALE";

/// The size class of a GPU test run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scale {
    /// The tests' own sizes: what a plain GPU run checks.
    Full,
    /// Sizes for a run under compute-sanitizer: every code path, few rows.
    Small,
}

/// A value of [`SCALE_VAR`] that names no [`Scale`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScaleError {
    value: String,
}

impl fmt::Display for ScaleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{SCALE_VAR}={:?} is neither `small` nor `full`",
            self.value
        )
    }
}

impl std::error::Error for ScaleError {}

impl FromStr for Scale {
    type Err = ScaleError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "" | "full" => Ok(Scale::Full),
            "small" => Ok(Scale::Small),
            _ => Err(ScaleError {
                value: s.to_string(),
            }),
        }
    }
}

impl Scale {
    /// The scale an environment value selects (`None`: the variable is unset).
    pub fn from_env_value(value: Option<&str>) -> Result<Self, ScaleError> {
        value.map_or(Ok(Scale::Full), str::parse)
    }
}

/// The process's scale, read once from [`SCALE_VAR`] and printed once to stderr, so that a
/// log says which sizes it checked.
///
/// # Panics
///
/// When [`SCALE_VAR`] holds another value than `small` or `full`: a misspelt `small` must
/// not silently run the full sizes for an hour under a sanitizer.
pub fn scale() -> Scale {
    static SCALE: OnceLock<Scale> = OnceLock::new();
    *SCALE.get_or_init(|| {
        let value = std::env::var(SCALE_VAR).ok();
        let s = Scale::from_env_value(value.as_deref()).unwrap_or_else(|e| panic!("{e}"));
        if s == Scale::Small {
            eprintln!("GPU test sizes: small ({SCALE_VAR}=small)");
        }
        s
    })
}

/// `full` at the full scale, `small` under [`Scale::Small`].
pub fn pick<T>(full: T, small: T) -> T {
    match scale() {
        Scale::Full => full,
        Scale::Small => small,
    }
}

/// Whether this run takes the small sizes.
pub fn is_small() -> bool {
    scale() == Scale::Small
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_name_a_scale_or_are_refused() {
        assert_eq!(Scale::from_env_value(None), Ok(Scale::Full));
        assert_eq!(Scale::from_env_value(Some("")), Ok(Scale::Full));
        assert_eq!(Scale::from_env_value(Some("full")), Ok(Scale::Full));
        assert_eq!(Scale::from_env_value(Some(" Small\n")), Ok(Scale::Small));
        let e = Scale::from_env_value(Some("smal")).unwrap_err();
        assert!(
            e.to_string().contains("MATEXP_GPU_TEST_SCALE=\"smal\""),
            "{e}"
        );
    }

    #[test]
    fn pick_follows_the_process_scale() {
        // The test process's own environment decides; both answers are consistent with it.
        let n = pick(20_000usize, 3_000);
        assert_eq!(n == 3_000, is_small());
    }
}
