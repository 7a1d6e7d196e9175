"""Chapter 04: tensor programs and linalg.generic.

``tinycomp.trace`` turns a numpy-like Python function into a *tensor program*: a
``func.func`` of ``linalg`` ops on tensors, one op per line. Every ``linalg`` op is a
loop nest written down as data (indexing maps, iterator types, a payload), and every
one of them can be spelled as a ``linalg.generic``. Three tasks, each plugging into
tinycomp's real machinery:

1. ``swiglu``: the SwiGLU feed-forward block of LLaMA-style transformers, written with
   the ``Tensor`` API and traced; it must catch the one shape error the frontend cannot.
2. ``contraction_maps`` and ``contraction_generic``: any two-operand ``einsum``-style
   contraction (``"bmk,bkn->bmn"``) as a ``linalg.generic``, exactly the op
   ``linalg-generalize-named-ops`` makes of ``linalg.matmul`` and
   ``linalg.batch_matmul``. The worked ``einsum`` below traces it.
3. ``payload_flops``, ``kernel_cost`` and ``program_cost``: the FLOPs and bytes of every
   kernel of a traced program, counted from its loops, maps and payload.

Fill in each TODO in ``exercises/ch04_tensor_programs.py``, then run
``tinycomp grade ch04``. The last cells of ``chapters/04_tensor_programs.ipynb`` run
your code.
"""

from __future__ import annotations

# Everything the tasks need is imported for you ("noqa: F401" keeps the linter quiet about
# the names your code does not use yet).
import math  # noqa: F401
from collections.abc import Sequence  # noqa: F401

from tinycomp.affine import AffineMap, dim  # noqa: F401
from tinycomp.frontend import Tensor, TraceError, exp  # noqa: F401
from tinycomp.frontend.tensor import trace_error
from tinycomp.ir import Builder, ModuleOp, ShapedType, Value  # noqa: F401
from tinycomp.ir.dialects.arith import ConstantOp
from tinycomp.ir.dialects.arith_cast import CastOp  # noqa: F401
from tinycomp.ir.dialects.linalg_base import StructuredOp
from tinycomp.ir.dialects.linalg_generic import GenericOp
from tinycomp.ir.dialects.linalg_named import FillOp
from tinycomp.ir.dialects.linalg_payload import add, convert_scalar, multiply  # noqa: F401
from tinycomp.ir.dialects.tensor import EmptyOp
from tinycomp.ir.type_helpers import bitwidth, element_type  # noqa: F401
from tinycomp.perf import KernelCost

__all__ = [
    "contraction_generic",
    "contraction_maps",
    "einsum",
    "kernel_cost",
    "parse_contraction",
    "payload_flops",
    "program_cost",
    "swiglu",
]


# -- Task 04.1 ------------------------------------------------------------------------------
def swiglu(x: Tensor, w_gate: Tensor, w_up: Tensor, w_down: Tensor) -> Tensor:
    """The SwiGLU feed-forward block (LLaMA, Mistral, Qwen)::

        swiglu(x) = (silu(x @ w_gate) * (x @ w_up)) @ w_down
        silu(g)   = g * sigmoid(g) = g / (1 + exp(-g))

    for ``x: (T, D)`` (T tokens of width D), ``w_gate, w_up: (D, H)`` and
    ``w_down: (H, D)``. Write it with the ``Tensor`` API (``@``, ``+ - * /``, unary
    ``-``, ``exp``); ``tinycomp.trace(swiglu, ...)`` records the linalg ops. Two rules:

    1. Compute each product once: a trace records every call, so writing ``x @ w_gate``
       twice puts two ``linalg.matmul`` in the program (tracing does no CSE).
    2. The frontend checks every op's shapes, but ``silu(gate) * up`` broadcasts: a
       ``w_up`` of shape ``(D, 1)`` would trace without complaint and compute nonsense.
       Check first that ``w_up.shape == w_gate.shape``; if not, raise
       ``trace_error("swiglu", f"expected w_up of shape {w_gate.shape} like w_gate, got
       {w_up.shape}")``: a ``TraceError`` that points at the line of your code.

    >>> import numpy as np
    >>> from tinycomp.frontend import TensorSpec, trace
    >>> m = trace(swiglu, TensorSpec((4, 8)), TensorSpec((8, 16)), TensorSpec((8, 16)),
    ...           TensorSpec((16, 8)))
    >>> print(m.body.first_op.function_type.results[0])
    tensor<4x8xf32>
    >>> sum(op.name == "linalg.matmul" for op in m.walk())
    3
    """
    # TODO(Task 04.1): trace a SwiGLU feed-forward block
    raise NotImplementedError("Task 04.1: check w_up's shape; then gate, up, silu, down")


