"""The model objects as A: the spin bath's propagation is unitary and a group in t."""

import numpy as np

import matexp
from matexp.models import SpinBath
from reference import rel


def test_spin_bath_propagation_is_unitary_and_composes():
    bath = SpinBath(9, seed=3)
    assert bath.shape == (512, 512) and matexp.as_operator(bath).is_hermitian()
    psi1 = matexp.expmv(bath, bath.psi0, -0.7j, rtol=1e-12)
    psi2 = matexp.expmv(bath, psi1, -0.5j, rtol=1e-12)
    direct = matexp.expmv(bath, bath.psi0, -1.2j, rtol=1e-12)
    assert abs(np.linalg.norm(psi1) - 1) <= 1e-10 and abs(np.linalg.norm(direct) - 1) <= 1e-10
    assert rel(psi2, direct) <= 1e-9
    back = matexp.expmv(bath, direct, 1.2j, rtol=1e-12)
    assert rel(back, bath.psi0) <= 1e-9


def test_spin_bath_refuses_bad_sizes():
    import pytest

    with pytest.raises(matexp.InvalidArgumentError):
        SpinBath(1)
