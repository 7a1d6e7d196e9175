"""Checks for graded GPU kernels: run the student's kernel, then answer like a profiler.

A chapter 09 test launches the student's ``@gpu.kernel`` through ``tinycomp.gpu.launch``
(the DSL, the SIMT simulator with its sanitizer, the counters) and hands what came back
to these helpers. Each raises :class:`~tinycomp.grading.checks.GradingFailure` with a
message in the terms a GPU engineer uses:

* :func:`launch_kernel`: a kernel the DSL cannot read, a launch that breaks a limit, or a
  sanitizer report becomes feedback (the sanitizer's message as it is);
* :func:`who_wrote`: the block, warp, lane and source line that last stored one element
  of an output array (it traces the warps of the blocks that may have written it);
* :func:`expect_per_block_at_most`: a per-block counter against its budget, naming the
  worst block and how far over it is;
* :func:`expect_no_bank_conflicts`: shared wavefronts equal to shared requests.

>>> import numpy as np
>>> from tinycomp.targets.gpu_sim.counters import KernelCounters
>>> counters = KernelCounters.zeros(np.arange(2), 256)
>>> counters.add("barriers", np.array([2, 8]))
>>> try:
...     expect_per_block_at_most("block_sum", counters, (2, 1, 1), "barriers", 2, "barriers")
... except GradingFailure as failure:
...     print(failure)
block_sum: block (1, 0, 0) ran 8 barriers, the budget is 2: 6 too many
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tinycomp.frontend.simt import Kernel, KernelSyntaxError
from tinycomp.gpu.launch import LaunchResult, launch
from tinycomp.grading.checks import GradingFailure
from tinycomp.grading.formatting import describe_value
from tinycomp.targets.gpu_sim.counters import KernelCounters
from tinycomp.targets.gpu_sim.errors import SimulatorError, format_shape, thread_text

__all__ = [
    "block_coordinates",
    "expect_kernel",
    "expect_no_bank_conflicts",
    "expect_per_block_at_most",
    "launch_kernel",
    "who_wrote",
]

Dims = tuple[int, int, int]
VECTOR_WIDTH = re.compile(r"vector<(\d+)x")


def expect_kernel(what: str, found: Any) -> Kernel:
    """``found`` itself if it is a ``@gpu.kernel``; otherwise a failure saying what it is.

    >>> try:
    ...     expect_kernel("block_sum_kernel()", 42)
    ... except GradingFailure as failure:
    ...     print(failure)
    block_sum_kernel(): expected a @gpu.kernel function, found int 42
    """
    if not isinstance(found, Kernel):
        raise GradingFailure(
            f"{what}: expected a @gpu.kernel function, found {describe_value(found)}"
        )
    return found


def launch_kernel(
    what: str,
    kernel: Kernel,
    grid: int | Sequence[int],
    block: int | Sequence[int],
    args: Sequence[Any],
    preset: str = "classroom",
) -> LaunchResult:
    """``gpu.launch`` with the sanitizer on; what the DSL or the simulator reports
    becomes a failure that quotes it.

    >>> from tinycomp.frontend import simt as gpu
    >>> @gpu.kernel
    ... def past_the_end(out):
    ...     out[gpu.thread_idx.x + 1] = 1.0
    >>> try:
    ...     launch_kernel("past_the_end", past_the_end, 1, 32, [np.zeros(32, np.float32)])
    ... except GradingFailure as failure:
    ...     print(str(failure)[:52])
    past_the_end: the sanitizer stopped the launch: kern
    """
    try:
        return launch(kernel, grid, block, list(args), preset, sanitize=True)
    except KernelSyntaxError as error:
        raise GradingFailure(f"{what}: the DSL cannot translate the kernel: {error}") from None
    except SimulatorError as error:
        raise GradingFailure(f"{what}: the sanitizer stopped the launch: {error}") from None


def block_coordinates(linear: int, grid: Dims) -> Dims:
    """``(x, y, z)`` of the block whose linear id is ``linear`` (``x + y*gx + z*gx*gy``).

    >>> block_coordinates(5, (2, 3, 1))
    (1, 2, 0)
    """
    gx, gy, _ = grid
    return linear % gx, (linear // gx) % gy, linear // (gx * gy)


def who_wrote(
    kernel: Kernel,
    grid: Dims,
    block: Dims,
    make_args: Callable[[], Sequence[Any]],
    array: str,
    flat_index: int,
    blocks: Sequence[int],
) -> str:
    """Which thread last stored element ``flat_index`` of the argument ``array``, among
    the warps of the blocks ``blocks`` (linear ids): ``"written by block (...), warp ...,
    lane ... (thread (...)) at line L"``, or a sentence saying none of them stored it.

    ``make_args`` gives fresh launch arguments (each traced warp is a launch of its own).

    >>> from tinycomp.frontend import simt as gpu
    >>> @gpu.kernel
    ... def fill(out):
    ...     out[gpu.thread_idx.x] = 1.0
    >>> who_wrote(fill, (1, 1, 1), (64, 1, 1), lambda: [np.zeros(64, np.float32)], "out", 40, [0])
    'written by block (0, 0, 0), warp 1, lane 8 (thread (40, 0, 0)) at line 3'
    """
    threads = block[0] * block[1] * block[2]
    warps = -(-threads // 32)
    found = None
    for linear in blocks:
        for warp in range(warps):
            try:
                result = launch(kernel, grid, block, list(make_args()), trace_warp=(linear, warp))
            except (SimulatorError, KernelSyntaxError):
                return "the traced launch stopped, so the writer is unknown"
            assert result.trace is not None
            for event in result.trace.memory_events("global"):
                if event.array != array or "store" not in event.op_name:
                    continue
                lane = _lane_storing(event, flat_index)
                if lane is not None:
                    found = (event.step, linear, warp, lane, event.line)
    if found is None:
        owners = ", ".join(format_shape(block_coordinates(b, grid)) for b in blocks)
        return f"no thread of block {owners} stored to it"
    _, linear, warp, lane, line = found
    thread_linear = warp * 32 + lane
    thread = (thread_linear % block[0], (thread_linear // block[0]) % block[1],
              thread_linear // (block[0] * block[1]))  # fmt: skip
    where = thread_text(block_coordinates(linear, grid), warp, lane, thread)
    return f"written by {where} at line {line}"


def _lane_storing(event: Any, flat_index: int) -> int | None:
    """The last lane of a traced store whose bytes cover element ``flat_index``."""
    width_match = VECTOR_WIDTH.search(event.text)
    width = int(width_match.group(1)) if width_match else 1
    target = flat_index * event.element_bytes
    starts = event.byte_addresses
    covers = event.active & (starts >= 0) & (starts <= target)
    covers &= target < starts + width * event.element_bytes
    lanes = np.flatnonzero(covers)
    return int(lanes[-1]) if len(lanes) else None


def expect_per_block_at_most(
    what: str,
    counters: KernelCounters,
    grid: Dims,
    name: str,
    budget: int | np.ndarray,
    unit: str,
) -> None:
    """Every simulated block's counter ``name`` is at most ``budget`` (a number, or one per
    block); otherwise name the block most over budget (see the module's example).

    >>> c = KernelCounters.zeros(np.arange(2), 32)
    >>> expect_per_block_at_most("k", c, (2, 1, 1), "barriers", 1, "barriers")
    """
    values = counters.per_block[name]
    limits = np.broadcast_to(np.asarray(budget, dtype=np.int64), values.shape)
    over = values - limits
    if (over <= 0).all():
        return
    worst = int(np.argmax(over))
    where = format_shape(block_coordinates(int(counters.block_ids[worst]), grid))
    raise GradingFailure(
        f"{what}: block {where} ran {int(values[worst])} {unit}, the budget is "
        f"{int(limits[worst])}: {int(over[worst])} too many"
    )


def expect_no_bank_conflicts(what: str, counters: KernelCounters, grid: Dims) -> None:
    """Shared loads and stores each take one wavefront per request in every block.

    >>> c = KernelCounters.zeros(np.arange(1), 32)
    >>> c.add("shared_load_requests", 4)
    >>> c.add("shared_load_wavefronts", 128)
    >>> try:
    ...     expect_no_bank_conflicts("transpose", c, (1, 1, 1))
    ... except GradingFailure as failure:
    ...     print(failure)
    transpose: block (0, 0, 0) has bank conflicts: its 4 shared load requests took 128 wavefronts (degree 32.0); the budget is one wavefront per request
    """  # noqa: E501
    for direction in ("load", "store"):
        requests = counters.per_block[f"shared_{direction}_requests"]
        waves = counters.per_block[f"shared_{direction}_wavefronts"]
        extra = waves - requests
        if (extra <= 0).all():
            continue
        worst = int(np.argmax(extra))
        where = format_shape(block_coordinates(int(counters.block_ids[worst]), grid))
        degree = waves[worst] / requests[worst]
        raise GradingFailure(
            f"{what}: block {where} has bank conflicts: its {int(requests[worst])} shared "
            f"{direction} requests took {int(waves[worst])} wavefronts (degree {degree:.1f}); "
            "the budget is one wavefront per request"
        )
