"""The stages of ``tinycomp.compile``: which passes each one runs.

The pipeline is a fixed list of named stages; each is a short list of passes chosen
from the options. Stopping after a stage, or printing its IR, is asking for the module
as it stands at the end of that list::

    traced       the frontend's func + linalg on tensors (no passes: the input)
    generalized  linalg-generalize-named-ops, canonicalize, cse: one op form
    fused        linalg-fuse-elementwise-ops, canonicalize: fewer kernels
    tiled        linalg-tile-and-fuse (or linalg-tile), canonicalize, cse: loops of tiles
    bufferized   one-shot-bufferize, buffer-deallocation (+ buffer-reuse): memrefs
    loops        convert-linalg-to-loops, canonicalize, cse: scf.for nests

A stage whose option is off (``fusion=False``, no ``tile_sizes``) runs no passes; the
stage still exists, so ``stop_after="tiled"`` always means the same point.

>>> [stage.name for stage in STAGES]
['traced', 'generalized', 'fused', 'tiled', 'bufferized', 'loops']
>>> [p.name for p in stage_passes("fused", CompileOptions())]
['linalg-fuse-elementwise-ops', 'canonicalize']
>>> stage_passes("tiled", CompileOptions())
[]
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass

from tinycomp.compiler.errors import CompileError
from tinycomp.compiler.options import CompileOptions
from tinycomp.passes import (
    CanonicalizePass,
    CSEPass,
    FusionPass,
    GeneralizePass,
    LinalgToLoopsPass,
    Pass,
)

__all__ = ["STAGES", "Stage", "check_stage_name", "stage_passes"]


@dataclass(frozen=True)
class Stage:
    """One named point of the pipeline and how to build its passes."""

    name: str
    summary: str
    passes: Callable[[CompileOptions], list[Pass]]


def _generalized(options: CompileOptions) -> list[Pass]:
    return [GeneralizePass(), CanonicalizePass(), CSEPass()]


def _fused(options: CompileOptions) -> list[Pass]:
    return [FusionPass(), CanonicalizePass()] if options.fusion else []


def _tiled(options: CompileOptions) -> list[Pass]:
    if not options.tiling_enabled:
        return []
    from tinycomp.passes.tiling import TileAndFusePass, TilePass

    if options.tile_and_fuse and options.reduction_tiling == "sequential":
        tiling: Pass = TileAndFusePass(options.tile_sizes, bind=options.bind)
    else:
        tiling = TilePass(options.tile_sizes, bind=options.bind, reduction=options.reduction_tiling)
    return [tiling, CanonicalizePass(), CSEPass()]


def _bufferized(options: CompileOptions) -> list[Pass]:
    from tinycomp.passes.bufferize import bufferization_passes

    return bufferization_passes(reuse=options.buffer_reuse)


def _loops(options: CompileOptions) -> list[Pass]:
    return [LinalgToLoopsPass(), CanonicalizePass(), CSEPass()]


STAGES: tuple[Stage, ...] = (
    Stage("traced", "the frontend's linalg on tensors", lambda options: []),
    Stage("generalized", "every named op as a linalg.generic", _generalized),
    Stage("fused", "elementwise producers fused into consumers", _fused),
    Stage("tiled", "kernels split into tiles, producers fused into tile loops", _tiled),
    Stage("bufferized", "tensors become buffers, written in place where safe", _bufferized),
    Stage("loops", "linalg on buffers written out as scf.for loops", _loops),
)

STAGE_NAMES = tuple(stage.name for stage in STAGES)


def check_stage_name(name: str, what: str = "stop_after") -> str:
    """``name`` if it is a stage, else a ``CompileError`` listing the stages.

    >>> try:
    ...     check_stage_name("tilled")
    ... except CompileError as error:
    ...     print(error)  # doctest: +ELLIPSIS
    stop_after='tilled' is not a stage (did you mean 'tiled'?); stages: traced, ..., loops
    """
    if name in STAGE_NAMES:
        return name
    close = difflib.get_close_matches(name, STAGE_NAMES, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    raise CompileError(f"{what}={name!r} is not a stage{hint}; stages: {', '.join(STAGE_NAMES)}")


def stage_passes(name: str, options: CompileOptions) -> list[Pass]:
    """The passes stage ``name`` runs under ``options``, then the user's extra passes
    for that stage (``options.extra_passes[name]``)."""
    stage = STAGES[STAGE_NAMES.index(check_stage_name(name, "stage"))]
    return [*stage.passes(options), *options.extra_passes.get(name, ())]
