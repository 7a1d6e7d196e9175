"""Stored CPU benchmark results as data: the GEMM staircase, and the contractions against numpy.

``benchmarks/gemm.py`` compiles ``a @ b`` with ``tinycomp.compile(..., target="cpu")``
under three sets of options (naive loops, tiled and vectorized loops, the default BLIS
strategy), times them and numpy on one thread at several sizes, and writes
``benchmarks/results/gemm_<cpu>.json``. ``GemmBenchmark`` reads it back, so a notebook
can show the measured *staircase* (each step a thing the compiler learned about the
machine; drawn by ``tinycomp.viz.gemm_staircase``) with output that does not change from
run to run. ``ContractionBenchmark`` reads ``cpu_contractions_<cpu>.json``, written by
``benchmarks/cpu_contractions.py``: each program of the catalogue with contractions,
tinycomp against numpy.

>>> result = GemmBenchmark.from_dict({
...     "cpu": "toy", "sizes": [256, 512],
...     "gflops": {"naive": [2.0, 1.5], "tiled": [40.0, 45.0],
...                "blocked": [150.0, 180.0], "numpy": [200.0, 200.0]},
...     "blocking": {"mr": 14, "nr": 32, "kc": 216, "mc": 1050, "nc": 3328},
...     "numpy_blas": "OpenBLAS (SkylakeX kernels)",
...     "steps": {"naive": {"options": "CompileOptions(strategies={'blis': False})",
...                         "passes": {"loops": ["convert-linalg-to-loops"]},
...                         "strategies": []}}})
>>> result.ratio_to_numpy()
(0.75, 0.9)
>>> print(result.table())
GEMM f32, one thread, on toy (GFLOPS; numpy: OpenBLAS (SkylakeX kernels))
  size  naive  tiled  blocked  numpy  blocked/numpy
   256    2.0   40.0    150.0  200.0           0.75
   512    1.5   45.0    180.0  200.0           0.90
>>> print(result.steps_table())
naive    CompileOptions(strategies={'blis': False})
           loops: convert-linalg-to-loops
           strategies: none listed
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["LABELS", "VARIANTS", "ContractionBenchmark", "GemmBenchmark"]

VARIANTS = ("naive", "tiled", "blocked", "numpy")
"""The steps, slowest first."""

LABELS = {
    "naive": "naive loops",
    "tiled": "tiled + vectorized loops",
    "blocked": "BLIS strategy (packing + micro-kernel)",
    "numpy": "numpy matmul, 1 thread",
}
"""What each step is, for legends."""


@dataclass(frozen=True)
class GemmBenchmark:
    """One run of ``benchmarks/gemm.py`` (see the module docstring)."""

    cpu: str
    """LLVM's name of the CPU it ran on."""
    sizes: tuple[int, ...]
    """The matrix sizes n (all three dimensions n)."""
    gflops: dict[str, tuple[float | None, ...]]
    """Step -> GFLOPS per size (``None`` where a step was not run)."""
    blocking: dict[str, int] = field(default_factory=dict)
    """The BLIS strategy's MR, NR, KC, MC, NC on that machine."""
    numpy_blas: str = "unknown"
    """numpy's BLAS library and the kernels it picked for this CPU."""
    steps: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Step -> its ``CompileOptions`` as text (``options``), the passes of its
    ``bufferized`` and ``loops`` stages, the strategies ``print(program)`` listed
    (``strategies``) and the compile time per size (absent in older results)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Everything else the benchmark recorded (micro-kernel peak, loop statistics...)."""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GemmBenchmark:
        """A result from the benchmark's JSON object."""
        known = {"cpu", "sizes", "gflops", "blocking", "numpy_blas", "steps"}
        return cls(
            cpu=data["cpu"],
            sizes=tuple(data["sizes"]),
            gflops={name: tuple(values) for name, values in data["gflops"].items()},
            blocking=dict(data.get("blocking", {})),
            numpy_blas=data.get("numpy_blas", "unknown"),
            steps=dict(data.get("steps", {})),
            extra={k: v for k, v in data.items() if k not in known},
        )

    @classmethod
    def load(cls, path: str | Path) -> GemmBenchmark:
        """A result from a JSON file written by ``benchmarks/gemm.py``."""
        return cls.from_dict(json.loads(Path(path).read_text()))

    def to_dict(self) -> dict[str, Any]:
        """The JSON object ``from_dict`` reads."""
        data = {
            "cpu": self.cpu,
            "sizes": list(self.sizes),
            "gflops": {name: list(values) for name, values in self.gflops.items()},
            "blocking": self.blocking,
            "numpy_blas": self.numpy_blas,
        }
        if self.steps:
            data["steps"] = self.steps
        return data | self.extra

    def ratio_to_numpy(self, variant: str = "blocked") -> tuple[float | None, ...]:
        """``variant``'s GFLOPS over numpy's, per size, rounded to 2 digits."""
        pairs = zip(self.gflops[variant], self.gflops["numpy"], strict=True)
        return tuple(round(ours / theirs, 2) if ours and theirs else None for ours, theirs in pairs)

    def table(self) -> str:
        """A text table: one row per size, one column per step, and the ratio."""
        names = [name for name in VARIANTS if name in self.gflops]
        rows = []
        for index, size in enumerate(self.sizes):
            values = [_cell(self.gflops[name][index], ".1f") for name in names]
            rows.append([str(size), *values, _cell(self.ratio_to_numpy()[index], ".2f")])
        title = f"GEMM f32, one thread, on {self.cpu} (GFLOPS; numpy: {self.numpy_blas})"
        return _aligned(title, ["size", *names, "blocked/numpy"], rows)

    def steps_table(self) -> str:
        """Each step's options, the passes of its ``bufferized`` and ``loops`` stages and
        the strategies its program listed, at the first size."""
        lines = []
        for name, step in self.steps.items():
            lines.append(f"{name:<8} {step['options']}")
            for stage, passes in step.get("passes", {}).items():
                lines.append(f"{'':<10} {stage}: {', '.join(passes)}")
            listed = step.get("strategies") or ["none listed"]
            for index, decision in enumerate(listed):
                lines.append(f"{'':<10} {'strategies:' if index == 0 else '':<11} {decision}")
        return "\n".join(lines)


