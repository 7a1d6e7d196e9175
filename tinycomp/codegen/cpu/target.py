"""The host CPU as an LLVM target: triple, data layout, CPU name and features.

LLVM generates code for a *target machine*: an architecture and OS (the triple,
``x86_64-unknown-linux-gnu``), a CPU model (``znver5``, ``skylake``) and the features
it has (``+avx2,+avx512f,+fma,...``). The CPU and its features decide which
instructions the backend may use and what the vectorizer's cost model believes
(how wide a vector is worth it, what a gather costs). tinycomp asks LLVM about the
machine it runs on, as ``clang -march=native`` does, so the JIT'ed code uses every
instruction the host has.

1. ``host_cpu()``: LLVM's name for the host CPU and its feature string (asked once).
2. ``target_machine(opt_level, cpu)``: a fresh ``TargetMachine`` for the host triple
   (an execution engine takes ownership of the one it is given, so each JIT gets its
   own). ``cpu=None`` is the host with all its features; naming a CPU (``"x86-64"``,
   the 2003 baseline) uses that CPU's default features: code for a CPU newer than the
   host may not run on it.
3. ``CpuHooks``: the emitter's target hooks for this machine (triple and data layout
   in the module header, everything else the target-agnostic default).

>>> machine = target_machine(opt_level=0, cpu="x86-64")
>>> machine.triple.startswith("x86_64")
True
>>> hooks = CpuHooks(machine)
>>> hooks.datalayout.startswith("e-m:e")
True
"""

from __future__ import annotations

from functools import cache

import llvmlite.binding as llvm

from tinycomp.codegen.errors import CodegenError
from tinycomp.codegen.llvm.hooks import TargetHooks

__all__ = ["CpuHooks", "host_cpu", "initialize", "target_machine"]


@cache
def initialize() -> None:
    """Register the host target and its assembly printer with LLVM (once)."""
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()


@cache
def host_cpu() -> tuple[str, str]:
    """Step 1: the host CPU's LLVM name and feature string.

    >>> name, features = host_cpu()
    >>> isinstance(name, str) and features.count(",") > 10
    True
    """
    initialize()
    return llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()


def target_machine(opt_level: int = 3, cpu: str | None = None) -> llvm.TargetMachine:
    """Step 2: a new target machine for the host triple (see the module docstring).

    >>> target_machine(opt_level=3).triple == target_machine(0, cpu="x86-64").triple
    True
    """
    if opt_level not in (0, 1, 2, 3):
        raise CodegenError(f"expected an optimization level 0, 1, 2 or 3, got {opt_level!r}")
    initialize()
    name, features = host_cpu()
    if cpu is not None:
        name, features = cpu, ""
    target = llvm.Target.from_default_triple()
    try:
        return target.create_target_machine(cpu=name, features=features, opt=opt_level, jit=True)
    except RuntimeError as error:
        raise CodegenError(f"LLVM cannot make a target machine for cpu={name!r}: {error}") from None


class CpuHooks(TargetHooks):
    """Step 3: the host's triple and data layout; one address space, no attributes.

    >>> CpuHooks(target_machine(0)).address_space(None)
    0
    """

    def __init__(self, machine: llvm.TargetMachine) -> None:
        self.triple = machine.triple
        self.datalayout = str(machine.target_data)
