"""The assembly of one function, cut out of LLVM's assembly listing.

``TargetMachine.emit_assembly`` prints a whole module the way ``llc`` (or ``clang
-S``) does: section directives, then per function its label, its instructions and
its local labels (``.LBB0_3`` is basic block 3 of function 0), and a ``.Lfunc_end0``
marker. ``function_assembly`` keeps the lines from the function's label to its end
marker and drops the ``.cfi_*`` directives (call-frame information for debuggers and
unwinders: they describe the stack, they are not instructions).

The listing is what the JIT runs: it comes from a target machine with the same CPU,
features, optimization level and code model as the execution engine's. (The JIT's
"large" code model is why calls look like ``movabsq $expf, %rax; callq *%rax``: the
JIT'ed code may be placed anywhere in the 64-bit address space.)

>>> listing = '''  .globl f
... f:
...   .cfi_startproc
...   vaddss %xmm1, %xmm0, %xmm0
...   retq
... .Lfunc_end0:
...   .size f, .Lfunc_end0-f'''
>>> print(function_assembly(listing, "f"))
f:
  vaddss %xmm1, %xmm0, %xmm0
  retq
"""

from __future__ import annotations

from tinycomp.codegen.errors import CodegenError

__all__ = ["function_assembly"]


def function_assembly(listing: str, name: str) -> str:
    """The lines of function ``name`` in an assembly ``listing`` (see above).

    >>> function_assembly("g:\\n  retq\\n.Lfunc_end1:", "g")
    'g:\\n  retq'
    """
    lines = listing.splitlines()
    start = next((i for i, line in enumerate(lines) if line.strip() == f"{name}:"), None)
    if start is None:
        functions = [
            line.strip()[:-1]
            for line in lines
            if line.strip().endswith(":") and not line.strip().startswith(".")
        ]
        raise CodegenError(
            f"no function '{name}' in the assembly; functions: {', '.join(functions)}"
        )
    kept = []
    for line in lines[start:]:
        stripped = line.strip()
        if stripped.startswith(".Lfunc_end"):
            break
        if stripped.startswith(".cfi_"):
            continue
        kept.append(line)
    return "\n".join(kept)
