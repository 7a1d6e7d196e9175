"""Small helpers the SIMT DSL tests share: the ops of a kernel's IR, by name."""

from __future__ import annotations

from tinycomp.ir import Operation


def ops_named(module: Operation, name: str) -> list[Operation]:
    """Every op called ``name`` under ``module``, in walk order."""
    return [op for op in module.walk() if op.name == name]


def op_names(module: Operation) -> list[str]:
    """The names of the ops under ``module``, in walk order."""
    return [op.name for op in module.walk()]


def kernel_func(module: Operation) -> Operation:
    """The one ``gpu.func`` of a DSL module."""
    (func,) = ops_named(module, "gpu.func")
    return func
