"""The options of ``tinycomp.compile``: one explicit object instead of keyword soup.

Every choice the pipeline makes for you is a field here, with the default that works
for a first run: fuse, do not tile (tiling is a decision about a target), bufferize,
lower to loops. ``CompileOptions(tile_sizes=(4, 8))`` tiles every kernel's first two
loops by 4 and 8; ``bind=("gpu.block.y", "gpu.block.x")`` then names the hardware
units those tile loops run on.

>>> options = CompileOptions(tile_sizes=(4, 8), bind=("gpu.block.y", "gpu.block.x"))
>>> options.tiling_enabled
True
>>> CompileOptions(tile_sizes=(4, -1))  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
tinycomp.compiler.errors.CompileError: tile_sizes=(4, -1): a tile size must be >= 0 ... found -1
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from tinycomp.compiler.errors import CompileError
from tinycomp.passes.pass_base import Pass

__all__ = ["CompileOptions"]


@dataclass(frozen=True)
class CompileOptions:
    """What the pipeline does at each stage (see the module docstring)."""

    fusion: bool = True
    """Fuse elementwise producers into their consumers (stage ``fused``)."""
    tile_sizes: tuple[int, ...] = ()
    """Tile size per loop, outermost first; 0 leaves a loop untiled; ``()`` skips tiling."""
    tile_and_fuse: bool = True
    """Pull producers into the consumer's tile loops (otherwise tile every op alone)."""
    reduction_tiling: Literal["sequential", "partials"] = "sequential"
    """How a tiled reduction loop keeps its meaning: one accumulator carried through the
    loop, or partial accumulators combined at the end (only ``linalg-tile`` does this)."""
    bind: tuple[str | None, ...] = ()
    """Hardware unit per tiled loop (``"gpu.block.x"``), ``None`` to leave one unbound."""
    buffer_reuse: bool = True
    """Let temporaries whose lifetimes do not overlap share one allocation."""
    extra_passes: Mapping[str, Sequence[Pass]] = field(default_factory=dict)
    """Your own passes, run right after the named stage: ``{"fused": [MyPass()]}``."""
    opt_level: int = 3
    """LLVM's optimization level for ``target="cpu"``: 0 (none) to 3 (vectorized)."""
    gpu_preset: str = "a100"
    """The GPU ``target="gpu-sim"`` simulates and estimates for (``tinycomp.gpu.PRESETS``)."""
    strategies: Mapping[str, bool] = field(default_factory=dict)
    """The target's strategies by name: ``False`` turns one off, ``True`` forces it
    wherever it is legal (not only where it pays); a strategy left out is on and decides
    for itself (``{"blis": False}``: contractions become plain loops)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "tile_sizes", tuple(self.tile_sizes))
        object.__setattr__(self, "bind", tuple(self.bind))
        for size in self.tile_sizes:
            if not isinstance(size, int) or size < 0:
                raise CompileError(
                    f"tile_sizes={self.tile_sizes}: a tile size must be >= 0 "
                    f"(0 leaves a loop untiled), found {size!r}"
                )
        if self.bind and not self.tile_sizes:
            raise CompileError(
                f"bind={self.bind} names hardware units for tile loops, but tile_sizes is "
                "empty: there are no tile loops to bind"
            )
        if len(self.bind) > len(self.tile_sizes):
            raise CompileError(
                f"bind={self.bind} has {len(self.bind)} entries for "
                f"{len(self.tile_sizes)} tile sizes {self.tile_sizes}"
            )
        if self.opt_level not in (0, 1, 2, 3):
            raise CompileError(f"opt_level={self.opt_level!r}: expected 0, 1, 2 or 3")
        for name, on in self.strategies.items():
            if not isinstance(on, bool):
                raise CompileError(
                    f"strategies={{{name!r}: {on!r}}}: expected True (force) or False (off)"
                )
        if self.reduction_tiling not in ("sequential", "partials"):
            raise CompileError(
                f"reduction_tiling={self.reduction_tiling!r}: expected 'sequential' or 'partials'"
            )

    def forced(self, strategy: str) -> bool:
        """Whether ``strategy`` is forced on (``strategies={strategy: True}``).

        >>> CompileOptions(strategies={"blis": True}).forced("blis")
        True
        """
        return self.strategies.get(strategy) is True

    @property
    def tiling_enabled(self) -> bool:
        """Whether the ``tiled`` stage tiles anything (some tile size is nonzero)."""
        return any(self.tile_sizes)
