"""Rules for linalg: every op becomes a ``LinalgProblem`` run by ``linalg_engine``.

``linalg.generic`` states its problem outright (``indexing_maps``, ``iterator_types``,
the body region). A named op (``matmul``, ``conv_2d_nhwc_hwcf``, ``fill``...) is a
generic op with a fixed problem; this module writes that problem down:

==================  ============================================  ======================
op                  indexing maps (loops)                         body
==================  ============================================  ======================
matmul              (i, k), (k, j), (i, j)         [p, p, r]      ``c + a * b``
batch_matmul        (b, i, k), (b, k, j), (b, i, j)               ``c + a * b``
matvec / vecmat     (i, k), (k), (i) / (k), (k, j), (j)           ``c + a * b``
dot                 (k), (k), ()                                  ``c + a * b``
conv_2d_nhwc_hwcf   (n, oh*sh + kh*dh, ow*sw + kw*dw, c),         ``o + i * f``
                    (kh, kw, c, f), (n, oh, ow, f)
fill / copy         () or identity, identity                      ``in``
transpose           the inverse ``permutation``, identity         ``in``
broadcast           the output dims not in ``dimensions``          ``in``
reduce              identity, the input dims not in ``dimensions``  its region
map, add, exp...    identity everywhere                           its region / the op
==================  ============================================  ======================

Inputs are converted to the output's element type first (``arith.extf``, ``sitofp``...),
as MLIR's named ops do. When the op carries a body region (ops parsed in generic form
do, and registered op classes may build one) that region is run; otherwise the body
above is built once per op. When a registered op class offers ``indexing_maps()`` /
``iterator_types()``, those are used instead of this table.

>>> import numpy as np
>>> from tinycomp.ir import parse
>>> from tinycomp.interp import interpret
>>> m = parse('''
... func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>, %c: tensor<2x2xf32>)
...     -> tensor<2x2xf32> {
...   %r = linalg.matmul ins(%a, %b : tensor<2x3xf32>, tensor<3x2xf32>)
...                      outs(%c : tensor<2x2xf32>) -> tensor<2x2xf32>
...   return %r : tensor<2x2xf32>
... }''')
>>> a = np.arange(6, dtype=np.float32).reshape(2, 3)
>>> interpret(m, a, a.T.copy(), np.zeros((2, 2), np.float32))
array([[ 5., 14.],
       [14., 50.]], dtype=float32)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tinycomp.affine import AffineMap, dim, parse_affine_map
from tinycomp.interp.control import Exit
from tinycomp.interp.errors import describe_value, op_error
from tinycomp.interp.linalg_engine import run_linalg
from tinycomp.interp.linalg_problem import PARALLEL, REDUCTION, LinalgProblem, operand_shape
from tinycomp.interp.rules.common import int_attr, int_list
from tinycomp.interp.rules.linalg_bodies import build_body, has_body
from tinycomp.ir.attributes import AffineMapAttr, ArrayAttr
from tinycomp.ir.operation import Operation


# -- reading the problem off the op ------------------------------------------------------------
def split_ins_outs(op: Operation, operands: list[Any]) -> tuple[list[Any], list[Any]]:
    """``ins`` and ``outs``: by ``operandSegmentSizes``, or by the op's fixed shape."""
    sizes = op.attributes.get("operandSegmentSizes")
    if sizes is not None:
        n_inputs = int_list(op, "operandSegmentSizes")[0]
    elif op.name == "linalg.reduce":
        n_inputs = len(operands) // 2
    else:  # transpose, broadcast, map: the last operand is the output
        n_inputs = len(operands) - 1
    return list(operands[:n_inputs]), list(operands[n_inputs:])


def _accessor(op: Operation, name: str) -> Any:
    """A registered op class's ``indexing_maps()``/``iterator_types()``, if it has one."""
    if getattr(type(op), name, None) is None:
        return None
    value = getattr(op, name)
    try:
        return value() if callable(value) else value
    except NotImplementedError:  # a base class that leaves it to subclasses
        return None


