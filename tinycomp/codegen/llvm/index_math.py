"""Index arithmetic that folds constants while it writes instructions.

Addresses are sums of products: element ``[i, j]`` of a memref lives at
``offset + i * stride0 + j * stride1``. Most of those numbers are known when the
code is emitted (a static ``memref<4x8xf32>`` has strides 8 and 1 and offset 0), so
writing an instruction for every ``* 1`` and ``+ 0`` would only make the LLVM IR
harder to read (LLVM would fold them anyway, but not at ``-O0``, and not before a
student reads the text). These helpers compute with constants in Python and emit an
instruction only when an operand is a run-time value.

Operands are LLVM operand texts: a decimal constant (``"8"``) or a name (``"%d0"``).
Address arithmetic is ``nsw`` (no signed wrap): indices of in-bounds accesses never
overflow 64 bits, and the flag lets LLVM's vectorizer reason about the addresses, as
MLIR's memref lowering does. Arithmetic the program itself asks for (``affine.apply``)
passes ``flags=""``: it wraps like MLIR's ``arith.addi``.

>>> class Recorder:
...     def __init__(self): self.lines = []
...     def fresh(self, hint): return f"%{hint}"
...     def emit(self, line): self.lines.append(line)
>>> em = Recorder()
>>> mul(em, "%i", "8"), add(em, "0", "%i.8"), mul(em, "%j", "1"), add(em, "3", "4")
('%i.8', '%i.8', '%j', '7')
>>> em.lines
['%i.8 = mul nsw i64 %i, 8']
"""

from __future__ import annotations

from typing import Protocol

__all__ = ["add", "is_constant", "mul", "sub"]


class _Emits(Protocol):
    def fresh(self, hint: str) -> str: ...

    def emit(self, line: str) -> None: ...


def is_constant(text: str) -> bool:
    """Whether an operand text is an integer constant.

    >>> is_constant("-4"), is_constant("%n")
    (True, False)
    """
    return text.lstrip("-").isdigit()


def constant_value(text: str) -> int:
    """The integer of a constant operand text."""
    return int(text)


def _hint(text: str) -> str:
    return text.lstrip("%")


def add(em: _Emits, a: str, b: str, type_: str = "i64", flags: str = "nsw ") -> str:
    """``a + b``, folded when possible.

    >>> add(None, "2", "3"), add(None, "%i", "0")
    ('5', '%i')
    """
    if is_constant(a) and is_constant(b):
        return str(int(a) + int(b))
    if a == "0":
        return b
    if b == "0":
        return a
    result = em.fresh(f"{_hint(a)}.plus")
    em.emit(f"{result} = add {flags}{type_} {a}, {b}")
    return result


def sub(em: _Emits, a: str, b: str, type_: str = "i64", flags: str = "nsw ") -> str:
    """``a - b``, folded when possible.

    >>> sub(None, "2", "3"), sub(None, "%i", "0")
    ('-1', '%i')
    """
    if is_constant(a) and is_constant(b):
        return str(int(a) - int(b))
    if b == "0":
        return a
    result = em.fresh(f"{_hint(a)}.minus")
    em.emit(f"{result} = sub {flags}{type_} {a}, {b}")
    return result


def mul(em: _Emits, a: str, b: str, type_: str = "i64", flags: str = "nsw ") -> str:
    """``a * b``, folded when possible (a constant goes second, as LLVM prints it).

    >>> mul(None, "4", "8"), mul(None, "1", "%j"), mul(None, "%j", "0")
    ('32', '%j', '0')
    """
    if is_constant(a) and is_constant(b):
        return str(int(a) * int(b))
    if a == "0" or b == "0":
        return "0"
    if a == "1":
        return b
    if b == "1":
        return a
    if is_constant(a):
        a, b = b, a
    result = em.fresh(f"{_hint(a)}.{_hint(b)}")
    em.emit(f"{result} = mul {flags}{type_} {a}, {b}")
    return result
