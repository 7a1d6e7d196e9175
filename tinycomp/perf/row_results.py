"""A stored run of ``benchmarks/cpu_rows.py``: softmax, layernorm, rmsnorm against numpy.

The benchmark times each kernel at each shape as the CPU target compiles it, and the
staircase below it (the same ``compile`` call with strategies turned off: plain loops,
vectorized, polynomial math, rows), next to numpy on one thread. A chapter reads the
stored JSON instead of timing live: ``RowBenchmark.load(path).table()``.

>>> run = RowBenchmark.from_dict({"cpu": "toy", "results": [{"kernel": "softmax",
...     "shape": [8, 16], "numpy_ms": 2.0, "tinycomp_ms": 1.0, "ratio": 2.0,
...     "compile_s": 0.5, "staircase_ms": {"loops": 4.0, "rows": 1.0}}]})
>>> print(run.table())
softmax, layernorm, rmsnorm f32 through compile(..., target="cpu") on toy, one thread, ms
  kernel   shape  numpy  loops  rows  numpy / tinycomp  compile s (O3)
  softmax   8x16   2.00   4.00  1.00              2.00            0.50
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tinycomp.perf.gemm_results import _aligned, _cell

__all__ = ["RowBenchmark"]


@dataclass(frozen=True)
class RowBenchmark:
    """One run of ``benchmarks/cpu_rows.py`` (see the module docstring)."""

    cpu: str
    """LLVM's name of the CPU it ran on."""
    results: tuple[dict[str, Any], ...]
    """One object per kernel and shape, as the benchmark wrote it."""
    staircase_options: dict[str, str]
    """Per step of the staircase, the ``CompileOptions`` it was compiled with, as text."""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RowBenchmark:
        """A result from the benchmark's JSON object."""
        return cls(data["cpu"], tuple(data["results"]), dict(data.get("staircase_options", {})))

    @classmethod
    def load(cls, path: str | Path) -> RowBenchmark:
        """A result from a JSON file written by ``benchmarks/cpu_rows.py``."""
        return cls.from_dict(json.loads(Path(path).read_text()))

    def table(self) -> str:
        """Milliseconds per kernel and shape: numpy, each step of the staircase (the last
        is ``compile``'s default), the ratio numpy / tinycomp and the compile time."""
        steps = list(self.results[0].get("staircase_ms", {})) if self.results else []
        header = ["kernel", "shape", "numpy", *steps, "numpy / tinycomp", "compile s (O3)"]
        rows = [
            [
                result["kernel"],
                "x".join(str(size) for size in result["shape"]),
                _cell(result["numpy_ms"], ".2f"),
                *(_cell(result["staircase_ms"].get(step), ".2f") for step in steps),
                _cell(result["ratio"], ".2f"),
                _cell(result.get("compile_s"), ".2f"),
            ]
            for result in self.results
        ]
        title = (
            'softmax, layernorm, rmsnorm f32 through compile(..., target="cpu") on '
            f"{self.cpu}, one thread, ms"
        )
        return _aligned(title, header, rows, left=1)
