"""One op, one name: how reports, pictures and prose refer to an op.

An op is named by its result, exactly as ``print_ir`` prints it (``%max``, ``%0:2``), and
by its source line when it was parsed from text (``%max (line 7)``, the line an error
message about it cites). An op without results is named by its op name
(``memref.store (line 9)``). A fusion report, a kernel graph and a chapter's prose that
all use ``op_name`` therefore say the same thing about the same op.

Names follow the printer's numbering, which is per function and changes when a pass
adds or erases an unnamed value; a value with a name hint (``%max``) keeps its name
through every pass. Name an op *before* the pass you report on, or give its result a
hint, when the name must stay put.

>>> from tinycomp.ir import parse
>>> m = parse('''func.func @f(%x: f32) -> f32 {
...   %y = arith.mulf %x, %x : f32
...   %0 = arith.addf %y, %x : f32
...   return %0 : f32
... }''')
>>> [op_name(op) for op in m.body.first_op.entry_block]
['%y (line 2)', '%0 (line 3)', 'func.return (line 4)']
>>> op_name(m.body.first_op.entry_block.first_op, line=False)
'%y'
"""

from __future__ import annotations

from tinycomp.ir.location import DEFAULT_FILE
from tinycomp.ir.naming import SSANames
from tinycomp.ir.operation import Operation
from tinycomp.ir.printer import naming_root

__all__ = ["op_name", "source_line"]


def source_line(op: Operation) -> int | None:
    """The line of the text ``op`` was parsed from, or ``None`` (built or traced ops: a
    traced op's location is a Python file of the machine it ran on, not shown).

    >>> from tinycomp.ir import parse
    >>> source_line(parse('"t.op"() : () -> ()').body.first_op)
    1
    """
    location = op.location
    if location is None or location.file != DEFAULT_FILE:
        return None
    return location.line


def op_name(op: Operation, names: SSANames | None = None, *, line: bool = True) -> str:
    """The name of ``op`` (module docstring): its printed result name, or its op name;
    then `` (line N)`` when ``line`` and it has a source line.

    ``names`` are the printer's names for the function holding ``op``
    (``SSANames(function, use_asm_names=True)``); pass them when naming many ops of one
    function, so they are computed once.

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @g() -> (i32, i32) {
    ...   %0:2 = "t.pair"() : () -> (i32, i32)
    ...   return %0#0, %0#1 : i32, i32
    ... }''')
    >>> op_name(m.body.first_op.entry_block.first_op)
    '%0:2 (line 2)'
    """
    if names is None:
        names = SSANames(naming_root(op), use_asm_names=True)
    if op.results:
        name = names.result_group_name(op)
        if len(op.results) > 1:
            name += f":{len(op.results)}"
    else:
        name = op.name
    number = source_line(op) if line else None
    return name if number is None else f"{name} (line {number})"
