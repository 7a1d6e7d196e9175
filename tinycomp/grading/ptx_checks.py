"""Checks for a student's LLVM IR of a warp shuffle: convergent, its PTX, its behaviour.

A graded function returns the LLVM IR of one device function built on
``@llvm.nvvm.shfl.sync.bfly.i32``. NVVM intrinsics do not run on the CPU, and the
simulator runs gpu IR, not LLVM, so the behaviour is checked by running the student's
own IR on the host with the intrinsic swapped for a stand-in:

1. :func:`hoisting_counter_example`: what LLVM's ``-O2`` does to a caller when the
   function is *not* ``convergent``: both branches of ``if (tid < 16)`` call it, and
   SimplifyCFG merges the two calls into one above the branch.
2. :func:`probe_ptx`: the student's function linked (internal) into a small kernel and
   compiled to PTX for ``sm_80`` through tinycomp's NVPTX target machine.
3. :func:`run_lockstep`: the IR JIT-compiled for the host, the intrinsic renamed to a
   host function that performs PTX's butterfly over a table of 32 lanes. The lanes run
   one after another; the ``k``-th shuffle of lane ``l`` is answered with what its
   partner passed to its own ``k``-th shuffle in the previous round, and rounds repeat
   until no lane passes a different value: that fixed point is what 32 lanes in
   lockstep compute (each round settles one more level of shuffles that feed each
   other). Every shuffle's operands are recorded (mask, offset, clamp) for feedback.

>>> calls = run_lockstep(EXAMPLE_IR, "swap", [float(lane) for lane in range(32)], 1)
>>> calls.results[:4], calls.rounds
([1.0, 0.0, 3.0, 2.0], 2)
"""

from __future__ import annotations

import ctypes
import re
from dataclasses import dataclass, field

import llvmlite.binding as llvm
import numpy as np

from tinycomp.codegen.cpu.optimize import optimize
from tinycomp.codegen.cpu.target import target_machine
from tinycomp.codegen.gpu.machine_code import gpu_target_machine
from tinycomp.codegen.gpu.nvptx_hooks import NVPTXHooks
from tinycomp.gpu.convergence import optimize_nvptx
from tinycomp.grading.checks import GradingFailure
from tinycomp.targets.gpu_sim.warp_ops import source_lanes

__all__ = [
    "EXAMPLE_IR",
    "INTRINSIC",
    "LockstepRun",
    "ShuffleCall",
    "hoisting_counter_example",
    "probe_ptx",
    "run_lockstep",
]

INTRINSIC = "llvm.nvvm.shfl.sync.bfly.i32"
"""The NVVM butterfly shuffle: ``(membermask, value, lane_mask, clamp) -> value``."""
HOST_SHUFFLE = "tinycomp_grader_shfl_bfly_i32"
"""The host stand-in the intrinsic is renamed to in :func:`run_lockstep`."""
MAX_ROUNDS = 8
_INTRINSIC_NAME = re.compile(rf'@"?{re.escape(INTRINSIC)}"?(?=[\s(),])')
"""The intrinsic as IR text names it: ``@llvm.nvvm...`` or, from ``llvmlite.ir``, quoted."""

EXAMPLE_IR = f"""\
declare i32 @{INTRINSIC}(i32, i32, i32, i32)

define double @swap(double %v, i32 %m) convergent {{
  %i = fptosi double %v to i32
  %x = call i32 @{INTRINSIC}(i32 -1, i32 %i, i32 %m, i32 31)
  %f = sitofp i32 %x to double
  ret double %f
}}
"""
"""A toy shuffle for the examples: it moves a small integer held as a double."""

PROBE = """\
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare double @{name}(double, i32)

define ptx_kernel void @shuffle_probe(ptr addrspace(1) %x, ptr addrspace(1) %y, i32 %m) {{
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %in = getelementptr double, ptr addrspace(1) %x, i32 %tid
  %v = load double, ptr addrspace(1) %in
  %r = call double @{name}(double %v, i32 %m)
  %out = getelementptr double, ptr addrspace(1) %y, i32 %tid
  store double %r, ptr addrspace(1) %out
  ret void
}}
"""

HALVES = """\
target triple = "nvptx64-nvidia-cuda"
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare double @{name}(double, i32){attributes}

define ptx_kernel void @halves(ptr addrspace(1) %x, ptr addrspace(1) %lo, ptr addrspace(1) %hi) {{
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %in = getelementptr double, ptr addrspace(1) %x, i32 %tid
  %v = load double, ptr addrspace(1) %in
  %low = icmp ult i32 %tid, 16
  br i1 %low, label %low_half, label %high_half
low_half:
  %a = call double @{name}(double %v, i32 1)
  %lo_slot = getelementptr double, ptr addrspace(1) %lo, i32 %tid
  store double %a, ptr addrspace(1) %lo_slot
  br label %done
high_half:
  %b = call double @{name}(double %v, i32 1)
  %hi_slot = getelementptr double, ptr addrspace(1) %hi, i32 %tid
  store double %b, ptr addrspace(1) %hi_slot
  br label %done
done:
  ret void
}}
"""


def hoisting_counter_example(name: str, attributes: str = "") -> str:
    """The caller ``halves`` after LLVM ``-O2`` for NVPTX, ``@name`` declared with
    ``attributes``: without ``convergent`` one call is left, above the branch.

    >>> after = hoisting_counter_example("f")
    >>> after.count("call double @f("), "br i1" in after
    (1, False)
    >>> hoisting_counter_example("f", "convergent").count("call double @f(")
    2
    """
    suffix = f" {attributes}" if attributes else ""
    return optimize_nvptx(HALVES.format(name=name, attributes=suffix), "halves")


