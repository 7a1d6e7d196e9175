"""Checks for graded NPU kernels: run the student's kernel on the simulated Da Vinci
chip, then answer like its profiler.

A chapter 11 test launches an ``@npu.kernel`` through ``tinycomp.npu.launch`` (the DSL,
every core on the interpreter with the sanitizer on, the per-pipe schedule) and hands
what came back to these helpers. They speak the terms of an Ascend C programmer:

* :func:`launch_npu_kernel`: a kernel the DSL cannot trace, a launch that breaks a limit
  of the preset, or a sanitizer report becomes a failure; :func:`sanitizer_feedback`
  says what the kind of report means, then quotes the sanitizer (the op, its line, the
  core, both pipes and the missing set / wait; for a deadlock, the waits of the first
  stuck core);
* :func:`expect_flags_balanced`: every ``set_flag`` the kernel issued was waited for
  by the time it ended, read from each core's instructions (the sanitizer reports it
  too; this is the grader's second line);
* the cycle budget and what the pipes did are in :mod:`tinycomp.grading.npu_timeline_checks`;
* :func:`ub_bill`: the UB bytes the queues of a streaming kernel take, as a sentence;
* :func:`nz_slice_counter_example`: a wrong L1 -> L0 copy of an NZ panel, told as the
  first fractal it puts in the wrong place.

>>> print(format_bytes(3 * 2 * 4096 * 4))
96 KiB
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from tinycomp.frontend.npu import NpuKernel, NpuKernelError
from tinycomp.grading.checks import GradingFailure
from tinycomp.grading.formatting import describe_value
from tinycomp.npu import NpuLaunchResult, NpuSanitizerError, NpuSimulatorError, launch
from tinycomp.targets.npu_sim.nz_layout import M0, to_nz
from tinycomp.targets.npu_sim.preset import NpuPreset, lookup_npu_preset

__all__ = [
    "expect_flags_balanced",
    "expect_npu_kernel",
    "expect_own_kernel",
    "format_bytes",
    "launch_npu_kernel",
    "nz_slice_counter_example",
    "sanitizer_feedback",
    "ub_bill",
    "unbalanced_flags",
]


MEANING = {
    "hazard": "two pipes touch the same bytes and no flag orders them (a flag is missing)",
    "deadlock": "the kernel deadlocks: a pipe waits for a flag that nothing sets",
    "event": "a flag is set again before its wait took it, is never waited on, or has an "
    "event id out of range",
    "overflow": "the buffers do not fit the on-chip memory",
    "misaligned": "a DMA length or an on-chip address is not a multiple of 32 bytes",
    "out-of-bounds": "a copy or a vector op reaches past the end of its buffer",
    "uninitialized": "an op reads on-chip bytes that nothing wrote",
    "wrong-core": "an op runs on a core that has no such pipe or buffer",
    "repeat": "a vector instruction's repeats or mask are out of range",
}
"""What each kind of sanitizer report means, in one clause."""


# -- running a kernel ----------------------------------------------------------------------
def expect_npu_kernel(what: str, found: Any) -> NpuKernel:
    """``found`` itself if it is an ``@npu.kernel``; otherwise a failure saying what it is.

    >>> try:
    ...     expect_npu_kernel("scaled_add", len)
    ... except GradingFailure as failure:
    ...     print(failure)
    scaled_add: expected an @npu.kernel function, found builtin_function_or_method <built-in function len>
    """  # noqa: E501
    if not isinstance(found, NpuKernel):
        raise GradingFailure(
            f"{what}: expected an @npu.kernel function, found {describe_value(found)}"
        )
    return found


def expect_own_kernel(what: str, kernel: NpuKernel, impl: ModuleType) -> None:
    """The kernel's Python function is defined in the student's file ``impl``.

    >>> import types
    >>> from tinycomp.frontend.npu import kernel
    >>> borrowed = kernel(lambda x: None)
    >>> try:
    ...     expect_own_kernel("scaled_add", borrowed, types.SimpleNamespace(__file__="mine.py"))
    ... except GradingFailure as failure:
    ...     print(str(failure)[:60])
    scaled_add: the kernel is not defined in your file; write it
    """
    defined = Path(kernel.function.__code__.co_filename).resolve()
    if defined != Path(impl.__file__).resolve():
        raise GradingFailure(
            f"{what}: the kernel is not defined in your file; write it yourself (it comes "
            f"from {defined.name})"
        )


def launch_npu_kernel(
    what: str,
    kernel: NpuKernel,
    args: Sequence[Any],
    block_num: int,
    preset: str | NpuPreset = "small",
) -> NpuLaunchResult:
    """``npu.launch`` with the sanitizer on; a kernel the DSL cannot trace, a launch the
    preset refuses or a sanitizer report becomes a failure that quotes it.

    >>> from tinycomp import npu
    >>> @npu.kernel
    ... def unsynced(x):
    ...     pipe = npu.TPipe()
    ...     buf = npu.TBuf()
    ...     pipe.init_buffer(buf, 512)
    ...     t = buf.get(np.float16)
    ...     npu.data_copy(t, x, 256)
    ...     npu.muls(t, t, 2.0, 256)
    >>> try:
    ...     launch_npu_kernel("unsynced", unsynced, [np.ones(256, np.float16)], 1)
    ... except GradingFailure as failure:
    ...     head, _, report = str(failure).partition(" The sanitizer: ")
    ...     print(head, report[:25], sep="\\n")
    unsynced: two pipes touch the same bytes and no flag orders them (a flag is missing).
    'npu.vmuls' at <doctest t
    """
    try:
        return launch(kernel, tuple(args), block_num=block_num, preset=preset)
    except NpuKernelError as error:
        raise GradingFailure(f"{what}: the NPU DSL cannot trace the kernel: {error}") from None
    except NpuSanitizerError as error:
        raise GradingFailure(f"{what}: {sanitizer_feedback(error)}") from None
    except NpuSimulatorError as error:
        raise GradingFailure(f"{what}: the simulator refused the launch: {error}") from None


def sanitizer_feedback(error: NpuSanitizerError) -> str:
    """What a sanitizer report means, then the report itself; a deadlock's list of stuck
    pipes is cut to the first stuck core (the others are counted).

    >>> report = NpuSanitizerError("deadlock", "deadlock: these pipes wait for a flag that "
    ...     "is never set:\\n  AIV 0.0 pipe MTE2: wait_flag MTE3->MTE2 #0 (line 23)\\n"
    ...     "  AIV 0.1 pipe MTE2: wait_flag MTE3->MTE2 #0 (line 23)\\nno array was changed")
    >>> print(sanitizer_feedback(report))
    the kernel deadlocks: a pipe waits for a flag that nothing sets. The sanitizer: deadlock: these pipes wait for a flag that is never set:
      AIV 0.0 pipe MTE2: wait_flag MTE3->MTE2 #0 (line 23)
      (1 more core stuck the same way)
    """  # noqa: E501
    message = str(error)
    if error.kind == "deadlock":
        message = _first_stuck_core(message)
    meaning = MEANING.get(error.kind, f"the sanitizer stopped the launch ({error.kind})")
    return f"{meaning}. The sanitizer: {message}"


def _first_stuck_core(message: str) -> str:
    head, *lines = message.splitlines()
    stuck = [line for line in lines if line.startswith("  ")]
    cores = list(dict.fromkeys(line.split(" pipe ")[0].strip() for line in stuck))
    if len(cores) <= 1:
        return message
    first = [line for line in stuck if line.strip().startswith(cores[0] + " ")]
    others = len(cores) - 1
    more = f"  ({others} more core{'s' if others > 1 else ''} stuck the same way)"
    return "\n".join([head, *first, more])


# -- flags -----------------------------------------------------------------------------------
def unbalanced_flags(result: NpuLaunchResult) -> list[str]:
    """Each flag some core set more often than it waited for it, as a phrase.

    A kernel must end with every flag it set taken by a wait: the next kernel on the
    core would find it set (Ascend C pairs every ``SetFlag`` with a ``WaitFlag``).
    """
    found = []
    for core in result.run.cores:
        balance: Counter = Counter()
        for instruction in core.stream:
            if instruction.kind in ("set", "wait") and len(instruction.flag) == 3:
                balance[instruction.flag] += 1 if instruction.kind == "set" else -1
        for (src, dst, event), extra in sorted(balance.items()):
            if extra > 0:
                times = "once" if extra == 1 else f"{extra} times"
                found.append(f"set_flag {src}->{dst} #{event} on {core.name}, set {times} more "
                             "than it was waited for")  # fmt: skip
    return found


def expect_flags_balanced(what: str, result: NpuLaunchResult) -> None:
    """Fail if the kernel ended with a flag set and never waited for (see
    :func:`unbalanced_flags`)."""
    left = unbalanced_flags(result)
    if left:
        extra = f" (and {len(left) - 1} more)" if len(left) > 1 else ""
        raise GradingFailure(
            f"{what}: the kernel ends with a flag still set: {left[0]}{extra}. Every "
            "set_flag needs its wait_flag before the kernel returns, or the next kernel on "
            "the core finds the flag set: wait once more for each event you set ahead"
        )


# -- UB ----------------------------------------------------------------------------------------
def format_bytes(nbytes: int) -> str:
    """Bytes as people write them: whole KiB when they are, else bytes and KiB.

    >>> format_bytes(98304), format_bytes(28800), format_bytes(512)
    ('96 KiB', '28800 bytes (28.1 KiB)', '512 bytes')
    """
    if nbytes and nbytes % 1024 == 0:
        return f"{nbytes // 1024} KiB"
    if nbytes < 1024:
        return f"{nbytes} bytes"
    return f"{nbytes} bytes ({nbytes / 1024:.1f} KiB)"


def ub_bill(
    tile: int, dtype: Any, queues: int, buffer_num: int, preset: str | NpuPreset
) -> tuple[int, str]:
    """The UB bytes ``queues`` queues of ``buffer_num`` buffers of ``tile`` elements
    take, and the sum as a sentence against the preset's UB.

    >>> ub_bill(4096, np.float32, 3, 2, "small")[1]
    'tile 4096 x float32 x 3 queues x 2 buffers = 96 KiB > UB 32 KiB of small'
    >>> ub_bill(1024, np.float32, 3, 2, "small")[1]
    'tile 1024 x float32 x 3 queues x 2 buffers = 24 KiB <= UB 32 KiB of small'
    """
    chip = lookup_npu_preset(preset)
    element = np.dtype(dtype)
    per_buffer = -(-tile * element.itemsize // 32) * 32
    total = per_buffer * queues * buffer_num
    ub = chip.buffer_bytes("UB")
    relation = ">" if total > ub else "<="
    return total, (
        f"tile {tile} x {element} x {queues} queues x {buffer_num} buffers = "
        f"{format_bytes(total)} {relation} UB {format_bytes(ub)} of {chip.name}"
    )


# -- NZ slices ---------------------------------------------------------------------------------
def _describe_block(ids: np.ndarray, columns: int, name: str) -> str:
    """Which part of a ``name`` panel (``columns`` wide) the element ids ``ids`` are."""
    if (ids < 0).any():
        return "elements from outside the panel"
    rows, cols = np.divmod(ids, columns)
    r0, c0 = int(rows.min()), int(cols.min())
    whole = (
        r0 % M0 == 0 and c0 % M0 == 0 and ids.size == M0 * M0
        and (ids.reshape(M0, M0) == (r0 + np.arange(M0))[:, None] * columns + c0
             + np.arange(M0)).all()
    )  # fmt: skip
    span = f"{name} panel rows {r0}-{int(rows.max())}, columns {c0}-{int(cols.max())}"
    return span if whole else f"elements of {span} (not one whole fractal, in order)"


def nz_slice_counter_example(
    operand: str,
    params: tuple[int, int, int, int],
    step: int,
    rows: int,
    cols: int,
    l0_k: int,
) -> str | None:
    """The first fractal a wrong ``load_data`` puts in the wrong place, or ``None`` if the
    copy ``(offset, n_burst, burst_len, src_stride)`` moves k-slice ``step`` right.

    ``operand`` is ``"A"`` (a ``rows x cols`` panel whose k-slice is ``l0_k`` columns) or
    ``"B"`` (a panel whose k-slice is ``l0_k`` rows); both are f16 in NZ in L1 and land in
    NZ in L0A / L0B. The copy is replayed on a panel of element ids.

    >>> print(nz_slice_counter_example("B", (512, 4, 512, 512), 1, 128, 64, 32))
    fractal 2 of L0B (column block 1, k block 0), which should hold B panel rows 32-47, columns 16-31, holds B panel rows 64-79, columns 0-15; 6 of the slice's 8 fractals are wrong. In L1 the B panel is NZ [4, 128, 16]: column block j is its 128 rows of 16, 2048 elements from element 2048 * j; L0B wants NZ [4, 32, 16]
    >>> nz_slice_counter_example("B", (512, 4, 512, 2048), 1, 128, 64, 32) is None
    True
    """  # noqa: E501
    offset, n_burst, burst_len, src_stride = params
    ids = np.arange(rows * cols, dtype=np.int64).reshape(rows, cols)
    panel = to_nz(ids, columns=M0).reshape(-1)
    lo, hi = step * l0_k, (step + 1) * l0_k
    wanted_block = ids[:, lo:hi] if operand == "A" else ids[lo:hi, :]
    wanted = to_nz(wanted_block, columns=M0).reshape(-1)
    target = "L0A" if operand == "A" else "L0B"
    positions = offset + np.arange(n_burst)[:, None] * src_stride + np.arange(burst_len)
    layout = (
        f"In L1 the {operand} panel is NZ [{cols // M0}, {rows}, {M0}]: column block j is "
        f"its {rows} rows of {M0}, {rows * M0} elements from element {rows * M0} * j; "
        f"{target} wants NZ [{wanted_block.shape[1] // M0}, {wanted_block.shape[0]}, {M0}]"
    )
    if positions.size != wanted.size:
        return (
            f"the copy moves {n_burst} x {burst_len} = {positions.size} elements, the slice "
            f"is {wanted_block.shape[0]} x {wanted_block.shape[1]} = {wanted.size}. {layout}"
        )
    flat = positions.reshape(-1)
    got = np.where((flat >= 0) & (flat < panel.size), panel[np.clip(flat, 0, panel.size - 1)], -1)
    if (got == wanted).all():
        return None
    fractal_size = M0 * M0
    wrong = [
        f for f in range(wanted.size // fractal_size)
        if not (got[f * fractal_size:(f + 1) * fractal_size]
                == wanted[f * fractal_size:(f + 1) * fractal_size]).all()
    ]  # fmt: skip
    first = wrong[0]
    row_blocks = wanted_block.shape[0] // M0
    col_block, row_block = divmod(first, row_blocks)
    if operand == "A":
        where = f"k block {col_block}, row block {row_block}"
    else:
        where = f"column block {col_block}, k block {row_block}"
    piece = slice(first * fractal_size, (first + 1) * fractal_size)
    should = _describe_block(wanted[piece], cols, operand)
    holds = _describe_block(got[piece], cols, operand)
    total = wanted.size // fractal_size
    return (
        f"fractal {first} of {target} ({where}), which should hold {should}, holds {holds}; "
        f"{len(wrong)} of the slice's {total} fractals are wrong. {layout}"
    )
