//! The spectral information of a distributed CSR matrix, computed once with collective steps
//! so that every rank holds what `CsrMatrix` would report for the whole matrix.

use super::plan::GhostPlan;
use crate::comm::{Communicator, Incoming, Outgoing, Reduce, alltoallv};
use crate::layout::RowLayout;
use matexp_core::{Result, Scalar, SpectralBounds, c64};

/// What the methods ask an operator about its spectrum.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Properties {
    pub bounds: Option<SpectralBounds>,
    pub hermitian: bool,
    pub hermitian_part: Option<(f64, f64)>,
}

/// This rank's rows as the property computations see them.
pub(crate) struct Rows<'a, S> {
    pub comm: &'a dyn Communicator,
    pub layout: &'a RowLayout,
    pub row_ptr: &'a [usize],
    pub cols: &'a [u32],
    pub vals: &'a [S],
    pub plan: &'a GhostPlan,
}

impl<S: Scalar> Rows<'_, S> {
    fn r0(&self) -> usize {
        self.layout.range(self.comm.rank()).start
    }
    fn nl(&self) -> usize {
        self.row_ptr.len() - 1
    }
    fn global(&self, c: u32) -> usize {
        let (c, nl) = (c as usize, self.nl());
        if c < nl {
            self.r0() + c
        } else {
            self.plan.ghosts[c - nl]
        }
    }
    /// a(i, j) of local row i and global column j (0 when not stored): rows are sorted by
    /// global column.
    fn lookup(&self, i: usize, j: usize) -> S {
        let (s, e) = (self.row_ptr[i], self.row_ptr[i + 1]);
        let row = &self.cols[s..e];
        let k = row.partition_point(|&c| self.global(c) < j);
        if k < row.len() && self.global(row[k]) == j {
            self.vals[s + k]
        } else {
            S::zero()
        }
    }

    /// The Gershgorin box of the whole matrix: (re_min, re_max, im_min, im_max), min/max
    /// with `f64::min`/`max` as `matexp_sparse::gershgorin_box` (exact in any order).
    fn gershgorin(&self) -> Result<[f64; 4]> {
        let mut b = [
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ];
        for i in 0..self.nl() {
            let mut center = c64::new(0.0, 0.0);
            let mut radius = 0.0;
            for k in self.row_ptr[i]..self.row_ptr[i + 1] {
                let v = self.vals[k].to_c64();
                if self.cols[k] as usize == i {
                    center += v
                } else {
                    radius += v.norm()
                }
            }
            b = [
                b[0].min(center.re - radius),
                b[1].max(center.re + radius),
                b[2].min(center.im - radius),
                b[3].max(center.im + radius),
            ];
        }
        let all = self.comm.allgather(&b)?;
        Ok(all.iter().fold(
            [
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::INFINITY,
                f64::NEG_INFINITY,
            ],
            |a, p| {
                [
                    a[0].min(p[0]),
                    a[1].max(p[1]),
                    a[2].min(p[2]),
                    a[3].max(p[3]),
                ]
            },
        ))
    }

    /// Whether A = Aᴴ and whether A = −Aᴴ, exactly: each stored a_ij is compared with
    /// a_ji (0 when not stored); entries whose column is remote travel to its owner.
    fn transpose_relations(&self) -> Result<(bool, bool)> {
        let (nl, r0) = (self.nl(), self.r0());
        let (mut herm, mut skew) = (true, true);
        let mut check = |v: S, w: S| {
            herm &= v == w.conj();
            skew &= v == -w.conj();
        };
        let mut outgoing = vec![Vec::new(); self.comm.size()];
        for i in 0..nl {
            for k in self.row_ptr[i]..self.row_ptr[i + 1] {
                let c = self.cols[k] as usize;
                if c < nl {
                    check(self.vals[k], self.lookup(c, r0 + i));
                } else {
                    let owner = self.layout.owner(self.plan.ghosts[c - nl]);
                    let out = &mut outgoing[owner];
                    out.extend([self.plan.ghosts[c - nl] as f64, (r0 + i) as f64]);
                    let z = self.vals[k].to_c64();
                    out.extend([z.re, z.im]);
                }
            }
        }
        for part in alltoallv(self.comm, &outgoing)? {
            for e in part.chunks_exact(4) {
                let (row, col) = (e[0] as usize - r0, e[1] as usize);
                check(S::from_c64(c64::new(e[2], e[3])), self.lookup(row, col));
            }
        }
        Ok((self.comm.all(herm)?, self.comm.all(skew)?))
    }

    /// `matexp_sparse::hermitian_part_bounds` of the whole matrix: row radii here, column
    /// sums of ghost columns returned to their owners along the reversed ghost plan.
    fn hermitian_part(&self) -> Result<Option<(f64, f64)>> {
        let nl = self.nl();
        let mut center = vec![0.0f64; nl];
        let mut radius = vec![0.0f64; nl];
        let mut ghost_sums = vec![0.0f64; self.plan.ghosts.len()];
        for i in 0..nl {
            for k in self.row_ptr[i]..self.row_ptr[i + 1] {
                let v = self.vals[k].to_c64();
                if self.cols[k] as usize == i {
                    center[i] += v.re;
                } else {
                    radius[i] += v.norm() / 2.0;
                }
            }
        }
        for i in 0..nl {
            for k in self.row_ptr[i]..self.row_ptr[i + 1] {
                let c = self.cols[k] as usize;
                let half = self.vals[k].to_c64().norm() / 2.0;
                if c < nl && c != i {
                    radius[c] += half;
                } else if c >= nl {
                    ghost_sums[c - nl] += half;
                }
            }
        }
        let sends: Vec<Outgoing<'_>> = self
            .plan
            .recv
            .iter()
            .map(|(to, r)| Outgoing {
                to: *to,
                tag: 2,
                data: &ghost_sums[r.clone()],
            })
            .collect();
        let mut bufs: Vec<Vec<f64>> = self
            .plan
            .send
            .iter()
            .map(|(_, v)| vec![0.0; v.len()])
            .collect();
        let mut recvs: Vec<Incoming<'_>> = bufs
            .iter_mut()
            .zip(&self.plan.send)
            .map(|(buf, (from, _))| Incoming {
                from: *from,
                tag: 2,
                buf,
            })
            .collect();
        self.comm.exchange(&sends, &mut recvs, &mut || {})?;
        drop(recvs);
        for (buf, (_, idx)) in bufs.iter().zip(&self.plan.send) {
            for (&k, &s) in idx.iter().zip(buf) {
                radius[k] += s;
            }
        }
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for (c, r) in center.iter().zip(&radius) {
            lo = lo.min(c - r);
            hi = hi.max(c + r);
        }
        let lo = self.comm.min_in_order(&[lo])?[0];
        let hi = self.comm.max_in_order(&[hi])?[0];
        Ok((!lo.is_nan() && !hi.is_nan()).then_some((lo, hi)))
    }

    /// Everything `CsrMatrix` reports: the Gershgorin box (a real interval when Hermitian,
    /// an imaginary segment when skew-Hermitian), Hermitian-ness, the Hermitian part's
    /// bounds. Collective: every rank must call it.
    pub fn properties(&self) -> Result<Properties> {
        let [a, b, c, d] = self.gershgorin()?;
        let (hermitian, skew) = self.transpose_relations()?;
        let empty = self.layout.n() == 0;
        let bounds = if empty {
            None
        } else if hermitian {
            SpectralBounds::real(a, b).ok()
        } else if skew {
            SpectralBounds::new(0.0, 0.0, c, d).ok()
        } else {
            SpectralBounds::new(a, b, c, d).ok()
        };
        let hermitian_part = if empty {
            None
        } else if hermitian {
            bounds.map(|b| (b.re_min, b.re_max))
        } else if skew {
            Some((0.0, 0.0))
        } else {
            self.hermitian_part()?
        };
        Ok(Properties {
            bounds,
            hermitian,
            hermitian_part,
        })
    }
}
