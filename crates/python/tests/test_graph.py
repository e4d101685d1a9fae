"""Graph measures against dense references and networkx; the networkx backend."""

import networkx as nx
import numpy as np
import pytest
import scipy.linalg as la

import matexp
import matexp.graph as mg


def reference(G, beta=1.0):
    A = nx.to_numpy_array(G, nodelist=list(G), weight=None)
    E = la.expm(beta * A)
    return A, E


@pytest.mark.parametrize("G", [nx.karate_club_graph(), nx.les_miserables_graph(),
                               nx.barabasi_albert_graph(300, 3, seed=1)])
def test_measures_against_dense(G):
    A, E = reference(G, 0.5)
    nodes = list(G)
    sc = mg.subgraph_centrality(G, 0.5, rtol=1e-10)
    assert max(abs(sc[v] - E[i, i]) / E[i, i] for i, v in enumerate(nodes)) <= 1e-9
    tc = mg.total_communicability(A, 0.5)
    assert np.max(np.abs(tc - E.sum(axis=1)) / E.sum(axis=1)) <= 1e-10
    ee = mg.estrada_index(A, 0.5, rtol=1e-10, return_interval=True)
    assert abs(ee.value - np.trace(E)) <= 1e-9 * np.trace(E)
    assert ee.lower <= np.trace(E) * (1 + 1e-12) and ee.upper >= np.trace(E) * (1 - 1e-12)


def test_intervals_contain_the_value():
    G = nx.barabasi_albert_graph(2000, 4, seed=2)
    A = nx.to_numpy_array(G, weight=None)
    lam, V = np.linalg.eigh(A)
    # The dense reference is good to about ε·e^{λ_max} absolutely, ~1e-11 relative here: the
    # intervals (half-width ≤ rtol·value) are checked with that slack.
    d = (V[[0, 5, 17]] ** 2) @ np.exp(lam)
    slack = 1e-10 * d
    for rtol in (1e-4, 1e-8):
        r = mg.subgraph_centrality(nx.to_scipy_sparse_array(G, weight=None, format="csr"), rtol=rtol,
                                   nodes=[0, 5, 17], return_intervals=True)
        assert r.met and np.all(r.lower - slack <= d) and np.all(d <= r.upper + slack), (r, d)
        assert np.all(np.abs(r.values - d) <= rtol * d + slack)


def test_directed_graphs_are_refused():
    with pytest.raises(matexp.InvalidArgumentError):
        mg.subgraph_centrality(nx.DiGraph([(0, 1)]))


def test_networkx_backend_dispatch():
    G = nx.karate_club_graph()
    ours = nx.subgraph_centrality(G, backend="matexp")
    theirs = nx.subgraph_centrality(G)
    assert max(abs(ours[v] - theirs[v]) / theirs[v] for v in G) <= 1e-10
    assert abs(nx.estrada_index(G, backend="matexp") - nx.estrada_index(G)) <= 1e-10 * nx.estrada_index(G)
    exp = nx.subgraph_centrality_exp(G, backend="matexp")
    assert max(abs(exp[v] - theirs[v]) / theirs[v] for v in G) <= 1e-10
    with pytest.raises(nx.NetworkXNotImplemented):
        nx.subgraph_centrality(nx.DiGraph([(0, 1)]), backend="matexp")
    norm = nx.subgraph_centrality(G, normalized=True, backend="matexp")
    ref = nx.subgraph_centrality(G, normalized=True)
    assert max(abs(norm[v] - ref[v]) / ref[v] for v in G) <= 1e-9
