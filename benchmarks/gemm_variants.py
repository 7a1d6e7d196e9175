"""The GEMM staircase's steps: one ``tinycomp.compile`` call, a different ``CompileOptions`` each.

``benchmarks/gemm.py`` times ``a @ b`` compiled for the CPU with each of these options
(chapter 08, section 7, shows them), slowest first; each step is one more thing the
compiler knows about the machine:

1. ``naive``: the CPU target's strategies off: three loops ``(i, j, k)`` with ``k``
   innermost, so LLVM sees a chain of dependent scalar adds and a column walk through
   B; it cannot vectorize it without reassociating the sum.
2. ``tiled``: the loops tiled (``tile_sizes``), the point loops interchanged to
   ``(i, k, j)`` after bufferization (``InterchangePass``) so that ``j`` is innermost,
   and the BLIS strategy off; the ``vector`` strategy widens ``j`` to the machine's SIMD
   width with ``contract=True`` (``a * b + c`` becomes ``vector.fma``). Each vector
   iteration loads a row piece of B and of C, does one FMA, stores C: the C traffic is
   what still limits it.
3. ``blocked``: the default options: the ``blis`` strategy packs A and B and runs the
   register-blocked micro-kernel, so C stays in registers for KC steps.

``kc_options`` is the blocked step with the BLIS pass given another KC by hand, and
``options_text`` writes options as the Python that makes them (the benchmark's JSON
records it per step).

>>> import numpy as np, tinycomp
>>> a = np.random.default_rng(0).standard_normal((24, 40)).astype(np.float32)
>>> b = np.random.default_rng(1).standard_normal((40, 48)).astype(np.float32)
>>> program = tinycomp.compile(lambda a, b: a @ b, a, b, target="cpu",
...                            options=staircase_options()["tiled"])
>>> bool(np.allclose(program(a, b), a @ b, rtol=1e-5, atol=1e-4))
True
>>> print(options_text(staircase_options()["naive"]))
CompileOptions(strategies={'blis': False, 'vector': False})
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import fields

from tinycomp.compiler import CompileOptions
from tinycomp.passes.interchange import InterchangePass
from tinycomp.passes.pass_base import Pass
from tinycomp.targets.cpu.blis import choose_blocking
from tinycomp.targets.cpu.contraction_to_blis import CpuContractionToBlisPass
from tinycomp.targets.cpu.machine import CpuMachine

__all__ = ["TILED_TILE_SIZES", "kc_options", "options_text", "staircase_options"]

TILED_TILE_SIZES = (8, 256, 64)
"""Tile sizes of the ``(i, j, k)`` loops for the tiled step: 8 rows x 256 columns of C
(8 KiB) stay in L1 while a 64 x 256 tile of B (64 KiB) comes from L2 (the best of a
few tried at 512 and 1024 on a Zen 5 core)."""


def staircase_options() -> dict[str, CompileOptions]:
    """Steps 1-3: the options of each ``compile`` call, slowest first.

    >>> print(options_text(staircase_options()["tiled"]))
    CompileOptions(tile_sizes=(8, 256, 64), extra_passes={'bufferized': [InterchangePass((0, 2, 1))]}, strategies={'blis': False})
    """  # noqa: E501
    return {
        "naive": CompileOptions(strategies={"blis": False, "vector": False}),
        "tiled": CompileOptions(
            tile_sizes=TILED_TILE_SIZES,
            extra_passes={"bufferized": [InterchangePass((0, 2, 1))]},
            strategies={"blis": False},
        ),
        "blocked": CompileOptions(),
    }


def kc_options(machine: CpuMachine, kc: int) -> CompileOptions:
    """The blocked step with the BLIS pass given a blocking of depth ``kc`` by hand
    (MC, NC derived from it): the strategy off, its pass added where it runs."""
    blocking = choose_blocking(machine, kc=kc)
    blis = CpuContractionToBlisPass(blocking=blocking)
    return CompileOptions(strategies={"blis": False}, extra_passes={"bufferized": [blis]})


def _pass_text(pass_: Pass) -> str:
    if isinstance(pass_, InterchangePass):
        return f"InterchangePass({pass_.permutation})"
    if isinstance(pass_, CpuContractionToBlisPass) and pass_.blocking is not None:
        return f"CpuContractionToBlisPass(blocking={pass_.blocking!r})"
    return f"{type(pass_).__name__}(...)"


def options_text(options: CompileOptions) -> str:
    """``options`` as the Python that makes it, naming only what differs from the default.

    >>> options_text(CompileOptions())
    'CompileOptions()'
    >>> options_text(CompileOptions(strategies={"blis": False, "vector": False}))
    "CompileOptions(strategies={'blis': False, 'vector': False})"
    """
    default = CompileOptions()
    parts = []
    for field in fields(CompileOptions):
        value = getattr(options, field.name)
        if value == getattr(default, field.name):
            continue
        if field.name == "extra_passes":
            stages = ", ".join(
                f"{stage!r}: [{', '.join(_pass_text(p) for p in passes)}]"
                for stage, passes in value.items()
            )
            parts.append(f"extra_passes={{{stages}}}")
        elif isinstance(value, Mapping):
            parts.append(f"{field.name}={dict(value)!r}")
        else:
            parts.append(f"{field.name}={value!r}")
    return f"CompileOptions({', '.join(parts)})"