# -- Task 04.2 ------------------------------------------------------------------------------
def parse_contraction(spec: str) -> tuple[str, str, str]:
    """Split ``"bmk,bkn->bmn"`` into ``("bmk", "bkn", "bmn")``, checking that it is a
    contraction ``linalg`` can express with projected-permutation maps (a worked example;
    ``ValueError`` otherwise):

    * exactly two inputs and one output, letters only;
    * no letter twice in one operand (``"ii->i"``, a diagonal, is not a projection);
    * every output letter appears in an input (else its loop would have no size).

    >>> parse_contraction("mk,kn->mn")
    ('mk', 'kn', 'mn')
    >>> parse_contraction("mk,kn->mz")
    Traceback (most recent call last):
    ...
    ValueError: contraction 'mk,kn->mz': expected every output letter in an input, got 'z'
    """
    if spec.count("->") != 1 or spec.split("->")[0].count(",") != 1:
        raise ValueError(
            f"contraction {spec!r}: expected the form 'lhs,rhs->out', e.g. 'mk,kn->mn'"
        )
    inputs, out = spec.replace(" ", "").split("->")
    lhs, rhs = inputs.split(",")
    for operand in (lhs, rhs, out):
        if not operand.isalpha() and operand:
            raise ValueError(f"contraction {spec!r}: expected letters only, got {operand!r}")
        if len(set(operand)) != len(operand):
            raise ValueError(f"contraction {spec!r}: expected no letter twice in {operand!r}")
    for letter in out:
        if letter not in lhs + rhs:
            raise ValueError(
                f"contraction {spec!r}: expected every output letter in an input, got {letter!r}"
            )
    return lhs, rhs, out


def contraction_maps(spec: str) -> tuple[list[AffineMap], list[str]]:
    """The indexing maps (lhs, rhs, output) and iterator types of the contraction ``spec``.

    One loop per distinct letter, in linalg's order: first the output's letters, in
    their order (``"parallel"``: each writes its own output element), then the letters
    that only the inputs have, in order of first appearance in ``lhs`` then ``rhs``
    (``"reduction"``: the output sums over them). Loop ``i`` is ``dim(i)``; each
    operand's map lists the loops of its letters, e.g. for ``"mk,kn->mn"`` the loops are
    ``(m, n, k) = (d0, d1, d2)`` and B's map is ``(d0, d1, d2) -> (d2, d1)``: exactly
    ``linalg.matmul``'s maps. Use ``parse_contraction(spec)`` first (it raises
    ``ValueError`` for a bad spec).

    >>> maps, iterators = contraction_maps("bmk,bkn->bmn")
    >>> [str(m) for m in maps]
    ['(d0, d1, d2, d3) -> (d0, d1, d3)', '(d0, d1, d2, d3) -> (d0, d3, d2)', \
'(d0, d1, d2, d3) -> (d0, d1, d2)']
    >>> iterators
    ['parallel', 'parallel', 'parallel', 'reduction']
    """
    # TODO(Task 04.2): a contraction as a linalg.generic
    raise NotImplementedError("Task 04.2: a loop per letter, output letters first")


