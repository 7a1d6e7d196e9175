"""``simulate``: run an npu kernel (IR) on the simulated chip, in four steps.

1. **Find the kernel.** A ``func.func`` with ``npu.kernel_type``; a MIX kernel is two
   functions, ``npu.core = "aic"`` and ``"aiv"``, that share ``npu.kernel``. Check the
   launch: ``block_num`` between 1 and the AI cores the kernel type can use (vector
   cores for ``aiv``, cube cores otherwise), every op on a core that has its pipe (no
   ``mmad`` in a vector kernel), the arguments' count, sizes and dtypes.
2. **Run every core** (one AIC and / or one or two AIVs per block) with the reference
   interpreter and the npu rules, on copies of the arrays (GM is shared by all cores,
   as on the chip); cores that exchange cross-core flags take turns (``cross_core.py``).
3. **Time it**: ``schedule.py`` puts every instruction on its pipe, with the sanitizer.
4. **Write back** the arrays, only when everything succeeded, and return the
   ``NpuRun``.

>>> import numpy as np
>>> from tinycomp.ir import parse
>>> module = parse('''
... func.func @double(%x: memref<256xf16>) attributes {npu.core = "aiv", npu.kernel_type = "aiv"} {
...   %c0 = arith.constant 0 : index
...   %e0 = arith.constant 0 : index
...   %ub = "npu.alloc"() {offset = 0 : i64} : () -> memref<256xf16, "ub">
...   "npu.copy"(%x, %ub, %c0, %c0) {burst_len = 256 : i64}
...       : (memref<256xf16>, memref<256xf16, "ub">, index, index) -> ()
...   "npu.set_flag"(%e0) {src = "MTE2", dst = "V"} : (index) -> ()
...   "npu.wait_flag"(%e0) {src = "MTE2", dst = "V"} : (index) -> ()
...   "npu.vadd"(%ub, %ub, %ub, %c0, %c0, %c0) {repeat = 2 : i64}
...       : (memref<256xf16, "ub">, memref<256xf16, "ub">,
...          memref<256xf16, "ub">, index, index, index) -> ()
...   "npu.set_flag"(%e0) {src = "V", dst = "MTE3"} : (index) -> ()
...   "npu.wait_flag"(%e0) {src = "V", dst = "MTE3"} : (index) -> ()
...   "npu.copy"(%ub, %x, %c0, %c0) {burst_len = 256 : i64}
...       : (memref<256xf16, "ub">, memref<256xf16>, index, index) -> ()
...   return
... }''')
>>> x = np.arange(256, dtype=np.float16)
>>> run = simulate(module, [x], block_num=1, preset="small")
>>> float(x[255]), run.timeline.pipes("AIV 0.0")
(510.0, ('S', 'MTE2', 'V', 'MTE3'))
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tinycomp.dialects.npu.base import NpuOp
from tinycomp.interp.arguments import to_runtime_value
from tinycomp.interp.rules import ALL_RULES
from tinycomp.ir.attributes import StringAttr
from tinycomp.ir.location import describe_location
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import MemRefType
from tinycomp.targets.npu_sim.core_context import CoreContext, CoreInterpreter
from tinycomp.targets.npu_sim.cross_core import CrossCoreFlags, Turns, run_cores, scopes_of
from tinycomp.targets.npu_sim.errors import (
    UNCHANGED,
    NpuArgumentError,
    NpuLaunchError,
    sanitizer_error,
)
from tinycomp.targets.npu_sim.preset import NpuPreset, lookup_npu_preset
from tinycomp.targets.npu_sim.rules_compute import COMPUTE_RULES
from tinycomp.targets.npu_sim.rules_data import DATA_RULES
from tinycomp.targets.npu_sim.rules_sync import SYNC_RULES, pipes_of
from tinycomp.targets.npu_sim.schedule import Schedule, schedule

__all__ = ["KERNEL_TYPES", "NPU_RULES", "NpuRun", "find_kernel", "simulate"]

KERNEL_TYPES = ("aiv", "aic", "mix_1_1", "mix_1_2")
NPU_RULES = {**ALL_RULES, **DATA_RULES, **COMPUTE_RULES, **SYNC_RULES}
"""The interpreter's rules with the npu dialect's."""


@dataclass(frozen=True)
class NpuRun:
    """What ``simulate`` returns: the kernel type, the cores that ran, the schedule."""

    kernel_type: str
    block_num: int
    preset: NpuPreset
    cores: tuple[CoreContext, ...]
    schedule: Schedule

    @property
    def timeline(self):
        """The per-pipe ``Timeline``."""
        return self.schedule.timeline


def _string(op: Operation, name: str) -> str | None:
    attr = op.attributes.get(name)
    return attr.value if isinstance(attr, StringAttr) else None


def find_kernel(module: Operation, name: str | None = None) -> tuple[str, dict[str, Operation]]:
    """The kernel type and its functions by core kind (``{"aiv": func}``...)."""
    kernels: dict[str, dict[str, Operation]] = {}
    types: dict[str, str] = {}
    for op in module.regions[0].blocks[0]:
        kernel_type = _string(op, "npu.kernel_type")
        if op.name != "func.func" or kernel_type is None:
            continue
        symbol = _string(op, "sym_name") or "?"
        kernel = _string(op, "npu.kernel") or symbol
        if kernel_type not in KERNEL_TYPES:
            raise NpuLaunchError(
                f"@{symbol}: expected npu.kernel_type among {', '.join(KERNEL_TYPES)}, got "
                f"{kernel_type!r}"
            )
        core = _string(op, "npu.core") or ("aic" if kernel_type == "aic" else "aiv")
        kernels.setdefault(kernel, {})[core] = op
        types[kernel] = kernel_type
    if not kernels:
        raise NpuLaunchError("no npu kernel in the module (a func.func with npu.kernel_type)")
    if name is None:
        if len(kernels) > 1:
            raise NpuLaunchError(f"the module has several kernels, name one: {sorted(kernels)}")
        name = next(iter(kernels))
    if name not in kernels:
        raise NpuLaunchError(f"no npu kernel {name!r} in the module (it has {sorted(kernels)})")
    wanted = {"aiv": ("aiv",), "aic": ("aic",)}.get(types[name], ("aic", "aiv"))
    missing = [core for core in wanted if core not in kernels[name]]
    if missing:
        raise NpuLaunchError(
            f"kernel {name!r} is {types[name]} but has no function with npu.core = {missing[0]!r}"
        )
    return types[name], kernels[name]


def _check_ops(func: Operation, core_kind: str) -> None:
    """A ``NpuLaunchError`` for the first op whose pipe this kind of core lacks."""
    pipes = pipes_of(core_kind)
    for op in func.walk():
        if isinstance(op, NpuOp) and op.name != "npu.pipe_barrier":
            pipe = op.execution_pipe()
            if pipe not in pipes:
                what = "a vector core" if core_kind == "aiv" else "the cube core"
                raise NpuLaunchError(
                    f"'{op.name}'{describe_location(op.location)} runs on pipe {pipe}, which "
                    f"{what} does not have (its pipes: {', '.join(pipes)}); the kernel type "
                    "does not match the ops it uses"
                )


def _cores(preset: NpuPreset, kernel_type: str, block_num: int) -> list[CoreContext]:
    limit = preset.aiv_count if kernel_type == "aiv" else preset.aic_count
    if not 1 <= block_num <= limit:
        unit = "vector cores" if kernel_type == "aiv" else "AI cores"
        raise NpuLaunchError(
            f"block_num {block_num}: a kernel of type {kernel_type} on {preset.name} runs 1 to "
            f"{limit} blocks (one per {unit[:-1]}); fold more work into a loop per block"
        )
    cores: list[CoreContext] = []
    for block in range(block_num):
        if kernel_type == "aiv":
            core = CoreContext.make(preset, "aiv", group=block // 2, sub=block % 2,
                                    block_num=block_num, sub_block_num=1)  # fmt: skip
            core.block_idx, core.sub_block_idx = block, 0
            cores.append(core)
            continue
        cores.append(CoreContext.make(preset, "aic", group=block, sub=0, block_num=block_num,
                                      sub_block_num=1))  # fmt: skip
        vector_cores = {"mix_1_1": 1, "mix_1_2": 2}.get(kernel_type, 0)
        for sub in range(vector_cores):
            vector_core = CoreContext.make(
                preset, "aiv", group=block, sub=sub, block_num=block_num,
                sub_block_num=vector_cores,
            )  # fmt: skip
            cores.append(vector_core)
    return cores


def _arguments(func: Operation, args: Sequence[Any]) -> tuple[list[Any], list[tuple]]:
    """Runtime values for the kernel's arguments (copies), and what to write back."""
    symbol = _string(func, "sym_name")
    inputs = func.attributes["function_type"].type.inputs
    if len(args) != len(inputs):
        raise NpuArgumentError(
            f"kernel @{symbol} takes {len(inputs)} arguments, got {len(args)}; {UNCHANGED}"
        )
    values: list[Any] = []
    write_back: list[tuple] = []
    for index, (value, arg_type) in enumerate(zip(args, inputs, strict=True)):
        what = f"argument #{index} of @{symbol}"
        if isinstance(arg_type, MemRefType):
            if not isinstance(value, np.ndarray):
                raise NpuArgumentError(
                    f"{what}: expected a numpy array, got {type(value).__name__}; {UNCHANGED}"
                )
            length = arg_type.shape[0]
            copy = np.array(value, copy=True).reshape(-1)
            if copy.size != length:
                raise NpuArgumentError(
                    f"{what}: expected {length} elements (a {arg_type}), got an array of shape "
                    f"{value.shape}; {UNCHANGED}"
                )
            try:
                memref = to_runtime_value(copy, arg_type, what)
            except Exception as error:  # noqa: BLE001 - reworded below
                raise NpuArgumentError(f"{error}; {UNCHANGED}") from None
            values.append(memref)
            write_back.append((value, copy))
        else:
            try:
                values.append(to_runtime_value(value, arg_type, what))
            except Exception as error:  # noqa: BLE001 - reworded below
                raise NpuArgumentError(f"{error}; {UNCHANGED}") from None
    return values, write_back


