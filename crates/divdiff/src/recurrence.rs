//! The Newton divided-difference table (the seed's algorithm, thesis Thm. 21).

use crate::phi::phi_value;
use crate::{Affine, DdScalar};
use matexp_core::{Error, Result};

/// `d_j = g[ξ_0..ξ_j]`, `g(ξ) = φ_k(α + βξ)`, by the one-new-coefficient recurrence
/// `d_0^{(j)} = g(ξ_j)`, `d_{i+1}^{(j)} = (d_i^{(j)} − d_i)/(ξ_j − ξ_i)`, `d_j = d_j^{(j)}`.
///
/// `O(m²)` divisions. Nodes must be distinct; the caller has validated finiteness.
pub(crate) fn recurrence<T: DdScalar>(k: usize, map: Affine<T>, nodes: &[f64]) -> Result<Vec<T>> {
    let mut d: Vec<T> = Vec::with_capacity(nodes.len());
    for (j, &xj) in nodes.iter().enumerate() {
        let z = map.alpha + map.beta.scale(xj);
        let mut t = phi_value(k, z);
        if !t.finite() {
            return Err(Error::NonFinite {
                context: format!(
                    "divided differences (recurrence): φ_{k}(α + β·ξ_{j}) = φ_{k}({z}) overflows f64"
                ),
                index: j,
                value: format!("{t}"),
            });
        }
        for (i, &xi) in nodes[..j].iter().enumerate() {
            let dx = xj - xi;
            if dx == 0.0 {
                return Err(Error::invalid(
                    "nodes",
                    format!("ξ[{i}] = ξ[{j}] = {xj}"),
                    "the recurrence needs distinct nodes; Method::Stable computes confluent \
                     (repeated-node) divided differences",
                ));
            }
            t = (t - d[i]).div_real(dx);
        }
        if !t.finite() {
            return Err(Error::NonFinite {
                context: "divided differences (recurrence): the Newton table overflowed; \
                          Method::Stable scales the computation and avoids this"
                    .into(),
                index: j,
                value: format!("{t}"),
            });
        }
        d.push(t);
    }
    Ok(d)
}
