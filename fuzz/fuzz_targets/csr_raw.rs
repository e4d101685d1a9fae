//! CSR and pattern construction from raw parts: sizes (small, or near `usize::MAX`), row
//! pointers, column indices and values decoded from the input. A constructor either returns
//! a typed error or a matrix on which products, transposition and dense conversion run.
#![no_main]

use libfuzzer_sys::fuzz_target;
use matexp_sparse::{CsrIndex, CsrMatrix, PatternCsr};

struct Input<'a>(&'a [u8]);

impl Input<'_> {
    fn byte(&mut self) -> u8 {
        let Some((&b, rest)) = self.0.split_first() else {
            return 0;
        };
        self.0 = rest;
        b
    }
    /// A size: mostly small, sometimes at the edge of `usize`.
    fn size(&mut self) -> usize {
        match self.byte() {
            255 => usize::MAX,
            254 => usize::MAX / 2 + 1,
            253 => 1 << 32,
            252 => (1 << 32) - 1,
            b => usize::from(b % 16),
        }
    }
    fn index(&mut self) -> u64 {
        match self.byte() {
            255 => u64::MAX,
            254 => u64::from(u32::MAX),
            b => u64::from(b % 20),
        }
    }
    fn value(&mut self) -> f64 {
        match self.byte() {
            255 => f64::NAN,
            254 => f64::INFINITY,
            253 => f64::MAX,
            b => f64::from(b) - 100.0,
        }
    }
}

fn exercise<I: CsrIndex>(nrows: usize, ncols: usize, ptr: &[u64], cols: &[u64], vals: &[f64]) {
    let narrow = |v: &[u64]| -> Option<Vec<I>> {
        v.iter()
            .map(|&x| usize::try_from(x).ok().and_then(|x| I::try_narrow(x)))
            .collect()
    };
    let (Some(ptr), Some(cols)) = (narrow(ptr), narrow(cols)) else {
        return;
    };
    if let Ok(p) = PatternCsr::<I>::try_new(nrows, ncols, ptr.clone(), cols.clone()) {
        assert_eq!(p.nrows(), nrows);
        let _ = p.transpose();
    }
    let canonical = CsrMatrix::<f64, I>::try_new_canonical(
        nrows,
        ncols,
        ptr.clone(),
        cols.clone(),
        vals.to_vec(),
    );
    if let Ok(a) = CsrMatrix::<f64, I>::try_new(nrows, ncols, ptr, cols, vals.to_vec()) {
        assert!(a.values().iter().all(|v| v.is_finite()));
        let x = vec![1.0; ncols];
        let mut y = vec![0.0; nrows];
        a.spmv(1.0, &x, 0.0, &mut y).unwrap();
        let t = a.transpose();
        assert_eq!((t.nrows(), t.ncols(), t.nnz()), (ncols, nrows, a.nnz()));
        let d = a.to_dense().unwrap();
        let back = CsrMatrix::<f64, I>::from_dense(nrows, ncols, &d);
        // Summed duplicates may overflow to ∞ in the dense copy; otherwise it round-trips.
        if d.iter().all(|v| v.is_finite()) {
            assert!(back.is_ok());
        }
    } else {
        assert!(
            canonical.is_err(),
            "canonical accepted what try_new refused"
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let mut inp = Input(data);
    let nrows = inp.size();
    let ncols = inp.size();
    let n_ptr = usize::from(inp.byte() % 20);
    let ptr: Vec<u64> = (0..n_ptr).map(|_| inp.index()).collect();
    let n_col = usize::from(inp.byte() % 40);
    let cols: Vec<u64> = (0..n_col).map(|_| inp.index()).collect();
    let n_val = usize::from(inp.byte() % 40);
    let vals: Vec<f64> = (0..n_val).map(|_| inp.value()).collect();
    // Dense sizes the tests cannot hold are skipped after construction succeeds.
    if nrows.saturating_mul(ncols) > 1 << 12 || nrows > 1 << 12 || ncols > 1 << 12 {
        let _ =
            CsrMatrix::<f64, u64>::try_new(nrows, ncols, ptr.clone(), cols.clone(), vals.clone());
        let _ = CsrMatrix::<f64, u32>::from_dense(nrows, ncols, &vals);
        let _ = PatternCsr::<u64>::try_new(nrows, ncols, ptr, cols);
        return;
    }
    exercise::<u32>(nrows, ncols, &ptr, &cols, &vals);
    exercise::<u64>(nrows, ncols, &ptr, &cols, &vals);
});
