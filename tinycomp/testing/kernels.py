"""The kernel catalogue: the tensor programs every compiler stage is checked on.

``KERNELS`` maps a name to a ``Kernel``: the traceable function, the shapes of its
operands (small by default, so the interpreter runs them in milliseconds), a random
input maker, a float64 numpy reference and a hypothesis strategy over shapes. A test
of a compiler stage loops over it::

    for kernel in KERNELS.values():
        inputs = kernel.make_inputs(rng, "bf16")
        outputs = interpret(my_stage(kernel.trace("bf16")), *inputs)
        check_against_reference(kernel, outputs, inputs, "bf16")

How the inputs are made:

1. A kernel's *shape* is a dict of named sizes (``{"m": 16, "k": 32, "n": 8}``);
   ``make_inputs(rng, dtype, k=7)`` overrides some of them. Unknown names, sizes below 1
   and impossible combinations (a filter larger than the padded image) raise ``ValueError``.
2. Each operand is standard normal noise times a *scale*; weights are scaled by
   ``1/sqrt(fan_in)`` (as neural networks initialize them), so every output stays of
   order 1 whatever the sizes, and one ``(rtol, atol)`` per dtype fits every kernel.
3. The values are rounded to the dtype; the reference then reads those rounded values,
   so a kernel's error against it is its own rounding, not the inputs'.

>>> import numpy as np
>>> sorted(KERNELS)  # doctest: +NORMALIZE_WHITESPACE
['attention', 'batch_matmul', 'conv2d', 'conv2d_plain', 'layernorm', 'matmul', 'mlp2',
 'rmsnorm', 'softmax']
>>> kernel = KERNELS["matmul"]
>>> [a.shape for a in kernel.make_inputs(np.random.default_rng(0), "f16", k=7)]
[(16, 7), (7, 8)]
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial

import numpy as np

from tinycomp.frontend import TensorSpec, conv2d, trace
from tinycomp.frontend import nn as frontend_nn
from tinycomp.ir import ModuleOp
from tinycomp.testing import references
from tinycomp.testing.tolerances import DtypeLike, numpy_dtype

Shape = Mapping[str, int]
"""Named sizes of one kernel instance, e.g. ``{"m": 16, "k": 32, "n": 8}``."""


@dataclass(frozen=True)
class Operand:
    """One input of a kernel: its name, shape and the scale of its random values."""

    name: str
    shape: tuple[int, ...]
    scale: float = 1.0
    """Standard deviation of the random values (``1/sqrt(fan_in)`` for weights)."""


def _always_valid(shape: Shape) -> str | None:
    return None


@dataclass(frozen=True, eq=False)  # compared by identity: the fields hold dicts and functions
class Kernel:
    """A catalogue entry (see the module docstring)."""

    name: str
    """The key in ``KERNELS``."""
    fn: Callable
    """The traceable function: ``tinycomp.trace(kernel.fn, *examples)``."""
    summary: str
    """One line saying what the kernel computes."""
    default_shape: Shape
    """The sizes used when ``make_inputs`` overrides none."""
    operands: Callable[[Shape], tuple[Operand, ...]]
    """The operands of an instance, in ``fn``'s argument order."""
    reference_fn: Callable[..., np.ndarray]
    """The float64 numpy reference (see ``tinycomp.testing.references``)."""
    shape_ranges: Mapping[str, tuple[int, int]]
    """Inclusive ranges of each size for ``shape_strategy``."""
    shape_problem: Callable[[Shape], str | None] = _always_valid
    """Why a shape is impossible for this kernel, or ``None`` when it is fine."""

    def shape(self, **overrides: int) -> dict[str, int]:
        """The default shape with ``overrides``, checked (step 1).

        >>> KERNELS["softmax"].shape(cols=5)
        {'rows': 8, 'cols': 5}
        """
        unknown = sorted(set(overrides) - set(self.default_shape))
        if unknown:
            raise ValueError(
                f"{self.name}: expected sizes among {sorted(self.default_shape)}, got {unknown}"
            )
        shape = {**self.default_shape, **overrides}
        bad = {k: v for k, v in shape.items() if not isinstance(v, int) or v < 1}
        if bad:
            raise ValueError(f"{self.name}: expected sizes that are ints >= 1, got {bad}")
        problem = self.shape_problem(shape)
        if problem is not None:
            raise ValueError(f"{self.name}: {problem}, got {shape}")
        return shape

    def operand_specs(self, **overrides: int) -> tuple[Operand, ...]:
        """The operands for this shape."""
        return self.operands(self.shape(**overrides))

    def make_inputs(
        self, rng: np.random.Generator, dtype: DtypeLike = "f32", **overrides: int
    ) -> tuple[np.ndarray, ...]:
        """Random inputs of ``dtype`` (steps 2-3), one per operand of ``fn``."""
        target = numpy_dtype(dtype)
        return tuple(
            (rng.standard_normal(o.shape) * o.scale).astype(target)
            for o in self.operand_specs(**overrides)
        )

    def reference(self, *arrays: np.ndarray) -> np.ndarray:
        """The float64 reference output for these inputs."""
        return self.reference_fn(*arrays)

    def trace(self, dtype: DtypeLike = "f32", **overrides: int) -> ModuleOp:
        """``fn`` traced on operands of ``dtype`` and this shape (``func.func @main``).

        >>> print(KERNELS["rmsnorm"].trace("bf16", cols=4).body.first_op.function_type)
        (tensor<8x4xbf16>, tensor<4xbf16>) -> tensor<8x4xbf16>
        """
        target = numpy_dtype(dtype)
        specs = [TensorSpec(o.shape, target) for o in self.operand_specs(**overrides)]
        return trace(self.fn, *specs)

    def shape_strategy(self):
        """A hypothesis strategy of shape dicts within ``shape_ranges`` (odd and prime
        sizes included), filtered by ``shape_problem``. Needs ``hypothesis``."""
        from hypothesis import strategies as st

        sizes = {k: st.integers(low, high) for k, (low, high) in self.shape_ranges.items()}
        return st.fixed_dictionaries(sizes).filter(lambda s: self.shape_problem(s) is None)

    def __repr__(self) -> str:
        return f"Kernel({self.name!r}: {self.summary})"