def contraction_generic(spec: str, lhs: Value, rhs: Value, init: Value) -> GenericOp:
    """``init += lhs * rhs`` summed as ``spec`` says, as a detached ``linalg.generic``.

    Build it with ``GenericOp.build([lhs, rhs], [init], maps, iterator_types, body)``
    where ``body(builder, arguments)`` receives the payload block's arguments
    ``(a, b, acc)`` (one element of each operand) and returns the values to yield. The
    payload must be the one MLIR's named ops have, in MLIR's order, so that the op
    equals what ``linalg-generalize-named-ops`` makes of ``linalg.matmul``:

    1. convert ``a`` and ``b`` to the element type of ``acc`` (``convert_scalar(builder,
       value, acc.type)``: ``arith.extf`` for f16 -> f32, ``arith.extsi`` for i8 -> i32,
       nothing when the types agree), ``a`` first;
    2. multiply them (``multiply(builder, a, b)``: ``arith.mulf`` or ``arith.muli``);
    3. add the product to the accumulator, accumulator first: ``add(builder, acc, p)``;
    4. return ``[sum]``.

    >>> from tinycomp.ir import Block, parse_type
    >>> a, b, c = Block([parse_type("tensor<4x8xf16>"), parse_type("tensor<8x2xf16>"),
    ...                  parse_type("tensor<4x2xf32>")]).arguments
    >>> op = contraction_generic("mk,kn->mn", a, b, c)
    >>> [nested.name for nested in op.body]
    ['arith.extf', 'arith.extf', 'arith.mulf', 'arith.addf', 'linalg.yield']
    """
    # TODO(Task 04.2): a contraction as a linalg.generic
    raise NotImplementedError("Task 04.2: GenericOp.build, multiply-accumulate payload")


# -- worked example: einsum in the frontend -------------------------------------------------
def einsum(spec: str, lhs: Tensor, rhs: Tensor) -> Tensor:
    """``numpy.einsum(spec, lhs, rhs)`` for a two-operand contraction, traced: a zero-filled
    output (``tensor.empty`` + ``linalg.fill``) and the ``linalg.generic`` of Task 04.2.

    ``einsum("bqd,bkd->bqk", q, k)`` is ``q @ k^T`` with no ``linalg.transpose``: the
    map of ``k`` reads it transposed.

    >>> import numpy as np
    >>> from tinycomp.frontend import TensorSpec, trace
    >>> m = trace(lambda q, k: einsum("bqd,bkd->bqk", q, k), TensorSpec((2, 3, 4)),
    ...           TensorSpec((2, 5, 4)))
    >>> print(m.body.first_op.function_type.results[0])
    tensor<2x3x5xf32>
    """
    try:
        lhs_letters, rhs_letters, out_letters = parse_contraction(spec)
    except ValueError as error:
        raise trace_error("einsum", str(error)) from None
    sizes: dict[str, int] = {}
    for letters, operand in ((lhs_letters, lhs), (rhs_letters, rhs)):
        if len(letters) != operand.ndim:
            raise trace_error(
                "einsum",
                f"expected a {len(letters)}-D operand for {letters!r}, got {operand.shape}",
            )
        for letter, size in zip(letters, operand.shape, strict=True):
            if sizes.setdefault(letter, size) != size:
                raise trace_error(
                    "einsum",
                    f"expected one size for {letter!r}, got {sizes[letter]} and {size} "
                    f"(shapes {lhs.shape} and {rhs.shape})",
                )
    context = lhs.context
    zero = context.insert(ConstantOp.build(0.0, lhs.dtype)).result
    empty = context.insert(EmptyOp.build(tuple(sizes[c] for c in out_letters), lhs.dtype))
    init = context.insert(FillOp.build(zero, empty.result)).result
    generic = context.insert(contraction_generic(spec, lhs.value, rhs.value, init))
    return context.wrap(generic.result, "einsum")


