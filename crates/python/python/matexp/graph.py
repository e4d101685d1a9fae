"""Graph centralities by the matrix exponential of the adjacency matrix A of an undirected
graph (a symmetric scipy.sparse matrix or ndarray, or a networkx graph):

* :func:`total_communicability`: e^{βA}·1 (Benzi and Klymko 2013);
* :func:`subgraph_centrality`: [e^{βA}]_ii (Estrada and Rodríguez-Velázquez 2005);
* :func:`estrada_index`: tr e^{βA}.

Values come to a relative tolerance with intervals (Gauss quadrature of Lanczos node by
node, or stochastic probing/Hutch++ when that is cheaper; ``return_intervals=True``), not
from a dense eigendecomposition: O(nnz) memory, graphs of millions of nodes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Hashable, Optional, Sequence, Union

import numpy as np

from . import _matexp
from ._convert import as_operator
from ._errors import InvalidArgumentError

__all__ = [
    "total_communicability",
    "subgraph_centrality",
    "estrada_index",
    "Centralities",
    "EstradaIndex",
    "adjacency",
]


@dataclass(frozen=True)
class Centralities:
    """Subgraph centralities with their intervals: ``lower[i] ≤ value ≤ upper[i]``."""

    values: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    #: "quadrature" or "probing".
    method: str
    #: Whether every interval meets the tolerance.
    met: bool
    #: Products with A spent.
    products: int


@dataclass(frozen=True)
class EstradaIndex:
    """The Estrada index with its interval."""

    value: float
    lower: float
    upper: float
    #: "quadrature" or "hutchplusplus".
    method: str
    met: bool
    products: int


def _is_nx(G: Any) -> bool:
    return type(G).__module__.startswith("networkx") and hasattr(G, "adj")


def adjacency(G: Any, *, weight: Optional[str] = None, binary: bool = False) -> tuple[Any, list]:
    """The CSR adjacency matrix of a networkx graph (node order ``list(G)``) and the nodes.
    ``weight=None`` counts each edge 1; ``binary`` makes every stored entry 1 (networkx's
    subgraph centrality does so, self-loops included)."""
    import networkx as nx

    nodes = list(G)
    # networkx's own conversion, named so that it is not dispatched back to this backend
    # while networkx runs its tests with backend priority on matexp.
    A = nx.to_scipy_sparse_array(G, nodelist=nodes, weight=weight, dtype=float, format="csr",
                                 backend="networkx")
    if binary:
        A.data[:] = 1.0
    return A, nodes


def _operator(A: Any) -> tuple[_matexp.Operator, Optional[list]]:
    if _is_nx(A):
        if A.is_directed():
            raise InvalidArgumentError("graph measures need an undirected graph")
        M, nodes = adjacency(A)
        return as_operator(M), nodes
    return as_operator(A), None


def _check_beta(beta: float) -> float:
    b = float(beta)
    if not np.isfinite(b):
        raise InvalidArgumentError(f"beta = {beta!r}: must be finite")
    return b


def total_communicability(A: Any, beta: float = 1.0, *, rtol: float = 1e-12
                          ) -> Union[np.ndarray, Dict[Hashable, float]]:
    """e^{βA}·1: an array, or a dict node → value for a networkx graph.

    >>> import numpy as np
    >>> from matexp.graph import total_communicability
    >>> tc = total_communicability(np.array([[0.0, 1.0], [1.0, 0.0]]))   # e^A·1 = e·1
    >>> bool(np.allclose(tc, np.e))
    True
    """
    op, nodes = _operator(A)
    tc, _ = _matexp.total_communicability(op, _check_beta(beta), rtol)
    return dict(zip(nodes, tc.tolist())) if nodes is not None else tc


def subgraph_centrality(A: Any, beta: float = 1.0, *, rtol: float = 1e-6,
                        nodes: Optional[Sequence[int]] = None, return_intervals: bool = False
                        ) -> Any:
    """[e^{βA}]_ii for every node (or the rows ``nodes``): an array (a dict node → value for
    a networkx graph), or with ``return_intervals=True`` a :class:`Centralities`.

    >>> import numpy as np
    >>> from matexp.graph import subgraph_centrality
    >>> sc = subgraph_centrality(np.array([[0.0, 1.0], [1.0, 0.0]]), rtol=1e-10)
    >>> bool(np.allclose(sc, np.cosh(1.0)))
    True
    """
    op, names = _operator(A)
    idx = None if nodes is None else [int(i) for i in nodes]
    values, lo, hi, method, met, products = _matexp.subgraph_centrality(op, _check_beta(beta), rtol, idx)
    if return_intervals:
        return Centralities(values, lo, hi, method, met, products)
    if names is not None:
        keys = names if idx is None else [names[i] for i in idx]
        return dict(zip(keys, values.tolist()))
    return values


def estrada_index(A: Any, beta: float = 1.0, *, rtol: float = 1e-6, return_interval: bool = False
                  ) -> Union[float, EstradaIndex]:
    """tr e^{βA}: a float, or with ``return_interval=True`` an :class:`EstradaIndex`.

    >>> import numpy as np
    >>> from matexp.graph import estrada_index
    >>> bool(abs(estrada_index(np.array([[0.0, 1.0], [1.0, 0.0]]), rtol=1e-10) - 2 * np.cosh(1.0)) < 1e-9)
    True
    """
    op, _ = _operator(A)
    value, lo, hi, method, met, products = _matexp.estrada_index(op, _check_beta(beta), rtol)
    if return_interval:
        return EstradaIndex(value, lo, hi, method, met, products)
    return value
