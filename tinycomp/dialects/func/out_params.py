"""The out-param convention of a bufferized function: ``{bufferize.result}`` arguments.

After bufferization a function does not return the memory it computed into: the caller
allocates it and passes it in as a trailing argument, an *out-param* (destination
passing at the function boundary)::

    func.func @f(%x: memref<4xf32>, %out: memref<4xf32> {bufferize.result})

The mark is an argument attribute, as MLIR's ``-buffer-results-to-out-params`` adds
with its ``add-result-attr`` option. Three parts of tinycomp speak this convention:
the bufferization pass writes it (``mark_out_params``), and the reference interpreter
and the code generators read it (``out_param_positions``, ``out_param_types``) to know
which arguments are results. It is a fact about a function's signature, so it lives
with ``func.func``, not in any one of them.

>>> from tinycomp.ir import parse
>>> m = parse('''func.func @f(%x: memref<4xf32>, %y: memref<4xf32>) {
...   memref.copy %x, %y : memref<4xf32> to memref<4xf32>
...   return
... }''')
>>> f = m.body.first_op
>>> mark_out_params(f, [1])
>>> out_param_positions(f), count_out_params(f), [str(t) for t in out_param_types(f)]
([1], 1, ['memref<4xf32>'])
>>> print(f.attributes["arg_attrs"])
[{}, {bufferize.result}]
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.ir.attributes import ArrayAttr, DictionaryAttr, UnitAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import Type

__all__ = [
    "OUT_PARAM_ATTRIBUTE",
    "call_out_params",
    "count_out_params",
    "is_out_param",
    "mark_out_params",
    "out_param_positions",
    "out_param_types",
]

OUT_PARAM_ATTRIBUTE = "bufferize.result"
"""The argument attribute that marks an out-param (as MLIR's ``add-result-attr`` does)."""


def _input_types(function: Operation) -> tuple[Type, ...]:
    return tuple(function.attributes["function_type"].type.inputs)


def mark_out_params(function: Operation, positions: Sequence[int]) -> None:
    """Mark the arguments at ``positions`` ``{bufferize.result}``, keeping every other
    argument attribute (``arg_attrs`` is made to have one dictionary per input).

    >>> from tinycomp.ir import parse
    >>> f = parse("func.func @f(%x: memref<2xf32> {a = 1 : i32}) { return }").body.first_op
    >>> mark_out_params(f, [0])
    >>> print(f.attributes["arg_attrs"])
    [{a = 1 : i32, bufferize.result}]
    >>> mark_out_params(f, [3])
    Traceback (most recent call last):
    ...
    ValueError: 'func.func' @f has 1 arguments; cannot mark argument #3 as an out-param
    """
    count = len(_input_types(function))
    for position in positions:
        if not 0 <= position < count:
            name = function.attributes["sym_name"].value
            raise ValueError(
                f"'func.func' @{name} has {count} arguments; cannot mark argument "
                f"#{position} as an out-param"
            )
    old = function.attributes.get("arg_attrs")
    dicts = [
        entry.to_dict() if isinstance(entry, DictionaryAttr) else {}
        for entry in (old if isinstance(old, ArrayAttr) and len(old) == count else [])
    ] or [{} for _ in range(count)]
    for position in positions:
        dicts[position][OUT_PARAM_ATTRIBUTE] = UnitAttr()
    function.attributes["arg_attrs"] = ArrayAttr([DictionaryAttr(d) for d in dicts])


def out_param_positions(function: Operation) -> list[int]:
    """The positions of the arguments marked ``{bufferize.result}``, in order.

    >>> from tinycomp.ir import parse
    >>> m = parse("func.func @f(%x: memref<2xf32>, %y: memref<2xf32> {bufferize.result}) "
    ...           "{ return }")
    >>> out_param_positions(m.body.first_op)
    [1]
    """
    attrs = function.attributes.get("arg_attrs")
    if not isinstance(attrs, ArrayAttr):
        return []
    return [
        position
        for position, entry in enumerate(attrs)
        if isinstance(entry, DictionaryAttr) and entry.get(OUT_PARAM_ATTRIBUTE) is not None
    ]


def is_out_param(function: Operation, position: int) -> bool:
    """Whether argument ``position`` of ``function`` is an out-param.

    >>> from tinycomp.ir import parse
    >>> f = parse("func.func @f(%y: memref<2xf32> {bufferize.result}) { return }").body.first_op
    >>> is_out_param(f, 0)
    True
    """
    return position in out_param_positions(function)


def count_out_params(function: Operation) -> int:
    """How many out-params ``function`` has.

    >>> from tinycomp.ir import parse
    >>> count_out_params(parse("func.func @f(%x: memref<2xf32>) { return }").body.first_op)
    0
    """
    return len(out_param_positions(function))


def out_param_types(function: Operation) -> list[Type]:
    """The types of the out-params: the function's results, as the caller sees them
    (after any results the function still returns).

    >>> from tinycomp.ir import parse
    >>> f = parse("func.func @f(%x: i32, %y: memref<?xf32> {bufferize.result}) { return }")
    >>> [str(t) for t in out_param_types(f.body.first_op)]
    ['memref<?xf32>']
    """
    inputs = _input_types(function)
    return [inputs[position] for position in out_param_positions(function)]


def call_out_params(function: Operation, given: int) -> list[int]:
    """The out-params of a call that passes ``given`` arguments and has the rest
    allocated: the marked arguments, or, in a function with no mark, the trailing
    arguments beyond ``given`` (how a caller such as ``run_bufferized`` reads a
    signature).

    >>> from tinycomp.ir import parse
    >>> f = parse("func.func @f(%x: memref<2xf32>, %y: memref<2xf32>) { return }")
    >>> call_out_params(f.body.first_op, 1)
    [1]
    """
    marked = out_param_positions(function)
    return marked or list(range(given, len(_input_types(function))))
