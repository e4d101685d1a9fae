//! The command-line time parser (`TimeSpec::from_str`, `parse_complex`): any string is
//! parsed or refused with a message; a parsed time or grid is finite.
#![no_main]

use libfuzzer_sys::fuzz_target;
use matexp_cli::io::{TimeSpec, parse_complex};
use std::str::FromStr;

/// Grids are expanded only up to this many times (the parser accepts counts up to
/// `MAX_TIMES` = 100,000; expanding those on every input would slow the fuzzer down).
const MAX_EXPAND: usize = 1 << 12;

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    if let Some(z) = parse_complex(s) {
        assert!(z.re.is_finite() && z.im.is_finite(), "{s:?} parsed to {z}");
    }
    match TimeSpec::from_str(s) {
        Ok(TimeSpec::One(t)) => assert!(t.re.is_finite() && t.im.is_finite(), "{s:?} → {t}"),
        Ok(spec @ TimeSpec::Grid { start, stop, num }) => {
            assert!(start.is_finite() && stop.is_finite() && num >= 1);
            if num <= MAX_EXPAND {
                let times = spec.times();
                assert_eq!(times.len(), num);
                assert!(
                    times.iter().all(|t| t.re.is_finite() && t.im == 0.0),
                    "{s:?} expands to a non-finite time"
                );
            }
        }
        Err(msg) => assert!(!msg.is_empty()),
    }
});
