"""What the code-motion passes record when they leave an op where it is.

``loop-invariant-code-motion`` and ``scf-if-hoist-common`` move ops across control flow;
neither moves a convergent op (a barrier, shuffle or vote), whose result depends on which
threads execute it together. Each op they could otherwise have moved is reported as a
``KeptInPlace``, so ``print(pass.report)`` says what stayed and why.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["KeptInPlace"]


@dataclass(frozen=True)
class KeptInPlace:
    """An op a code-motion pass could have moved and did not, with why.

    >>> print(KeptInPlace("gpu.barrier", " at line 7", "sunk below an scf.if", "convergent"))
    gpu.barrier at line 7: not sunk below an scf.if: convergent
    """

    op_name: str
    """The op that stayed (``nvvm.shfl.sync``)."""
    where: str
    """Its place in the source, as messages say it (``" at line 7"``, or ``""``)."""
    move: str
    """The move it was refused (``hoisted above an scf.if``)."""
    reason: str
    """Why (``convergent; moving it ...``)."""

    def __str__(self) -> str:
        return f"{self.op_name}{self.where}: not {self.move}: {self.reason}"
