"""The renderer: LLVM IR text from blocks of instructions, with a line map back to tinycomp.

LLVM IR text is a module: a header (triple, data layout), declarations of the
functions it calls, and function definitions; a definition is a list of basic blocks,
each a label, its ``phi`` nodes, then instructions, the last one a terminator
(``br``, ``ret``). Emitters fill these containers; ``render`` writes the text.

Steps of ``ModuleText.render``:

1. Header: ``target datalayout`` and ``target triple`` from the target hooks.
2. Declarations, once each, sorted (``declare float @llvm.exp.f32(float)``).
3. Each function: ``define`` + prefix + signature + attributes, then each block: its
   label, its phis, its instructions, indented two spaces.
4. The target's footer (metadata).
5. While writing, remember which tinycomp op produced each line: ``LLVMModule.source_op``
   answers "which op wrote line 42?", which is how a verifier failure in LLVM is
   reported in terms of the tinycomp IR.

>>> module = ModuleText()
>>> function = FunctionText("answer", "i32", [])
>>> entry = function.add_block("entry")
>>> entry.lines.append(("ret i32 42", None))
>>> module.functions.append(function)
>>> print(module.render().text)
define i32 @answer() {
entry:
  ret i32 42
}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from tinycomp.codegen.llvm.hooks import TargetHooks

if TYPE_CHECKING:
    from tinycomp.ir.operation import Operation

__all__ = ["BlockText", "FunctionText", "LLVMModule", "ModuleText", "Line"]

Line = tuple[str, "Operation | None"]
"""One instruction's text and the tinycomp op that produced it."""


@dataclass
class BlockText:
    """One LLVM basic block: a label, phi nodes, then instructions.

    >>> block = BlockText("exit", lines=[("ret void", None)])
    >>> block.is_terminated
    True
    """

    label: str
    """The block's name, without the ``%``."""
    phis: list[Line] = field(default_factory=list)
    """``phi`` instructions; LLVM requires them first in the block."""
    lines: list[Line] = field(default_factory=list)
    """The other instructions, the last one a terminator."""

    @property
    def is_terminated(self) -> bool:
        """Whether the block already ends in ``br``, ``ret`` or ``unreachable``."""
        if not self.lines:
            return False
        opcode = self.lines[-1][0].split()[0]
        return opcode in ("br", "ret", "unreachable", "switch")


@dataclass
class FunctionText:
    """One LLVM function: signature and blocks (no blocks: a declaration).

    >>> FunctionText("f", "void", [("ptr", "out")], param_attributes={0: "noalias"}).signature()
    'void @f(ptr noalias %out)'
    """

    name: str
    """The symbol, without the ``@``."""
    return_type: str
    """``void``, ``float``, ``{ float, i64 }``..."""
    params: list[tuple[str, str]]
    """``(type, name)`` per parameter; names without the ``%``."""
    param_attributes: dict[int, str] = field(default_factory=dict)
    """Parameter position -> its attributes (``noalias``), written between type and name."""
    prefix: str = ""
    """Linkage, calling convention or kernel keyword after ``define`` (``internal ``)."""
    attributes: list[str] = field(default_factory=list)
    """Function attributes written after the parameters."""
    blocks: list[BlockText] = field(default_factory=list)
    """The body, entry block first."""
    op: Operation | None = None
    """The ``func.func`` this function was emitted from."""

    def add_block(self, label: str) -> BlockText:
        """Append a new, empty block."""
        block = BlockText(label)
        self.blocks.append(block)
        return block

    def signature(self) -> str:
        """``void @f(ptr %x, i64 %n)``: what follows ``define`` and the prefix."""
        params = ", ".join(
            f"{type_} {self.param_attributes[i] + ' ' if i in self.param_attributes else ''}%{name}"
            for i, (type_, name) in enumerate(self.params)
        )
        return f"{self.return_type} @{self.name}({params})"


