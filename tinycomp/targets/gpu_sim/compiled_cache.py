"""Compiled programs kept between launches of a kernel whose IR does not change.

Compiling a ``gpu.func`` (``executor.Program``) fixes what the launch's arguments say:
the buffers' shapes and dtypes, the scalar arguments' values, and the run's settings
(sanitizer, step limit, scheduling). A program is kept per ``gpu.func`` object and per
those facts, and dropped with the ``gpu.func``; ``simulate(..., keep_compiled=True)``
uses it. A kept program also keeps the counts of the access patterns it met
(``pattern_memo.py``). The IR must not change in place between launches (a kernel's specialisation
never does): a changed ``gpu.func`` would run its old program.

A traced run (``trace_warp``) compiles a program of its own and keeps nothing.

>>> from tinycomp.ir import parse
>>> from tinycomp.targets.gpu_sim.arguments import bind_arguments
>>> func = parse('''gpu.module @m { gpu.func @k(%a: memref<?xf32>, %s: f32) kernel {
...   gpu.return } }''').body.ops[0].body.ops[0]
>>> def compiled(n, s):
...     bound = bind_arguments(func, [np.zeros(n, np.float32), s], "k")
...     return kept_program(func, RunContext("k"), bound)
>>> compiled(8, 1.0) is compiled(8, 1.0), compiled(8, 1.0) is compiled(16, 1.0)
(True, False)
>>> compiled(8, 0.0) is compiled(8, -0.0)  # the scalars are compared bit for bit
False
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from tinycomp.ir.operation import Operation
from tinycomp.targets.gpu_sim.arguments import BoundArguments
from tinycomp.targets.gpu_sim.context import RunContext
from tinycomp.targets.gpu_sim.executor import Program
from tinycomp.targets.gpu_sim.pattern_memo import PatternMemo

__all__ = ["kept_program", "program_key"]

_PROGRAMS: weakref.WeakKeyDictionary[Operation, dict[tuple[Any, ...], Program]] = (
    weakref.WeakKeyDictionary()
)
"""``gpu.func`` -> program key -> its compiled program."""

KEPT_PER_KERNEL = 16
"""The most programs kept for one ``gpu.func`` (the oldest goes first)."""


def _scalar_key(value: Any) -> tuple[Any, ...]:
    """A scalar argument as a key: its type and its bits (``0.0`` and ``-0.0`` differ,
    a NaN equals itself)."""
    if isinstance(value, np.generic):
        return (value.dtype.str, value.tobytes())
    return (type(value), value)


def program_key(run: RunContext, bound: BoundArguments) -> tuple[Any, ...]:
    """What a compiled program depends on beyond the IR: the run's settings, every
    buffer's name, space, shape, dtype and place, and every scalar argument.

    >>> from tinycomp.ir import parse
    >>> from tinycomp.targets.gpu_sim.arguments import bind_arguments
    >>> func = parse('''gpu.module @m { gpu.func @k(%a: memref<?xf32>) kernel {
    ...   gpu.return } }''').body.ops[0].body.ops[0]
    >>> bound = bind_arguments(func, [np.zeros(4, np.float32)], "k")
    >>> program_key(RunContext("k"), bound)[4]
    (('a', 'global', (4,), '<f4', 0, 0),)
    """
    buffers = tuple(
        (s.name, s.space, s.shape, s.dtype.str, s.base_bytes, s.index) for s in bound.specs
    )
    scalars = tuple(_scalar_key(value) for _, value in bound.scalars)
    settings = (run.kernel, run.sanitize, run.step_limit, run.independent_thread_scheduling)
    return (*settings, buffers, scalars)


def kept_program(func: Operation, run: RunContext, bound: BoundArguments) -> Program:
    """The program of ``func`` for these arguments: compiled with ``run`` the first time,
    then the same one (its own ``RunContext``, with the step count reset to zero)."""
    if run.trace is not None:
        return Program(func, run, bound.by_value, constants=bound.scalars)
    programs = _PROGRAMS.get(func)
    if programs is None:
        programs = _PROGRAMS[func] = {}
    key = program_key(run, bound)
    program = programs.get(key)
    if program is None:
        program = Program(func, run, bound.by_value, constants=bound.scalars)
        program.memo = PatternMemo()
        if len(programs) >= KEPT_PER_KERNEL:
            del programs[next(iter(programs))]
        programs[key] = program
    program.run.steps = 0
    return program