# -- the kernels' functions and operand lists ------------------------------------------------
def _inv_sqrt(n: int) -> float:
    return 1.0 / math.sqrt(n)


def matmul(a, b):
    """``a @ b``: ``linalg.matmul`` for 2-D operands, ``linalg.batch_matmul`` for 3-D ones."""
    return a @ b


def conv2d_stride2_pad1(x, w):
    """``conv2d(x, w, stride=2, padding=1)``: a downsampling 3x3 convolution."""
    return conv2d(x, w, stride=2, padding=1)


def conv2d_plain(x, w):
    """``conv2d(x, w)``: stride 1, no padding."""
    return conv2d(x, w)


def _conv_operands(s: Shape) -> tuple[Operand, ...]:
    fan_in = s["kh"] * s["kw"] * s["c"]
    return (
        Operand("x", (s["n"], s["h"], s["w"], s["c"])),
        Operand("w", (s["kh"], s["kw"], s["c"], s["f"]), _inv_sqrt(fan_in)),
    )


def _filter_fits(padding: int) -> Callable[[Shape], str | None]:
    def problem(s: Shape) -> str | None:
        if s["kh"] > s["h"] + 2 * padding or s["kw"] > s["w"] + 2 * padding:
            return f"expected a filter (kh, kw) no larger than the image padded by {padding}"
        return None

    return problem


def _rows_cols(*vectors: str) -> Callable[[Shape], tuple[Operand, ...]]:
    def operands(s: Shape) -> tuple[Operand, ...]:
        x = Operand("x", (s["rows"], s["cols"]))
        return (x, *(Operand(name, (s["cols"],)) for name in vectors))

    return operands


_ROWS_COLS = {"rows": (1, 17), "cols": (1, 32)}
_LAYERNORM_RANGES = {"rows": (1, 17), "cols": (4, 32)}
"""Layer normalization of 2 or 3 values is ill-conditioned: two nearly equal values leave
a centered row made of rounding error, which the normalization then scales up to 1 (with
2 values, one random bf16 input in a hundred gave errors above 40%). The catalogue
normalizes 4 values or more."""
_CONV_RANGES = {
    "n": (1, 2), "h": (1, 13), "w": (1, 13), "c": (1, 4), "f": (1, 7), "kh": (1, 3), "kw": (1, 3),
}  # fmt: skip
_CONV_DEFAULT = {"n": 2, "h": 16, "w": 12, "c": 4, "f": 8, "kh": 3, "kw": 3}


def _matmul_operands(s: Shape) -> tuple[Operand, ...]:
    return (
        Operand("a", (s["m"], s["k"])),
        Operand("b", (s["k"], s["n"]), _inv_sqrt(s["k"])),
    )


def _batch_matmul_operands(s: Shape) -> tuple[Operand, ...]:
    return (
        Operand("a", (s["batch"], s["m"], s["k"])),
        Operand("b", (s["batch"], s["k"], s["n"]), _inv_sqrt(s["k"])),
    )