def probe_ptx(module_ir: str, name: str, arch: str = "sm_80") -> str:
    """PTX for ``arch`` of a kernel that calls ``@name`` of ``module_ir`` once per thread,
    the student's function linked in as ``internal`` (so only the kernel is emitted).

    >>> text = probe_ptx(EXAMPLE_IR, "swap")
    >>> text.count("shfl.sync.bfly.b32"), ".entry shuffle_probe(" in text
    (1, True)
    """
    machine = gpu_target_machine(NVPTXHooks(arch))
    probe = llvm.parse_assembly(PROBE.format(name=name))
    student = llvm.parse_assembly(module_ir)
    for module in (probe, student):
        module.triple = machine.triple
        module.data_layout = str(machine.target_data)
    probe.link_in(student)
    probe.get_function(name).linkage = llvm.Linkage.internal
    probe.verify()
    optimize(probe, machine, 3)
    return machine.emit_assembly(probe)


@dataclass(frozen=True)
class ShuffleCall:
    """The operands one lane gave one shuffle."""

    lane: int
    index: int
    """The lane's ``index``-th shuffle (0 for its first)."""
    membermask: int
    value: int
    lane_mask: int
    clamp: int


@dataclass
class LockstepRun:
    """What the 32 lanes returned, and every shuffle of the last round."""

    results: list[float]
    calls: list[ShuffleCall] = field(default_factory=list)
    rounds: int = 0


class _Lanes:
    """The state the host shuffle reads: the current lane and both rounds' values."""

    def __init__(self) -> None:
        self.lane = 0
        self.previous: dict[tuple[int, int], int] = {}
        self.current: dict[tuple[int, int], int] = {}
        self.counts = [0] * 32
        self.calls: list[ShuffleCall] = []

    def shuffle(self, membermask: int, value: int, lane_mask: int, clamp: int) -> int:
        """PTX ``shfl.sync.bfly.b32``: the lane's partner by the simulator's rule
        (``source_lanes``), its own value where the partner lies past the segment."""
        lane, index = self.lane, self.counts[self.lane]
        self.counts[lane] += 1
        self.current[(lane, index)] = value
        self.calls.append(
            ShuffleCall(lane, index, membermask & 0xFFFFFFFF, value, lane_mask, clamp)
        )
        partner = int(source_lanes("bfly", np.array([lane]), lane_mask, clamp)[0][0])
        return self.previous.get((partner, index), 0)


_LANES = _Lanes()
_SHUFFLE_TYPE = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32,
                                 ctypes.c_int32)  # fmt: skip
_HOST_SHUFFLE = _SHUFFLE_TYPE(lambda m, v, b, c: _LANES.shuffle(m, v, b, c))


def run_lockstep(module_ir: str, name: str, values: list[float], lane_mask: int) -> LockstepRun:
    """Lane ``l`` calls ``double @name(double values[l], i32 lane_mask)`` on the host, the
    shuffles answered across the 32 lanes (see the module docstring).

    ``GradingFailure`` if the IR declares another GPU intrinsic (nothing on the host
    could answer it) or if the lanes never agree (they shuffle a different number of
    times, or the values keep changing).
    """
    text = _INTRINSIC_NAME.sub(f"@{HOST_SHUFFLE}", module_ir)
    machine = target_machine(0)
    module = llvm.parse_assembly(text)
    module.triple = machine.triple
    module.data_layout = str(machine.target_data)
    for function in module.functions:
        if function.is_declaration and function.name.startswith("llvm.nvvm."):
            raise GradingFailure(
                f"@{name}: it calls @{function.name}; the function needs only {INTRINSIC}"
            )
        if function.is_declaration and not function.name.startswith(("llvm.", HOST_SHUFFLE)):
            raise GradingFailure(
                f"@{name}: it calls @{function.name}, which is declared but not defined; "
                "write the shuffle in the function itself"
            )
    llvm.add_symbol(HOST_SHUFFLE, ctypes.cast(_HOST_SHUFFLE, ctypes.c_void_p).value)
    engine = llvm.create_mcjit_compiler(module, machine)
    engine.finalize_object()
    function = ctypes.CFUNCTYPE(ctypes.c_double, ctypes.c_double, ctypes.c_int32)(
        engine.get_function_address(name)
    )
    _LANES.previous = {}
    for round_number in range(1, MAX_ROUNDS + 1):
        _LANES.current, _LANES.counts, _LANES.calls = {}, [0] * 32, []
        results = []
        for lane in range(32):
            _LANES.lane = lane
            results.append(function(values[lane], lane_mask))
        if len(set(_LANES.counts)) > 1:
            raise GradingFailure(
                f"@{name}: the lanes do not all shuffle the same number of times "
                f"(lane 0: {_LANES.counts[0]}, lane {_LANES.counts.index(max(_LANES.counts))}: "
                f"{max(_LANES.counts)}); a shfl.sync of the whole warp needs every lane"
            )
        if _LANES.current == _LANES.previous:
            return LockstepRun(results, list(_LANES.calls), round_number)
        _LANES.previous = _LANES.current
    raise GradingFailure(
        f"@{name}: the values the lanes shuffle never settle after {MAX_ROUNDS} rounds"
    )