def _as_maps(op: Operation, value: Any) -> list[AffineMap]:
    elements = value.elements if isinstance(value, ArrayAttr) else list(value)
    maps = []
    for element in elements:
        affine_map = element.map if isinstance(element, AffineMapAttr) else element
        if not isinstance(affine_map, AffineMap):
            raise op_error(op, f"expected affine maps in 'indexing_maps', got {element}")
        maps.append(affine_map)
    return maps


def iterator_kind(op: Operation, value: Any) -> str:
    """``"parallel"`` or ``"reduction"`` from ``#linalg.iterator_type<...>``, a string..."""
    text = str(value)
    for kind in (REDUCTION, PARALLEL):
        if kind in text:
            return kind
    raise op_error(op, f"expected iterator types parallel or reduction, got {value}")


def _identity(rank: int, n_dims: int | None = None) -> AffineMap:
    return AffineMap(rank if n_dims is None else n_dims, 0, tuple(dim(i) for i in range(rank)))


def named_problem(op: Operation, inputs: list[Any], outputs: list[Any]):
    """Indexing maps and iterator types of a named op (see the module's table)."""
    name = op.name.removeprefix("linalg.")
    out_rank = len(operand_shape(outputs[0])) if outputs else 0
    p, r = PARALLEL, REDUCTION
    if name in CONTRACTIONS:
        maps, iterators = CONTRACTIONS[name]
        if "indexing_maps" in op.attributes:
            maps = _as_maps(op, op.attributes["indexing_maps"])
        return maps, iterators
    if name == "conv_2d_nhwc_hwcf":
        sh, sw = int_list(op, "strides", default=[1, 1])
        dh, dw = int_list(op, "dilations", default=[1, 1])
        n, oh, ow, f, kh, kw, c = (dim(i) for i in range(7))
        maps = [
            AffineMap(7, 0, (n, oh * sh + kh * dh, ow * sw + kw * dw, c)),
            AffineMap(7, 0, (kh, kw, c, f)),
            AffineMap(7, 0, (n, oh, ow, f)),
        ]
        return maps, [p, p, p, p, r, r, r]
    if name == "transpose":
        permutation = int_list(op, "permutation")
        inverse = [permutation.index(axis) for axis in range(len(permutation))]
        source_map = AffineMap(out_rank, 0, tuple(dim(i) for i in inverse))
        return [source_map, _identity(out_rank)], [p] * out_rank
    if name == "broadcast":
        added = int_list(op, "dimensions")
        kept = tuple(dim(i) for i in range(out_rank) if i not in added)
        return [AffineMap(out_rank, 0, kept), _identity(out_rank)], [p] * out_rank
    if name == "reduce":
        reduced = int_list(op, "dimensions")
        rank = len(operand_shape(inputs[0]))
        kept = tuple(dim(i) for i in range(rank) if i not in reduced)
        maps = [_identity(rank)] * len(inputs) + [AffineMap(rank, 0, kept)] * len(outputs)
        return maps, [r if i in reduced else p for i in range(rank)]
    maps = [  # fill, copy, map and the elementwise ops: identity (scalars: no results)
        _identity(len(operand_shape(value)), out_rank)
        if operand_shape(value)
        else AffineMap(out_rank, 0, ())
        for value in inputs + outputs
    ]
    return maps, [p] * out_rank


def _contraction(*maps: str, iterators: str) -> tuple[list[AffineMap], list[str]]:
    kinds = {"p": PARALLEL, "r": REDUCTION}
    return [parse_affine_map(m) for m in maps], [kinds[k] for k in iterators]


