"""The compiled part of matexp (PyO3): operators and solves. Use the functions of
:mod:`matexp`; this module's signatures may change."""

from typing import Any, Callable, Optional, Sequence, final

import numpy as np

__all__ = [
    "Operator",
    "expmv_times",
    "phimv",
    "total_communicability",
    "subgraph_centrality",
    "estrada_index",
    "gpu_available",
    "__version__",
    "GPU_BUILD",
]

__version__: str
GPU_BUILD: bool

@final
class Operator:
    """A linear operator for matexp's solves (see :func:`matexp.as_operator`)."""

    @staticmethod
    def dense(a: np.ndarray) -> Operator: ...
    @staticmethod
    def csr(shape: tuple[int, int], indptr: np.ndarray, indices: np.ndarray, data: np.ndarray) -> Operator: ...
    @staticmethod
    def spin_bath(spins: int, seed: int = 42, state_seed: int = 7) -> tuple[Operator, np.ndarray]: ...
    @staticmethod
    def callback(n: int, matvec: Callable[[np.ndarray], Any], complex: bool, hermitian: bool) -> Operator: ...
    @property
    def shape(self) -> tuple[int, int]: ...
    @property
    def is_complex(self) -> bool: ...
    @property
    def kind(self) -> str: ...
    def is_hermitian(self) -> bool: ...

def expmv_times(
    op: Operator,
    b: np.ndarray,
    times: Sequence[complex],
    *,
    method: str = "auto",
    rtol: Optional[float] = None,
    atol: float = 0.0,
    max_products: Optional[int] = None,
    progress: Optional[Callable[[int], Any]] = None,
    device: Optional[int] = None,
) -> tuple[np.ndarray, dict[str, Any]]: ...
def phimv(
    op: Operator,
    b: np.ndarray,
    t: complex,
    k: int,
    all: bool,
    *,
    method: str = "auto",
    rtol: Optional[float] = None,
    atol: float = 0.0,
    max_products: Optional[int] = None,
    progress: Optional[Callable[[int], Any]] = None,
    device: Optional[int] = None,
) -> tuple[np.ndarray, dict[str, Any]]: ...
def total_communicability(op: Operator, beta: float, rtol: float = 1e-12) -> tuple[np.ndarray, int]: ...
def subgraph_centrality(
    op: Operator, beta: float, rtol: float = 1e-06, nodes: Optional[Sequence[int]] = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, str, bool, int]: ...
def estrada_index(op: Operator, beta: float, rtol: float = 1e-06) -> tuple[float, float, float, str, bool, int]: ...
def gpu_available() -> tuple[bool, str]: ...
