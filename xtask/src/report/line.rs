//! One line of a rendered seed table, shared by the renderer (`seeds`) and the verdict check
//! (`check`), which both read it and neither owns it.

use super::mapping::RowSpec;
use crate::records::Record;

/// The error exceeds the requested tolerance.
pub fn misses_tolerance(r: &Record) -> bool {
    matches!((r.number("error"), r.number("tol")), (Some(e), Some(t)) if e > t)
}

/// Whether a record is a run that failed or that the method refused (`extra.failed`): its
/// time is not a result, so no ratio is taken from it.
pub fn failed(r: &Record) -> bool {
    r.extra.contains_key("failed")
}

/// One line of a rendered seed table: the records of one case, precision, size and tolerance.
#[derive(Debug)]
pub struct Line<'a> {
    pub row: &'a RowSpec,
    /// The first line of its row (which carries the row's label and seed figure).
    pub first: bool,
    pub case: String,
    pub precision: String,
    pub size: Option<String>,
    pub cpu: Vec<&'a Record>,
    pub gpu: Vec<&'a Record>,
    pub multi: Vec<&'a Record>,
    pub peers: Vec<&'a Record>,
}

impl Line<'_> {
    pub fn ours(&self) -> impl Iterator<Item = &&Record> {
        self.cpu.iter().chain(&self.gpu).chain(&self.multi)
    }

    /// Some record of ours misses its tolerance: no speed-up may be shown for this line.
    pub fn tol_missed(&self) -> bool {
        self.ours().any(|r| misses_tolerance(r))
    }

    /// One of our records failed or was refused (see [`failed`]).
    pub fn failed(&self) -> bool {
        self.ours().any(|r| failed(r))
    }

    /// Ratios are withheld: a tolerance missed or a run failed.
    pub fn withheld(&self) -> bool {
        self.tol_missed() || self.failed()
    }

    pub fn records(&self) -> impl Iterator<Item = &&Record> {
        self.ours().chain(&self.peers)
    }
}