CONTRACTIONS = {
    "matmul": _contraction(
        "(i, j, k) -> (i, k)", "(i, j, k) -> (k, j)", "(i, j, k) -> (i, j)", iterators="ppr"
    ),
    "batch_matmul": _contraction(
        "(b, i, j, k) -> (b, i, k)",
        "(b, i, j, k) -> (b, k, j)",
        "(b, i, j, k) -> (b, i, j)",
        iterators="pppr",
    ),
    "matvec": _contraction("(i, k) -> (i, k)", "(i, k) -> (k)", "(i, k) -> (i)", iterators="pr"),
    "vecmat": _contraction("(j, k) -> (k)", "(j, k) -> (k, j)", "(j, k) -> (j)", iterators="pr"),
    "dot": _contraction("(k) -> (k)", "(k) -> (k)", "(k) -> ()", iterators="r"),
}
"""Named contractions: ``out += in0 * in1`` over these maps and loops."""


# -- the rules ------------------------------------------------------------------------------------
def run_generic(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``linalg.generic``: the problem is written on the op."""
    inputs, outputs = split_ins_outs(op, operands)
    maps = _as_maps(op, op.attributes.get("indexing_maps", ArrayAttr(())))
    iterators = [iterator_kind(op, kind) for kind in op.attributes.get("iterator_types", ())]
    return _run(op, maps, iterators, inputs, outputs, op.regions[0], interp)


def run_named(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """A named linalg op: its problem from the table, or from the op class's accessors."""
    inputs, outputs = split_ins_outs(op, operands)
    class_maps = _accessor(op, "indexing_maps")
    class_iterators = _accessor(op, "iterator_types")
    if class_maps is not None and class_iterators is not None:
        maps = _as_maps(op, class_maps)
        iterators = [iterator_kind(op, kind) for kind in class_iterators]
    else:
        maps, iterators = named_problem(op, inputs, outputs)
    if has_body(op):
        body = op.regions[0]
    else:
        key = ("linalg body", op)
        if key not in interp.cache:
            interp.cache[key] = build_body(op)
        body = interp.cache[key]
    return _run(op, maps, iterators, inputs, outputs, body, interp)


def _run(
    op: Operation,
    maps: list[AffineMap],
    iterators: list[str],
    inputs: list[Any],
    outputs: list[Any],
    body: Any,
    interp: Any,
) -> list[Any]:
    names = [describe_value(value) for value in op.operands]
    problem = LinalgProblem(op, maps, iterators, inputs, outputs, body, names)
    return run_linalg(problem, interp)


def run_index(op: Operation, operands: list[Any], interp: Any) -> list[Any]:
    """``linalg.index <dim>``: the current value of loop ``dim`` (in a vectorized body, an
    array holding it for every parallel point)."""
    if not interp.linalg_points:
        raise op_error(op, "expected to be inside the body of a linalg op")
    position = int_attr(op, "dim")
    points = interp.linalg_points[-1]
    if not 0 <= position < len(points):
        raise op_error(op, f"expected a loop dimension in 0..{len(points) - 1}, got {position}")
    value = points[position]
    return [np.int64(value) if isinstance(value, int) else value]


def run_yield(op: Operation, operands: list[Any], interp: Any) -> Exit:
    """``linalg.yield``: the values of the output elements at this point."""
    return Exit(operands)


NAMED_OPS: Sequence[str] = (
    "matmul", "batch_matmul", "matvec", "vecmat", "dot", "conv_2d_nhwc_hwcf", "fill", "copy",
    "transpose", "broadcast", "reduce", "map", "add", "sub", "mul", "div", "max", "min",
    "exp", "log", "abs", "negf", "sqrt", "rsqrt", "tanh", "erf", "floor", "ceil", "powf",
)  # fmt: skip
"""The named linalg ops the interpreter runs (``linalg.<name>``)."""

RULES = {"linalg.generic": run_generic, "linalg.index": run_index, "linalg.yield": run_yield}
RULES.update({f"linalg.{name}": run_named for name in NAMED_OPS})
"""Every linalg op the interpreter runs."""

__all__ = ["CONTRACTIONS", "NAMED_OPS", "RULES", "iterator_kind", "named_problem", "split_ins_outs"]
