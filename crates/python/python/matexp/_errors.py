"""The exceptions of matexp: every error of the library raises a subclass of
:class:`matexp.Error`, which is also the built-in exception a Python user expects
(``ValueError`` for bad input, ``RuntimeError`` for a method that gave up, ...), and carries
the library's message (what was wrong, where, and what to do)."""

from __future__ import annotations

__all__ = [
    "Error",
    "InvalidArgumentError",
    "DimensionMismatchError",
    "NonFiniteError",
    "NoConvergenceError",
    "DeviceError",
    "UnsupportedError",
    "ParseError",
    "FileError",
    "LapackError",
    "MemoryBudgetError",
]


class Error(Exception):
    """Base class of every matexp exception."""


class InvalidArgumentError(Error, ValueError):
    """An argument outside its domain (a tolerance below roundoff, an unknown method, ...)."""


class DimensionMismatchError(Error, ValueError):
    """Two sizes that must agree do not (a non-square A, a vector of another length)."""


class NonFiniteError(Error, ValueError):
    """A NaN or infinity in the input, or an overflowing result."""


class NoConvergenceError(Error, RuntimeError):
    """A method did not reach its tolerance within its caps (``max_products``, ...)."""


class DeviceError(Error, RuntimeError):
    """No GPU, no GPU support in this build, or a driver failure."""


class UnsupportedError(Error, NotImplementedError):
    """A valid request that this build or operator does not support."""


class ParseError(Error, ValueError):
    """Malformed input text (a MatrixMarket file)."""


class FileError(Error, OSError):
    """An I/O failure, with the path involved."""


class LapackError(Error, RuntimeError):
    """A dense LAPACK kernel reported failure."""


class MemoryBudgetError(Error, MemoryError):
    """The problem needs more memory than the process may use (refused before allocating)."""
