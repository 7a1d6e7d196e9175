"""Which lowering strategy a kernel got, and why: what target passes report.

A target lowers different kinds of kernels differently: on the CPU a contraction goes
through the BLIS strategy (packing and a register-blocked micro-kernel), a row of a
softmax is tiled by rows and vectorized, anything else becomes plain loops. A pass that
makes such a choice records one ``StrategyDecision`` per kernel it looked at, in its
``decisions`` list; ``tinycomp.compile`` collects them, and ``print(program)`` shows them,
so a user sees which code each kernel got and, when it did not get the fast one, why.

>>> decision = StrategyDecision("%matmul (line 3)", "blis", "f32 matmul 512x512x512")
>>> print(decision)
%matmul (line 3): blis (f32 matmul 512x512x512)
>>> print(StrategyDecision("%0", "loops", "f16: the micro-kernel is f32", chosen=False))
%0: loops (f16: the micro-kernel is f32)
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["StrategyDecision", "StrategyPass"]


@dataclass(frozen=True)
class StrategyDecision:
    """One kernel, the strategy it got and the reason, in words a user can act on."""

    kernel: str
    """The kernel, named as ``op_name`` names it (``%matmul (line 3)``)."""
    strategy: str
    """The strategy it got: ``"blis"``, ``"rows"``, ``"loops"``..."""
    reason: str
    """Why: what matched, or what stopped the faster strategy."""
    chosen: bool = True
    """False when the pass fell back (the kernel did not get the pass's strategy)."""

    def __str__(self) -> str:
        return f"{self.kernel}: {self.strategy} ({self.reason})"


class StrategyPass:
    """Mixin of a pass that chooses strategies: ``decisions`` is reset on every run.

    >>> from tinycomp.passes.pass_base import Pass
    >>> class Pick(StrategyPass, Pass):
    ...     name = "pick"
    ...     def run(self, op):
    ...         self.decisions = [StrategyDecision("%0", "loops", "nothing to do")]
    >>> Pick().decisions
    []
    """

    def __init__(self) -> None:
        super().__init__()
        self.decisions: list[StrategyDecision] = []
