"""The rule tables: one module per dialect, each exporting ``RULES``.

A rule is a plain function ``run_x(op, operands, interp) -> results``: ``operands`` are
the run-time values of ``op.operands``, and it returns the values of ``op.results`` (or
a ``Branch``/``Exit`` for terminators). Rules read attributes by their MLIR names from
``op.attributes``, so they run ops in MLIR's generic form as well as registered ones.

>>> own = {name for name, rule in ALL_RULES.items() if rule.__module__.startswith(__name__)}
>>> sorted({name.split(".")[0] for name in own})  # doctest: +NORMALIZE_WHITESPACE
['affine', 'arith', 'bufferization', 'cf', 'func', 'linalg', 'math', 'memref', 'scf', 'tensor',
 'tile', 'vector']
>>> ALL_RULES["arith.addf"].__name__
'run_addf'
"""

from tinycomp.interp.rules import (
    affine,
    arith,
    bufferization,
    cf,
    func,
    linalg,
    math,
    memref,
    scf,
    tensor,
    tile,
    vector,
)

ALL_RULES = {
    **arith.RULES,
    **math.RULES,
    **func.RULES,
    **cf.RULES,
    **scf.RULES,
    **affine.RULES,
    **memref.RULES,
    **tensor.RULES,
    **linalg.RULES,
    **bufferization.RULES,
    **vector.RULES,
    **tile.RULES,
}
"""Op name -> rule, for every op the interpreter runs."""

PASSES_UNINITIALIZED = frozenset(
    [
        *linalg.RULES,  # the linalg engine checks the elements the body reads
        "tensor.extract",  # checks the one element it reads
        "tensor.insert",
        "tensor.extract_slice",
        "tensor.insert_slice",
        "tensor.parallel_insert_slice",
        "tensor.dim",
        "tensor.rank",
        "tensor.cast",
        "tensor.collapse_shape",
        "tensor.expand_shape",
        "tensor.pad",
        "tensor.concat",
        "scf.for",
        "scf.if",
        "scf.while",
        "scf.forall",
        "scf.index_switch",
        "scf.execute_region",
        "scf.yield",
        "scf.condition",
        "affine.for",
        "affine.if",
        "affine.yield",
        "func.call",
        "func.return",
        "cf.br",
        "cf.cond_br",
        "bufferization.to_buffer",
        "bufferization.to_memref",
        "bufferization.alloc_tensor",
        "bufferization.materialize_in_destination",
        "bufferization.dealloc_tensor",
    ]
)
"""Ops that may take a tensor with uninitialised elements as an operand: they only move
it around, or check the elements they read themselves. Any other op reading such a
tensor is an error."""


def register_rule(name: str, rule) -> None:
    """Make the interpreter run ``name`` ops with ``rule`` (added to ``ALL_RULES``, the
    default table of every ``Interpreter``). For rules that live in a layer above the
    interpreter, such as ``gpu.launch_func``, which runs the kernel on the GPU simulator
    (``tinycomp.targets.gpu_sim.interp_rule``, registered when ``tinycomp.gpu`` is
    imported). Registering the same rule again is harmless (a function of the same name
    replaces it, as when its module is imported anew); another rule for a name that has
    one is an error.

    >>> def run_nothing(op, operands, interp):
    ...     return []
    >>> register_rule("test.nothing", run_nothing)
    >>> ALL_RULES["test.nothing"] is run_nothing
    True
    >>> try:
    ...     register_rule("arith.addf", run_nothing)
    ... except ValueError as error:
    ...     print(error)
    the interpreter already has a rule for 'arith.addf': run_addf
    >>> del ALL_RULES["test.nothing"]
    """
    existing = ALL_RULES.get(name)
    if existing is not None and existing.__qualname__ != rule.__qualname__:
        raise ValueError(f"the interpreter already has a rule for '{name}': {existing.__name__}")
    ALL_RULES[name] = rule


__all__ = ["ALL_RULES", "PASSES_UNINITIALIZED", "register_rule"]