# -- Task 04.3 ------------------------------------------------------------------------------
def payload_flops(op: StructuredOp) -> int:
    """How many operations one iteration of ``op``'s payload does.

    Count every op of the payload (``op.body``) whose dialect is ``arith`` or ``math``
    (``nested.name.startswith(("arith.", "math."))``), except ``arith.constant`` and
    the casts (``isinstance(nested, CastOp)``: ``arith.extf``, ``arith.sitofp``...,
    which only change a type). ``linalg.yield`` and ``linalg.index`` do not count.
    That is chapter 00's convention: one add, multiply, compare, divide, max or ``exp``
    is one FLOP.

    >>> from tinycomp.frontend import TensorSpec, trace
    >>> m = trace(lambda a, b: a @ b, TensorSpec((4, 8)), TensorSpec((8, 2)))
    >>> [payload_flops(o) for o in m.walk() if o.name in ("linalg.fill", "linalg.matmul")]
    [0, 2]
    """
    # TODO(Task 04.3): count the FLOPs and bytes of every kernel
    raise NotImplementedError("Task 04.3: count arith/math ops (no constants, casts)")


def kernel_cost(op: StructuredOp) -> KernelCost:
    """The FLOPs and bytes of ``op`` run as one kernel: ``KernelCost(op.name, flops, bytes)``.

    * **FLOPs**: the payload runs once per iteration of the loop nest, so
      ``flops = payload_flops(op) * product of op.static_loop_sizes()``.
    * **Bytes**: the compulsory traffic of chapter 00 (every operand moved once, as if
      the caches were perfect), operand by operand, for shaped operands only (tensors or
      memrefs; a scalar such as ``linalg.fill``'s value lives in a register):

      1. the elements an operand touches are its *footprint* over the whole iteration
         space: ``indexing_map.tile_footprint([0] * loops, loop_sizes).sizes``, multiplied
         out (for ``(d0, d1) -> (d0, 0)`` over 4 x 8 loops: 4 x 1 elements);
      2. each element is ``ceil(bitwidth(element_type(operand.type)) / 8)`` bytes;
      3. an input is read if the payload uses its block argument
         (``op.payload_reads(i)``); an output is always written, and also read when the
         payload uses its block argument (an accumulator: matmul's ``C``, a reduction's
         init). An output from ``tensor.empty`` is only written.

      Each operand counts on its own, even when one tensor is passed twice
      (``x * x`` reads ``x`` through two operands: two reads).

    >>> from tinycomp.frontend import TensorSpec, trace
    >>> m = trace(lambda a, b: a @ b, TensorSpec((4, 8)), TensorSpec((8, 2)))
    >>> matmul = next(o for o in m.walk() if o.name == "linalg.matmul")
    >>> cost = kernel_cost(matmul)  # read A, B, C; write C: (32 + 16 + 8 + 8) * 4 bytes
    >>> cost.flops, cost.bytes
    (128, 256)
    """
    # TODO(Task 04.3): count the FLOPs and bytes of every kernel
    raise NotImplementedError("Task 04.3: FLOPs per iteration x loops; footprint bytes")


def program_cost(module: ModuleOp) -> KernelCost:
    """The total FLOPs and bytes of every linalg op in ``module`` (each one a kernel),
    as ``KernelCost("total", flops, bytes)``. The linalg ops are the ops of
    ``module.walk()`` that are ``StructuredOp`` instances. (``tensor.empty`` has no
    data and reshapes only relabel it; ``tensor.pad`` does copy its input, but it is not
    a linalg op, and this count leaves it out.)

    >>> from tinycomp.frontend import TensorSpec, softmax, trace
    >>> cost = program_cost(trace(softmax, TensorSpec((4, 8))))
    >>> cost.flops, cost.bytes  # 5 FLOPs per element; 8 tensor passes + 8 row passes
    (160, 1152)
    """
    # TODO(Task 04.3): count the FLOPs and bytes of every kernel
    raise NotImplementedError("Task 04.3: add up kernel_cost over the linalg ops of the module")
