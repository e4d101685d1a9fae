"""matexp: f(tA)v with error control on CPUs and GPUs.

* :func:`expm_multiply`: SciPy's ``scipy.sparse.linalg.expm_multiply``, same signature,
  right on every time grid;
* :func:`expmv`, :func:`phimv`: e^{tA}v and φ-functions with the library's options and
  ``return_info``;
* :mod:`matexp.graph`: total communicability, subgraph centrality, the Estrada index; a
  networkx backend (``backend="matexp"``);
* :class:`Error` and its subclasses (also ``ValueError``/``RuntimeError``/...).
"""

from __future__ import annotations

from . import _matexp
from ._api import UNIT_ROUNDOFF, expm_multiply, expmv, phimv
from ._convert import as_operator
from ._errors import *  # noqa: F403 (the exception classes, listed in _errors.__all__)
from ._errors import __all__ as _error_names
from ._matexp import Operator, gpu_available

__version__: str = _matexp.__version__

__all__ = [
    "expm_multiply",
    "expmv",
    "phimv",
    "as_operator",
    "Operator",
    "gpu_available",
    "UNIT_ROUNDOFF",
    *_error_names,
]