def _attention_operands(s: Shape) -> tuple[Operand, ...]:
    return (
        Operand("q", (s["batch"], s["l"], s["d"])),
        Operand("k", (s["batch"], s["s"], s["d"])),
        Operand("v", (s["batch"], s["s"], s["dv"])),
    )


def _mlp2_operands(s: Shape) -> tuple[Operand, ...]:
    return (
        Operand("x", (s["m"], s["k"])),
        Operand("w1", (s["k"], s["hidden"]), _inv_sqrt(s["k"])),
        Operand("b1", (s["hidden"],)),
        Operand("w2", (s["hidden"], s["n"]), _inv_sqrt(s["hidden"])),
        Operand("b2", (s["n"],)),
    )


def _catalogue() -> dict[str, Kernel]:
    kernels = [
        Kernel(
            name="softmax",
            fn=frontend_nn.softmax,
            summary="softmax over the last axis",
            default_shape={"rows": 8, "cols": 32},
            operands=lambda s: (Operand("x", (s["rows"], s["cols"]), scale=2.0),),
            reference_fn=references.softmax,
            shape_ranges=_ROWS_COLS,
        ),
        Kernel(
            name="layernorm",
            fn=frontend_nn.layernorm,
            summary="layer normalization over the last axis",
            default_shape={"rows": 8, "cols": 32},
            operands=_rows_cols("gamma", "beta"),
            reference_fn=references.layernorm,
            shape_ranges=_LAYERNORM_RANGES,
        ),
        Kernel(
            name="rmsnorm",
            fn=frontend_nn.rmsnorm,
            summary="RMS normalization over the last axis",
            default_shape={"rows": 8, "cols": 32},
            operands=_rows_cols("gamma"),
            reference_fn=references.rmsnorm,
            shape_ranges=_ROWS_COLS,
        ),
        Kernel(
            name="matmul",
            fn=matmul,
            summary="a @ b (linalg.matmul)",
            default_shape={"m": 16, "k": 32, "n": 8},
            operands=_matmul_operands,
            reference_fn=references.matmul,
            shape_ranges={"m": (1, 17), "k": (1, 32), "n": (1, 17)},
        ),
        Kernel(
            name="batch_matmul",
            fn=matmul,
            summary="batched a @ b (linalg.batch_matmul)",
            default_shape={"batch": 2, "m": 8, "k": 16, "n": 12},
            operands=_batch_matmul_operands,
            reference_fn=references.matmul,
            shape_ranges={"batch": (1, 3), "m": (1, 13), "k": (1, 32), "n": (1, 13)},
        ),
        Kernel(
            name="conv2d",
            fn=conv2d_stride2_pad1,
            summary="NHWC input, HWCF filter, stride 2, padding 1",
            default_shape=_CONV_DEFAULT,
            operands=_conv_operands,
            reference_fn=partial(references.conv2d, stride=(2, 2), padding=(1, 1)),
            shape_ranges=_CONV_RANGES,
            shape_problem=_filter_fits(padding=1),
        ),
        Kernel(
            name="conv2d_plain",
            fn=conv2d_plain,
            summary="NHWC input, HWCF filter, stride 1, no padding",
            default_shape={**_CONV_DEFAULT, "h": 10, "w": 9},
            operands=_conv_operands,
            reference_fn=references.conv2d,
            shape_ranges=_CONV_RANGES,
            shape_problem=_filter_fits(padding=0),
        ),
        Kernel(
            name="attention",
            fn=frontend_nn.attention,
            summary="softmax(q @ k^T / sqrt(d)) @ v, batched",
            default_shape={"batch": 2, "l": 8, "s": 16, "d": 8, "dv": 8},
            operands=_attention_operands,
            reference_fn=references.attention,
            shape_ranges={"batch": (1, 3), "l": (1, 13), "s": (1, 17), "d": (1, 17), "dv": (1, 11)},
        ),
        Kernel(
            name="mlp2",
            fn=frontend_nn.mlp2,
            summary="gelu(x @ w1 + b1) @ w2 + b2",
            default_shape={"m": 8, "k": 16, "hidden": 32, "n": 8},
            operands=_mlp2_operands,
            reference_fn=references.mlp2,
            shape_ranges={"m": (1, 13), "k": (1, 16), "hidden": (1, 32), "n": (1, 11)},
        ),
    ]
    return {kernel.name: kernel for kernel in kernels}


KERNELS: dict[str, Kernel] = _catalogue()
"""Every kernel of the catalogue, by name."""

__all__ = [
    "KERNELS", "Kernel", "Operand", "Shape", "conv2d_plain", "conv2d_stride2_pad1", "matmul",
]  # fmt: skip
