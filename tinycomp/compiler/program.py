"""What ``tinycomp.compile`` returns: the compiled program, every stage kept.

A ``CompiledProgram`` is callable on numpy arrays, like the function it came from, and
it keeps the IR text after every stage (``program.stages["tiled"]``), the pass
manager's record of each stage (per-pass IR, statistics), and the reports the passes
wrote (fusion's reasons, tiling's table, bufferization's in-place decisions and peak
memory). ``print(program)`` is the pipeline, one stage per line::

    tinycomp.compile(@main, target="interp")
      stage        kernels  loops  allocs  ops
      traced             3      0       0    9
      ...

>>> import numpy as np, tinycomp
>>> from tinycomp.frontend import exp
>>> program = tinycomp.compile(lambda x: exp(x * 2.0), np.ones((2, 3), np.float32))
>>> list(program.stages)
['traced', 'generalized', 'fused', 'tiled', 'bufferized', 'loops']
>>> x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
>>> bool(np.allclose(program(x), np.exp(x * 2)))
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tinycomp.compiler.errors import CompileError
from tinycomp.interp import interpret, run_bufferized
from tinycomp.ir import parse
from tinycomp.ir.operation import Operation
from tinycomp.passes import PipelineResult
from tinycomp.passes.strategy import StrategyDecision

__all__ = ["CompiledProgram", "count_ops"]

_BUFFER_STAGES = ("bufferized", "loops")


def count_ops(module: Operation) -> dict[str, int]:
    """What a stage table shows of a module: linalg kernels, ``scf.for`` loops,
    ``memref.alloc`` allocations and all ops.

    >>> count_ops(parse("func.func @f() { return }"))
    {'kernels': 0, 'loops': 0, 'allocs': 0, 'ops': 2}
    """
    counts = {"kernels": 0, "loops": 0, "allocs": 0, "ops": 0}
    for op in module.walk():
        if op is module:
            continue
        counts["ops"] += 1
        dialect, _, short = op.name.partition(".")
        if dialect == "linalg" and short not in ("yield", "index"):
            counts["kernels"] += 1
        elif op.name in ("scf.for", "affine.for"):
            counts["loops"] += 1
        elif op.name == "memref.alloc":
            counts["allocs"] += 1
    return counts


@dataclass
class CompiledProgram:
    """A compiled tensor program (see the module docstring)."""

    module: Operation
    """The module after the last stage run."""
    entry: str
    """The function the program calls."""
    target: str
    """Where it runs: ``"interp"``, the reference interpreter."""
    stages: dict[str, str] = field(default_factory=dict)
    """IR text after each stage, in pipeline order."""
    runs: dict[str, PipelineResult] = field(default_factory=dict)
    """The pass manager's result per stage: IR after each pass, statistics, timings."""
    reports: dict[str, Any] = field(default_factory=dict)
    """The passes' reports by pass name (``"linalg-fuse-elementwise-ops"``: reasons)."""
    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    """``count_ops`` of the module after each stage."""
    result_shapes: tuple[tuple[tuple[int, ...], np.dtype], ...] = ()
    """Shape and dtype of each result of the entry function, from the traced program."""
    input_count: int = 0
    """How many arrays a call takes (the entry function's arguments before bufferization)."""
    native: Any = None
    """The backend's program: for ``target="cpu"`` the JIT-compiled ``loops`` stage (a
    ``CpuProgram``), for ``target="gpu-sim"`` a ``GpuSimProgram``."""
    decisions: list[StrategyDecision] = field(default_factory=list)
    """Which strategy of the target each kernel got, and why, in pipeline order."""

    @property
    def launches(self) -> list[Any]:
        """``target="gpu-sim"``: the kernel launches of the last call (kernel, grid,
        block, counters, estimate); empty for the other targets."""
        return list(getattr(self.native, "launches", []))

    @property
    def last_stage(self) -> str:
        """The name of the last stage that ran."""
        return list(self.stages)[-1]

    def ir(self, stage: str | None = None) -> Operation:
        """The module after ``stage`` (default: the last), parsed from its stored text,
        so changing it leaves the program alone."""
        stage = stage or self.last_stage
        if stage not in self.stages:
            raise CompileError(
                f"stage {stage!r} did not run; the stages that ran: {', '.join(self.stages)}"
            )
        return parse(self.stages[stage])

    def __call__(self, *arrays: Any) -> Any:
        """Run the program on numpy arrays; returns one array, or a tuple for several."""
        return self.run(*arrays)

    def run(self, *arrays: Any, stage: str | None = None) -> Any:
        """Run the IR of ``stage`` (default: the last) on ``arrays`` in the interpreter.

        Up to ``tiled`` the function takes tensors and returns its results; from
        ``bufferized`` on its results are out-params, so fresh uninitialised buffers
        are passed for them and returned (``run_bufferized``: reading an element no
        one wrote is an error, not a silent zero). Every stage computes the same
        numbers: that is what the tests check, stage by stage.
        """
        if len(arrays) != self.input_count:
            raise CompileError(f"@{self.entry} takes {self.input_count} arrays, got {len(arrays)}")
        stage = stage or self.last_stage
        if self.native is not None and stage == self.last_stage:
            return self.native(*arrays)
        module = self.module if stage == self.last_stage else self.ir(stage)
        if stage not in _BUFFER_STAGES:
            return interpret(module, *arrays, entry=self.entry)
        shapes = [shape for shape, _ in self.result_shapes]
        return run_bufferized(module, *arrays, entry=self.entry, output_shapes=shapes)

    @property
    def llvm_ir(self) -> str:
        """The LLVM IR tinycomp emitted for the ``loops`` stage (``target="cpu"``)."""
        return self._native_program().llvm_ir

    @property
    def optimized_ir(self) -> str:
        """That LLVM IR after LLVM's optimization pipeline (``target="cpu"``)."""
        return self._native_program().optimized_ir

    def assembly(self, function: str | None = None) -> str:
        """The x86 assembly of ``function`` (default: the entry) (``target="cpu"``)."""
        return self._native_program().assembly(function)

    def _native_program(self) -> Any:
        if self.native is None:
            raise CompileError(
                f'compiled for target="{self.target}": LLVM IR and assembly exist for '
                'target="cpu" only'
            )
        return self.native

    def summary(self) -> str:
        """The pipeline, one stage per line, with what each stage left behind."""
        lines = [f'tinycomp.compile(@{self.entry}, target="{self.target}")']
        header = f"  {'stage':<12} {'kernels':>7} {'loops':>6} {'allocs':>7} {'ops':>5}  passes"
        lines.append(header)
        for stage, counts in self.counts.items():
            run = self.runs.get(stage)
            if run is not None:
                passes = ", ".join(step.name for step in run.stages[1:])
            else:
                passes = "(input)" if stage == next(iter(self.counts)) else "(nothing to do)"
            lines.append(
                f"  {stage:<12} {counts['kernels']:>7} {counts['loops']:>6} "
                f"{counts['allocs']:>7} {counts['ops']:>5}  {passes or '-'}"
            )
        if self.decisions:
            lines.append("  strategies")
            lines.extend(f"    {decision}" for decision in self.decisions)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.summary()

    def __repr__(self) -> str:
        return f"<CompiledProgram @{self.entry}: {' -> '.join(self.stages)}>"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        printer.text(self.summary())
