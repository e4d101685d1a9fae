"""The networkx backend ``matexp`` (entry point group ``networkx.backends``): serves
``subgraph_centrality``, ``subgraph_centrality_exp`` and ``estrada_index``, so that
``nx.estrada_index(G, backend="matexp")`` runs matexp's Lanczos quadrature instead of a dense
eigendecomposition. Semantics are networkx's: the unweighted adjacency matrix (every
stored entry 1, self-loops included), undirected simple graphs only; values to a relative
tolerance of 1e-12 (networkx's own tests compare to 7 places)."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import graph as _graph

#: The tolerance of the served functions.
RTOL = 1e-12

_FUNCTIONS = ("subgraph_centrality", "subgraph_centrality_exp", "estrada_index")


class MatexpGraph:
    """A networkx graph with its binary CSR adjacency matrix (node order ``nodes``)."""

    __networkx_backend__ = "matexp"

    def __init__(self, G: Any):
        self.graph = G
        self.A, self.nodes = _graph.adjacency(G, binary=True)

    def is_directed(self) -> bool:
        return self.graph.is_directed()

    def is_multigraph(self) -> bool:
        return self.graph.is_multigraph()


def _check(G: MatexpGraph) -> None:
    import networkx as nx

    if G.is_directed():
        raise nx.NetworkXNotImplemented("not implemented for directed type")
    if G.is_multigraph():
        raise nx.NetworkXNotImplemented("not implemented for multigraph type")


def _graph_of(G: Any) -> MatexpGraph:
    return G if isinstance(G, MatexpGraph) else MatexpGraph(G)


def _largest_eigenvalue(A: Any) -> float:
    """λ_max of the symmetric adjacency matrix (ARPACK; dense below 3 nodes)."""
    import numpy as np
    import scipy.sparse.linalg as sla

    if A.shape[0] < 3:
        return float(np.linalg.eigvalsh(A.toarray())[-1])
    return float(sla.eigsh(A, k=1, which="LA", return_eigenvectors=False, tol=0)[0])


def _subgraph(G: Any, normalized: bool, by_max: bool) -> dict:
    """networkx's values: [e^A]_ii; normalized, divided by e^{λ_max} (subgraph_centrality)
    or by the largest value (subgraph_centrality_exp, ``by_max``)."""
    g = _graph_of(G)
    _check(g)
    if not g.nodes:
        return {}
    values = _graph.subgraph_centrality(g.A, 1.0, rtol=RTOL)
    if normalized:
        values = values / (values.max() if by_max else np.exp(_largest_eigenvalue(g.A)))
    return dict(zip(g.nodes, (float(v) for v in values)))


class BackendInterface:
    """What networkx's dispatcher calls."""

    @staticmethod
    def convert_from_nx(G: Any, *args: Any, **kwargs: Any) -> MatexpGraph:
        return MatexpGraph(G)

    @staticmethod
    def convert_to_nx(obj: Any, *, name: Any = None) -> Any:
        return obj.graph if isinstance(obj, MatexpGraph) else obj

    @staticmethod
    def can_run(name: str, args: Any, kwargs: Any) -> bool:
        return name in _FUNCTIONS

    @staticmethod
    def should_run(name: str, args: Any, kwargs: Any) -> bool:
        return name in _FUNCTIONS

    @staticmethod
    def subgraph_centrality(G: Any, *, normalized: bool = False) -> dict:
        return _subgraph(G, normalized, by_max=False)

    @staticmethod
    def subgraph_centrality_exp(G: Any, *, normalized: bool = False) -> dict:
        return _subgraph(G, normalized, by_max=True)

    @staticmethod
    def estrada_index(G: Any) -> float:
        g = _graph_of(G)
        _check(g)
        if not g.nodes:
            return 0.0
        return float(_graph.estrada_index(g.A, 1.0, rtol=RTOL))


def get_info() -> dict:
    """The backend's description for networkx (entry point ``networkx.backend_info``)."""
    return {
        "backend_name": "matexp",
        "project": "matexp",
        "package": "matexp",
        "url": "https://github.com/matexp/matexp",
        "short_summary": "Subgraph centrality and the Estrada index by Lanczos quadrature.",
        "functions": {name: {} for name in _FUNCTIONS},
    }