@dataclass
class LLVMModule:
    """Rendered LLVM IR text and where each line came from.

    >>> from tinycomp.codegen.llvm import emit_llvm
    >>> llvm = emit_llvm("func.func @f(%x: i32) -> i32 {\\n  return %x : i32\\n}")
    >>> llvm.line(3), llvm.source_op(3).name
    ('ret i32 %x', 'func.return')
    """

    text: str
    """The module, as ``llvmlite.binding.parse_assembly`` (or ``llc``) reads it."""
    line_ops: dict[int, Operation]
    """1-based line number -> the tinycomp op whose emitter wrote that line."""
    functions: dict[str, FunctionText]
    """The defined and declared functions, by name."""
    source: str = ""
    """The tinycomp IR text whose line numbers the ops carry, when tinycomp printed it
    (``module.located``); empty when the ops came with their own lines, or none."""
    module: Operation | None = None
    """The tinycomp module this was emitted from."""
    hooks: TargetHooks | None = None
    """The target hooks it was emitted with."""

    def source_op(self, line: int) -> Operation | None:
        """The tinycomp op that produced LLVM line ``line`` (1-based), if any."""
        return self.line_ops.get(line)

    def line(self, number: int) -> str:
        """LLVM line ``number`` (1-based), without its indentation."""
        lines = self.text.splitlines()
        return lines[number - 1].strip() if 0 < number <= len(lines) else ""

    def __str__(self) -> str:
        return self.text


@dataclass
class ModuleText:
    """The module being emitted: declarations and functions, rendered at the end.

    >>> module = ModuleText()
    >>> module.declare("free", "void", ["ptr"]), module.render().text
    ('@free', 'declare void @free(ptr)\\n')
    """

    hooks: TargetHooks = field(default_factory=TargetHooks)
    """The target's answers (triple, address spaces, attributes)."""
    declarations: dict[str, str] = field(default_factory=dict)
    """Function name -> its ``declare`` line."""
    functions: list[FunctionText] = field(default_factory=list)
    """Definitions, in the order of the tinycomp module."""

    def declare(self, name: str, return_type: str, param_types: list[str]) -> str:
        """Declare ``@name`` once (later calls check the same signature); returns
        ``"@name"``.

        >>> ModuleText().declare("llvm.exp.f32", "float", ["float"])
        '@llvm.exp.f32'
        """
        line = f"declare {return_type} @{name}({', '.join(param_types)})"
        if self.hooks.is_convergent(name):
            line += " convergent"
        known = self.declarations.setdefault(name, line)
        if known != line:
            from tinycomp.codegen.errors import CodegenError

            raise CodegenError(f"@{name} declared twice with different types: {known} / {line}")
        return f"@{name}"

    def render(self, source: str = "") -> LLVMModule:
        """Write the module (steps 1-5 of the module docstring)."""
        lines: list[str] = []
        line_ops: dict[int, Operation] = {}

        def add(text: str, op: Operation | None = None) -> None:
            lines.append(text)
            if op is not None:
                line_ops[len(lines)] = op

        if self.hooks.datalayout:
            add(f'target datalayout = "{self.hooks.datalayout}"')
        if self.hooks.triple:
            add(f'target triple = "{self.hooks.triple}"')
        if lines:
            add("")
        defined = {function.name for function in self.functions}
        declarations = [d for name, d in sorted(self.declarations.items()) if name not in defined]
        for declaration in declarations:
            add(declaration)
        if declarations:
            add("")
        for number, function in enumerate(self.functions):
            if number:
                add("")
            attributes = "".join(f" {a}" for a in function.attributes)
            add(f"define {function.prefix}{function.signature()}{attributes} {{", function.op)
            for block in function.blocks:
                add(f"{block.label}:")
                for text, op in [*block.phis, *block.lines]:
                    add(f"  {text}", op)
            add("}")
        footer = self.hooks.module_footer()
        if footer:
            add("")
            for text in footer:
                add(text)
        by_name = {f.name: f for f in self.functions}
        return LLVMModule("\n".join(lines), line_ops, by_name, source, hooks=self.hooks)
