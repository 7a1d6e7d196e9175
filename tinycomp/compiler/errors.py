"""The error ``tinycomp.compile`` raises for a request it cannot carry out.

>>> raise CompileError("unknown target 'tpu'; targets: interp")
Traceback (most recent call last):
...
tinycomp.compiler.errors.CompileError: unknown target 'tpu'; targets: interp
"""

from __future__ import annotations

__all__ = ["CompileError"]


class CompileError(ValueError):
    """A compile request that cannot be carried out: an unknown target or stage, options
    that contradict each other, or arguments that do not match the compiled function."""
