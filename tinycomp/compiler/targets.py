"""The targets of ``tinycomp.compile``, in one table: what each runs on and how it lowers.

A target is data, not a branch in ``compile``: its name, what it runs on, its default
options, its *strategies* (a named lowering for one kind of kernel, made of passes that
run after one stage of the pipeline), the stage its backend starts from and the backend
itself. ``compile`` reads the same for every target:

1. the stages of ``stages.py`` run in order; after a stage's own passes come the passes
   of the target's strategies for that stage (those the options leave on), then the
   user's ``extra_passes``;
2. the strategy passes record which kernel got which strategy and why
   (``tinycomp.passes.strategy``); ``print(program)`` lists those decisions;
3. the backend, if the target has one, turns the module of its ``final_stage`` into
   something callable (``CpuProgram`` for ``"cpu"``).

The GPU and NPU targets (``gpu-sim`` in ``gpu_targets.py``; ``gpu``, ``npu-sim`` to come)
are added with ``register_target``, each with its strategies and backend; nothing in
``compile`` changes.

>>> print(describe_targets())
interp   the numpy reference interpreter, at any stage
cpu      native code for this machine through LLVM (from the 'loops' stage)
           blis         contractions (matmul, batch matmul, conv2d) after 'bufferized'
           rows         softmax / layernorm / rmsnorm rows after 'tiled'
           vector       elementwise and reduction loops after 'loops'
           math         exp, log, tanh, erf as vectorizable polynomials after 'loops'
gpu-sim  the SIMT GPU simulator, with counters and a cost estimate (from the 'loops' stage)
           gpu-map      kernels to blocks and threads (a block per row) after 'tiled'
           block-tiles  contractions: shared-memory block tiles, register tiles after 'bufferized'
           outline      bound loop nests as gpu.func kernels after 'loops'
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tinycomp.compiler.errors import CompileError
from tinycomp.compiler.options import CompileOptions
from tinycomp.ir.operation import Operation
from tinycomp.passes.pass_base import Pass

__all__ = ["TARGETS", "Strategy", "Target", "describe_targets", "lookup_target", "register_target"]

Backend = Callable[[Operation, str, Sequence[Any], CompileOptions], Any]
"""``backend(module, entry, result_shapes, options)`` -> a callable program."""


@dataclass(frozen=True)
class Strategy:
    """One way a target lowers one kind of kernel: passes that run after ``stage``."""

    name: str
    """How options and reports call it: ``"blis"``."""
    kernels: str
    """The kind of kernel it is for, in words (``"contractions (matmul, conv2d)"``)."""
    stage: str
    """The stage whose passes it follows."""
    passes: Callable[[CompileOptions], list[Pass]]
    """Its passes under the given options. When the options force the strategy
    (``strategies={name: True}``), a kernel of its kind that its passes could not give
    it (a decision with ``chosen=False``) is a ``CompileError`` instead of a fallback."""


@dataclass(frozen=True)
class Target:
    """A place a compiled program runs (see the module docstring)."""

    name: str
    runs_on: str
    """What it runs on, in words."""
    strategies: tuple[Strategy, ...] = ()
    final_stage: str | None = None
    """The stage the backend starts from; ``None``: a program may stop at any stage."""
    backend: Backend | None = None
    """Builds the callable program; ``None``: the reference interpreter runs the IR."""
    default_options: CompileOptions = field(default_factory=CompileOptions)
    """The options ``compile`` uses when it is given none."""

    def strategy_passes(self, stage: str, options: CompileOptions) -> list[Pass]:
        """The passes of the strategies that follow ``stage`` and are on in ``options``.

        >>> [p.name for p in lookup_target("cpu").strategy_passes("loops", CompileOptions())]
        ['vectorize-loops', 'cse', 'math-polynomial-approximation', 'canonicalize', 'cse']
        >>> no_vectors = CompileOptions(strategies={"vector": False, "math": False})
        >>> lookup_target("cpu").strategy_passes("loops", no_vectors)
        []
        """
        return [p for _, passes in self.strategy_groups(stage, options) for p in passes]

    def strategy_groups(
        self, stage: str, options: CompileOptions
    ) -> list[tuple[Strategy, list[Pass]]]:
        """``strategy_passes``, each strategy with its own passes."""
        return [
            (strategy, strategy.passes(options))
            for strategy in self.strategies
            if strategy.stage == stage and options.strategies.get(strategy.name, True)
        ]

    def check_options(self, options: CompileOptions) -> None:
        """Every strategy the options name is one of this target's."""
        known = [strategy.name for strategy in self.strategies]
        for name in options.strategies:
            if name not in known:
                close = difflib.get_close_matches(name, known, n=1)
                hint = f" (did you mean {close[0]!r}?)" if close else ""
                listed = ", ".join(known) or "none"
                raise CompileError(
                    f"strategies={{{name!r}: ...}}: target {self.name!r} has no strategy "
                    f"{name!r}{hint}; its strategies: {listed}"
                )


TARGETS: dict[str, Target] = {}
"""Every target ``compile`` knows, by name (``register_target`` adds one)."""


def register_target(target: Target) -> Target:
    """Add ``target`` to the table (a second target with one name is an error).

    >>> register_target(lookup_target("cpu"))
    Traceback (most recent call last):
    ...
    tinycomp.compiler.errors.CompileError: target 'cpu' is already registered
    """
    if target.name in TARGETS:
        raise CompileError(f"target {target.name!r} is already registered")
    TARGETS[target.name] = target
    return target


def lookup_target(name: str) -> Target:
    """The target called ``name``, or an error listing the targets.

    >>> lookup_target("cpu").final_stage
    'loops'
    >>> lookup_target("gpu-sm")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    tinycomp.compiler.errors.CompileError: unknown target 'gpu-sm'; targets: interp (...), cpu (...)
    """
    if name in TARGETS:
        return TARGETS[name]
    known = ", ".join(f"{target.name} ({target.runs_on})" for target in TARGETS.values())
    raise CompileError(f"unknown target {name!r}; targets: {known}")


def describe_targets() -> str:
    """The table as text: each target, then its strategies."""
    width = max(len(name) for name in TARGETS)
    named = [strategy.name for target in TARGETS.values() for strategy in target.strategies]
    column = max((len(name) for name in named), default=0)
    lines = []
    for target in TARGETS.values():
        where = f" (from the {target.final_stage!r} stage)" if target.final_stage else ""
        lines.append(f"{target.name:<{width}}  {target.runs_on}{where}")
        for strategy in target.strategies:
            lines.append(
                f"{'':<{width}}    {strategy.name:<{column}}  {strategy.kernels} "
                f"after {strategy.stage!r}"
            )
    return "\n".join(lines)