def simulate(
    module: Operation,
    args: Sequence[Any],
    block_num: int,
    preset: str | NpuPreset = "910b2",
    *,
    kernel: str | None = None,
    sanitize: bool = True,
) -> NpuRun:
    """Run the npu kernel of ``module`` on ``block_num`` blocks (module docstring)."""
    chip = lookup_npu_preset(preset)
    kernel_type, funcs = find_kernel(module, kernel)
    for core_kind, func in funcs.items():
        _check_ops(func, core_kind)
    cores = _cores(chip, kernel_type, block_num)
    first = funcs.get("aiv") or funcs["aic"]
    values, write_back = _arguments(first, args)
    gm_names = {id(v.buffer): f"arg{i}" for i, v in enumerate(values) if hasattr(v, "buffer")}
    uses_cross_core = any(
        op.name.startswith("npu.cross_core") for func in funcs.values() for op in func.walk()
    )
    turns = Turns([core.name for core in cores]) if uses_cross_core else None
    flags = CrossCoreFlags(turns, scopes_of(cores), chip.max_pending_cross_core_sets)

    def run_core(core: CoreContext) -> None:
        core.gm_names = gm_names
        core.cross_core = flags
        func = funcs[core.kind]
        interpreter = CoreInterpreter(module, NPU_RULES, core)
        with np.errstate(all="ignore"):
            interpreter.call(_string(func, "sym_name") or "", values)
        if core.pending_sets and sanitize:
            (src, dst, event), op = next(iter(core.pending_sets.items()))
            raise sanitizer_error(
                "event", op, core.name,
                f"set_flag {src}->{dst} event {event} is never waited on: the kernel ends "
                "with the flag still set (each set_flag needs its wait_flag)",
            )  # fmt: skip

    run_cores(cores, run_core, turns=turns)
    timed = schedule(chip, cores, sanitize=sanitize)
    for original, copy in write_back:
        original[...] = copy.reshape(original.shape)
    return NpuRun(kernel_type, block_num, chip, tuple(cores), timed)
