"""Physical models as operators for matexp's calls (usable as A).

>>> import numpy as np, matexp
>>> from matexp.models import SpinBath
>>> bath = SpinBath(8)                                    # H of order 2^8
>>> psi = matexp.expmv(bath.H, bath.psi0, -2j, rtol=1e-10)   # e^{−2iH}ψ₀
>>> bool(abs(np.linalg.norm(psi) - 1) < 1e-9)
True
"""

from __future__ import annotations

from . import _matexp

__all__ = ["SpinBath"]


class SpinBath:
    """Seed 000's spin-bath Hamiltonian: two central spins with coupling J₀ = 8 and a bath
    of ``spins`` − 2 spins with couplings 0.4·u_i (u_i uniform, ChaCha8 seeded by ``seed``),
    real symmetric CSR of order 2^spins (stored zeros dropped); ``psi0`` the seed's initial
    state (unit norm, the bath's part random from ``state_seed``)."""

    def __init__(self, spins: int, seed: int = 42, state_seed: int = 7):
        self.spins = spins
        self.H, self.psi0 = _matexp.Operator.spin_bath(spins, seed, state_seed)

    def _matexp_operator(self) -> _matexp.Operator:
        return self.H

    @property
    def shape(self) -> tuple[int, int]:
        return self.H.shape
