"""What an op class declares: its counts, its traits and interfaces, and the hooks it may
override. ``Operation`` inherits all of it; a registered op is one subclass that sets the
attributes below (``dialect.py`` shows the order).

These are MLIR's ODS traits and interfaces, written as plain class attributes, and they
are the only place a fact about an op lives: every pass and analysis asks through the
query functions of ``effects.py`` (memory) and ``op_traits.py`` (the rest), which read
these declarations. An op class that declares nothing, and every op no dialect
registered, gets the conservative answers: it may read and write any memory, it is not
pure, not commutative, not constant-like.

=========================  =========================================================
declaration                MLIR
=========================  =========================================================
``is_pure = True``         ``Pure``: no memory effect (``arith.addf``, ``scf.yield``)
``effects = (...)``        ``MemoryEffectOpInterface``, per operand: ``reads(0)``,
                           ``writes(1)``, ``allocates(result=0)``, ``frees(0)``, or on
                           another resource (``writes(resource="npu.flags")``)
``get_effects(self)``      the same interface, computed per op (linalg: its memref
                           ``ins`` and ``outs``)
``has_recursive_effects``  ``RecursiveMemoryEffects``: the effects of the ops inside
``is_terminator``          ``Terminator``
``is_constant_like``       ``ConstantLike``: the value is the ``value`` attribute
``is_commutative``         ``Commutative``: ``op(a, b) == op(b, a)``
``view_source``            ``ViewLikeOpInterface``: the result views this operand
``is_convergent``          LLVM's ``convergent``: no new control dependence
                           (``gpu.barrier``, warp shuffles)
``is_barrier``             synchronises the threads of a group (``gpu.barrier``)
=========================  =========================================================

tinycomp does not model speculation (MLIR's ``Pure`` is also ``AlwaysSpeculatable``): no
pass hoists an op out of a condition, so ``is_pure`` means "no memory effect".

>>> from tinycomp.ir import Operation
>>> Operation.is_pure, Operation.effects, Operation.is_commutative
(False, None, False)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tinycomp.ir.attributes import Attribute
from tinycomp.ir.memory_effect import Effect, MemoryEffect

if TYPE_CHECKING:
    from tinycomp.ir.operation import Operation
    from tinycomp.ir.parser import Parser
    from tinycomp.ir.printer import Printer
    from tinycomp.ir.symbols import SymbolTable
    from tinycomp.ir.values import OpResult, Value

__all__ = ["OpDefinition"]


class OpDefinition:
    """The class attributes and hooks of an op (see the module docstring)."""

    # -- structure: what the verifier and the printer check ------------------------------
    name: str = ""
    """The full op name, ``dialect.opname``."""
    is_terminator: bool = False
    """Ends a block (``func.return``, ``cf.br``); must be the last op of its block."""
    is_isolated_from_above: bool = False
    """Its regions may not use values defined outside it (``func.func``, ``module``)."""
    no_terminator: bool = False
    """The blocks of its regions need no terminator (``module``)."""
    has_graph_regions: bool = False
    """Its regions are graph regions: no dominance rule (``module``)."""
    is_symbol_table: bool = False
    """Its region holds ops that define symbols (``module`` holds functions)."""
    has_custom_syntax: bool = False
    """Implements ``print_custom``/``parse_custom``; otherwise printed in generic form."""
    default_dialect: str = ""
    """Inside its regions, ops of this dialect print without the prefix (``return``)."""
    num_operands: int | None = None
    """Exact operand count, checked by the verifier (``None``: any number)."""
    num_results: int | None = None
    """Exact result count (``None``: any number)."""
    num_regions: int | None = None
    """Exact region count (``None``: any number)."""
    num_successors: int | None = None
    """Exact successor count (``None``: any number)."""
    inherent_attributes: tuple[str, ...] = ()
    """Attributes that belong to the op's definition (``<{...}>`` in generic form)."""
    default_attributes: dict[str, Attribute] = {}
    """Attributes whose absence means this value (``fastmath = #arith.fastmath<none>``)."""

    # -- facts the passes ask about ------------------------------------------------------
    is_pure: bool = False
    """No memory effect of its own (MLIR's ``Pure``): removable when unused, mergeable
    with an identical op. Terminators that only pass values on are pure too."""
    effects: tuple[Effect, ...] | None = None
    """Its memory effects per operand (``None``: not declared, so unknown)."""
    has_recursive_effects: bool = False
    """Its effects are those of the ops in its regions (``scf.for``, ``scf.if``)."""
    is_constant_like: bool = False
    """Produces a compile-time constant, its ``value`` attribute (``arith.constant``)."""
    is_commutative: bool = False
    """A binary op with ``op(a, b) == op(b, a)`` for all values (``arith.addf``)."""
    view_source: int | None = None
    """The operand whose memory the result views (``memref.subview``: 0), or ``None``."""
    is_convergent: bool = False
    """All threads of a group must reach it together: no pass may put it under a new
    condition (``gpu.barrier``, shuffles; LLVM's ``convergent``)."""
    is_barrier: bool = False
    """Synchronises the threads of a group: memory accesses may not move across it."""

    if TYPE_CHECKING:
        operands: tuple[Value, ...]
        results: tuple[OpResult, ...]

    # -- hooks a registered op class may override ---------------------------------------
    def get_effects(self) -> list[MemoryEffect] | None:
        """This op's own memory effects (not those of ops nested in it), or ``None`` when
        unknown. The default reads ``is_pure`` and ``effects``; override it when the
        effects depend on the operands' types (linalg on tensors has none, on memrefs it
        reads its ``ins`` and writes its ``outs``).

        >>> from tinycomp.ir import parse
        >>> m = parse('''func.func @f(%a: memref<4xf32>, %b: memref<4xf32>) {
        ...   memref.copy %a, %b : memref<4xf32> to memref<4xf32>
        ...   return }''')
        >>> copy, ret = m.body.first_op.entry_block.ops
        >>> [str(e) for e in copy.get_effects()], ret.get_effects(), m.get_effects()
        (['read %a', 'write %b'], [], None)
        """
        if self.is_pure:
            return []
        if self.effects is None:
            return [] if self.has_recursive_effects else None
        return [effect.resolve(self.operands, self.results) for effect in self.effects]

    def verify_op(self) -> None:
        """Check the op's own invariants; raise ``self.error(...)`` when one is broken."""

    def verify_symbol_uses(self, symbols: SymbolTable) -> None:
        """Check references to symbols (``func.call``'s callee) against ``symbols``, the
        ``SymbolTable`` of the nearest enclosing symbol-table op."""

    def successor_operands(self, index: int) -> Sequence[Value] | None:
        """The operands passed to successor ``index``'s block arguments, or ``None`` when
        the op does not say (unregistered ops)."""
        return None

    def asm_result_names(self) -> Sequence[str | None]:
        """Preferred names for the results when they have no ``name_hint`` (``%c0``)."""
        return ()

    def print_custom(self, printer: Printer) -> None:
        """Print everything after the op name in custom syntax (``has_custom_syntax``)."""
        raise NotImplementedError(f"'{self.name}' has no custom syntax")

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        """Parse everything after the op name in custom syntax and build the op."""
        raise NotImplementedError(f"'{cls.name}' has no custom syntax")