@dataclass(frozen=True)
class ContractionBenchmark:
    """One run of ``benchmarks/cpu_contractions.py``: per case, tinycomp against numpy.

    >>> run = ContractionBenchmark.from_dict({"cpu": "toy", "numpy_blas": "OpenBLAS",
    ...     "cases": [{"case": "matmul 256^3", "tinycomp_gflops": 45.0,
    ...                "numpy_gflops": 60.0, "ratio": 0.75, "target": 0.6,
    ...                "compile_seconds_o3": 1.0, "decisions": []}]})
    >>> print(run.table())
    contractions f32 through compile(..., target="cpu") on toy, one thread (numpy: OpenBLAS)
      case          tinycomp GFLOPS  numpy GFLOPS  ratio  target  compile s (O3)
      matmul 256^3             45.0          60.0   0.75     0.6            1.00
    """

    cpu: str
    """LLVM's name of the CPU it ran on."""
    cases: tuple[dict[str, Any], ...]
    """One object per program, as the benchmark wrote it."""
    numpy_blas: str = "unknown"
    """numpy's BLAS library and the kernels it picked for this CPU."""
    machine: str = ""
    """The machine model's description (caches, SIMD width), as the benchmark saw it."""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ContractionBenchmark:
        """A result from the benchmark's JSON object."""
        return cls(
            data["cpu"],
            tuple(data["cases"]),
            data.get("numpy_blas", "unknown"),
            data.get("machine", ""),
        )

    @classmethod
    def load(cls, path: str | Path) -> ContractionBenchmark:
        """A result from a JSON file written by ``benchmarks/cpu_contractions.py``."""
        return cls.from_dict(json.loads(Path(path).read_text()))

    def table(self) -> str:
        """A text table: one row per case, GFLOPS of both, the ratio, its target, compile time."""
        header = ["case", "tinycomp GFLOPS", "numpy GFLOPS", "ratio", "target", "compile s (O3)"]
        rows = [
            [
                case["case"],
                _cell(case["tinycomp_gflops"], ".1f"),
                _cell(case["numpy_gflops"], ".1f"),
                _cell(case["ratio"], ".2f"),
                _cell(case.get("target"), ".1f"),
                _cell(case.get("compile_seconds_o3"), ".2f"),
            ]
            for case in self.cases
        ]
        title = (
            f'contractions f32 through compile(..., target="cpu") on {self.cpu}, one thread '
            f"(numpy: {self.numpy_blas})"
        )
        return _aligned(title, header, rows, left=1)


def _aligned(title: str, header: list[str], rows: list[list[str]], left: int = 0) -> str:
    """``title``, then the columns right-aligned (the first ``left`` left-aligned)."""
    widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(header)]

    def line(cells: list[str]) -> str:
        parts = [
            c.ljust(w) if i < left else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  " + "  ".join(parts)

    return "\n".join([title, line(header), *(line(row) for row in rows)])


def _cell(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)
