"""``launch(..., device=...)`` and compiled programs on a real GPU.

1. ``on_device``: run the kernel on the device (arrays in place), then hand the
   simulator copies of the arguments and a few blocks to sample, so the models
   (counters, occupancy, estimate) still describe the launch beside the measured time.
2. ``run_program(program, *x, device="cuda")``: a ``tinycomp.compile(...,
   target="gpu-sim")`` program's host function in the interpreter, each
   ``gpu.launch_func`` on the device; ``device="sim"`` is the program's own call.

>>> import numpy as np, tinycomp
>>> x = np.random.default_rng(1).standard_normal((4, 32)).astype(np.float32)
>>> program = tinycomp.compile(lambda x: x * 2.0 + 1.0, x, target="gpu-sim")
>>> bool(np.allclose(run_program(program, x, device="sim"), x * 2 + 1))
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tinycomp.dialects.gpu import GPUFuncOp
from tinycomp.gpu.devices import DEVICES, DeviceRun, run_on_device
from tinycomp.interp import run_bufferized
from tinycomp.interp.memory import MemRefValue, read_all
from tinycomp.interp.rules import ALL_RULES
from tinycomp.ir import Operation

__all__ = ["on_device", "run_program"]

MODEL_BLOCKS = 8
"""Blocks the simulator samples for the models of a launch that ran on a device."""


def _dims(dims: int | Sequence[int]) -> tuple[int, int, int]:
    values = [dims] if isinstance(dims, int) else list(dims)
    return tuple([*map(int, values), 1, 1][:3])  # type: ignore[return-value]


def on_device(
    device: str,
    module: Operation,
    func: GPUFuncOp,
    grid: int | Sequence[int],
    block: int | Sequence[int],
    args: list[Any],
    repeats: int = 1,
) -> tuple[DeviceRun, list[Any], int, bool]:
    """Step 1: the device's run, the simulator's arguments, blocks to sample, sanitize.

    >>> on_device("npu", None, None, 1, 1, [])
    Traceback (most recent call last):
    ...
    ValueError: launch: device='npu': expected one of sim, cuda, hip
    """
    if device not in DEVICES:
        raise ValueError(f"launch: device={device!r}: expected one of {', '.join(DEVICES)}")
    copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    measured = run_on_device(
        device, module, func.sym_name, _dims(grid), _dims(block), args, repeats=repeats
    )
    blocks = int(np.prod(_dims(grid)))
    return measured, copies, min(blocks, MODEL_BLOCKS), False


def run_program(program: Any, *arrays: Any, device: str = "cuda", repeats: int = 1) -> Any:
    """Step 2: call a ``gpu-sim`` program with its kernels on ``device``; its outputs.
    ``program.device_runs`` keeps one ``(kernel, DeviceRun)`` per launch."""
    if device == "sim":
        return program(*arrays)
    native = getattr(program, "native", program)
    runs: list[tuple[str, DeviceRun]] = []

    def launch_rule(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
        symbol = op.attributes["kernel"]
        holder = interp.symbols.get(symbol.root)
        kernel = next(
            inner
            for inner in holder.regions[0].blocks[0].ops
            if isinstance(inner, GPUFuncOp) and inner.sym_name == symbol.nested[0]
        )
        grid = tuple(int(v) for v in operands[0:3])
        block = tuple(int(v) for v in operands[3:6])
        given = operands[len(operands) - len(op.kernel_operands) :]
        args: list[Any] = []
        memrefs = []
        for position, value in enumerate(given):
            if isinstance(value, MemRefValue):
                data, _ = read_all(op, value, f"kernel operand #{position}")
                args.append(np.ascontiguousarray(data))
                memrefs.append((value, args[-1]))
            else:
                args.append(value)
        measured = run_on_device(
            device, holder, kernel.sym_name, grid, block, args, repeats=repeats
        )
        for memref, array in memrefs:
            positions = memref.linear_indices()
            memref.buffer.data[positions] = array
            memref.buffer.initialized[positions] = True
        runs.append((kernel.sym_name, measured))
        return []

    rules = {**ALL_RULES, "gpu.launch_func": launch_rule}
    result = run_bufferized(
        native.module, *arrays, entry=native.entry, output_shapes=native.output_shapes, rules=rules
    )
    program.device_runs = runs
    return result
