"""A GEMM benchmark result as data: GFLOPS per variant and size, the ratio to numpy, the staircase.

``benchmarks/gemm.py`` measures four matmuls (naive loops, tiled and
vectorized loops, the blocked GEMM, numpy on one thread) at several sizes and writes a
JSON file ``benchmarks/results/gemm_<cpu>.json``. ``GemmBenchmark`` reads it back, so
a notebook can show the measured *staircase* (each step a thing the compiler learned
about the machine; drawn by ``tinycomp.viz.gemm_staircase``) with output that does
not change from run to run.

>>> result = GemmBenchmark.from_dict({
...     "cpu": "toy", "sizes": [256, 512],
...     "gflops": {"naive": [2.0, 1.5], "tiled": [40.0, 45.0],
...                "blocked": [150.0, 180.0], "numpy": [200.0, 200.0]},
...     "blocking": {"mr": 14, "nr": 32, "kc": 216, "mc": 1050, "nc": 3328},
...     "numpy_blas": "OpenBLAS (SkylakeX kernels)"})
>>> result.ratio_to_numpy()
(0.75, 0.9)
>>> print(result.table())
GEMM f32, one thread, on toy (GFLOPS; numpy: OpenBLAS (SkylakeX kernels))
  size  naive  tiled  blocked  numpy  blocked/numpy
   256    2.0   40.0    150.0  200.0           0.75
   512    1.5   45.0    180.0  200.0           0.90
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["LABELS", "VARIANTS", "GemmBenchmark"]

VARIANTS = ("naive", "tiled", "blocked", "numpy")
"""The variants, slowest first."""

LABELS = {
    "naive": "naive loops",
    "tiled": "tiled + vectorized loops",
    "blocked": "blocked GEMM (packing + micro-kernel)",
    "numpy": "numpy matmul, 1 thread",
}
"""What each variant is, for legends."""


@dataclass(frozen=True)
class GemmBenchmark:
    """One run of ``benchmarks/gemm.py`` (see the module docstring)."""

    cpu: str
    """LLVM's name of the CPU it ran on."""
    sizes: tuple[int, ...]
    """The matrix sizes n (all three dimensions n)."""
    gflops: dict[str, tuple[float | None, ...]]
    """Variant -> GFLOPS per size (``None`` where a variant was not run)."""
    blocking: dict[str, int] = field(default_factory=dict)
    """The blocked GEMM's MR, NR, KC, MC, NC."""
    numpy_blas: str = "unknown"
    """numpy's BLAS library and the kernels it picked for this CPU."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Everything else the benchmark recorded (micro-kernel peak, loop statistics...)."""

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GemmBenchmark:
        """A result from the benchmark's JSON object."""
        known = {"cpu", "sizes", "gflops", "blocking", "numpy_blas"}
        return cls(
            cpu=data["cpu"],
            sizes=tuple(data["sizes"]),
            gflops={name: tuple(values) for name, values in data["gflops"].items()},
            blocking=dict(data.get("blocking", {})),
            numpy_blas=data.get("numpy_blas", "unknown"),
            extra={k: v for k, v in data.items() if k not in known},
        )

    @classmethod
    def load(cls, path: str | Path) -> GemmBenchmark:
        """A result from a JSON file written by ``benchmarks/gemm.py``."""
        return cls.from_dict(json.loads(Path(path).read_text()))

    def to_dict(self) -> dict[str, Any]:
        """The JSON object ``from_dict`` reads."""
        return {
            "cpu": self.cpu,
            "sizes": list(self.sizes),
            "gflops": {name: list(values) for name, values in self.gflops.items()},
            "blocking": self.blocking,
            "numpy_blas": self.numpy_blas,
            **self.extra,
        }

    def ratio_to_numpy(self, variant: str = "blocked") -> tuple[float | None, ...]:
        """``variant``'s GFLOPS over numpy's, per size, rounded to 2 digits."""
        pairs = zip(self.gflops[variant], self.gflops["numpy"], strict=True)
        return tuple(round(ours / theirs, 2) if ours and theirs else None for ours, theirs in pairs)

    def table(self) -> str:
        """A text table: one row per size, one column per variant, and the ratio."""
        names = [name for name in VARIANTS if name in self.gflops]
        header = ["size", *names, "blocked/numpy"]
        rows = []
        for index, size in enumerate(self.sizes):
            values = [_cell(self.gflops[name][index], ".1f") for name in names]
            rows.append([str(size), *values, _cell(self.ratio_to_numpy()[index], ".2f")])
        widths = [max(len(h), *(len(row[i]) for row in rows)) for i, h in enumerate(header)]
        lines = [
            f"GEMM f32, one thread, on {self.cpu} (GFLOPS; numpy: {self.numpy_blas})",
            "  " + "  ".join(h.rjust(w) for h, w in zip(header, widths, strict=True)),
        ]
        for row in rows:
            lines.append("  " + "  ".join(c.rjust(w) for c, w in zip(row, widths, strict=True)))
        return "\n".join(lines)


def _cell(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)
