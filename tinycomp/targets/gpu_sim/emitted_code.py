"""Which ops of a kernel would issue no instruction once ``nvcc``/``ptxas`` compiled it,
so that the simulator counts what a GPU would run rather than what the IR spells out.

The rules, each a thing ``ptxas`` does by default:

1. *FMA contraction.* An ``arith.mulf`` whose only use is an ``arith.addf`` or
   ``arith.subf`` is fused with it into one ``FFMA`` (``--fmad=true``): the multiply is
   free, the add counts as the one fp32 instruction.
2. *Full unrolling.* An ``scf.for`` whose bounds and step are ``arith.constant`` and
   that runs at most ``UNROLL_LIMIT`` (64) iterations is unrolled (the rule of
   ``scf-for-full-unroll``, which ``gpu.to_ptx`` applies before LLVM): its loop tests issue
   no branch, and its induction variable becomes a constant in every copy of the body.
3. *Folded integer arithmetic.* An integer (or ``index``) ``arith`` op is free when
   every operand is *static*: a constant, an unrolled loop's induction variable, or the
   result of another static op (the result is static too). Inside an unrolled loop an
   address computation (``addi``, ``muli``, ``shli``, casts...) is also free when its
   operands are static, defined outside that loop (computed once, before it), or
   results of such free ops: the unrolled copies differ only in an immediate offset.
4. *Registers for private arrays.* A load or store of a private
   (``#gpu.address_space<private>``) array whose indices are all static addresses a
   fixed register: no instruction and no local-memory bytes. Any other private access
   is a local-memory access (``ld_local``/``st_local``, counted in bytes).

>>> from tinycomp.ir import parse
>>> module = parse('''gpu.module @m {
...   gpu.func @k(%a: memref<?xf32>) private(%r: memref<4xf32, #gpu.address_space<private>>)
...       kernel {
...     %c0 = arith.constant 0 : index
...     %c1 = arith.constant 1 : index
...     %c4 = arith.constant 4 : index
...     %x = memref.load %a[%c0] : memref<?xf32>
...     scf.for %i = %c0 to %c4 step %c1 {
...       %p = arith.mulf %x, %x : f32
...       %s = arith.addf %p, %x : f32
...       memref.store %s, %r[%i] : memref<4xf32, #gpu.address_space<private>>
...     }
...     gpu.return
...   }
... }''')
>>> code = EmittedCode(module.body.ops[0].body.ops[0])
>>> sorted(op.name for op in code.free), [op.name for op in code.unrolled]
(['arith.mulf', 'memref.store'], ['scf.for'])
"""

from __future__ import annotations

from tinycomp.ir.operation import Operation
from tinycomp.ir.types import IndexType, IntegerType
from tinycomp.ir.values import Value
from tinycomp.passes.unroll import UNROLL_LIMIT, is_fully_unrollable
from tinycomp.targets.gpu_sim.op_classes import instruction_class, memory_space

__all__ = ["UNROLL_LIMIT", "EmittedCode"]

CONTRACTING_USERS = frozenset(["arith.addf", "arith.subf"])
PRIVATE_ACCESSES = {"memref.load": (0, 1), "memref.store": (1, 2)}
"""Op name -> (memref operand, first index operand)."""
LOOPS = frozenset(["scf.for", "scf.while"])


def _is_integer(value: Value) -> bool:
    return isinstance(value.type, IndexType | IntegerType)


def _owner(value: Value) -> Operation | None:
    """The op that defines ``value``, or the op whose region's block has it as argument."""
    op = value.defining_op()
    if op is not None:
        return op
    block = value.parent_block()
    return block.parent_op() if block is not None else None


class EmittedCode:
    """The ops of one ``gpu.func`` that issue nothing, and its fully unrolled loops."""

    def __init__(self, func: Operation) -> None:
        self.free: set[Operation] = set()
        """Ops that issue no instruction (rules 1, 3 and 4)."""
        self.unrolled: set[Operation] = set()
        """``scf.for`` ops taken as fully unrolled (rule 2)."""
        self.registers: set[Operation] = set()
        """Private loads and stores that address registers (rule 4)."""
        self._static: set[Value] = set()
        self._folded: set[Value] = set()
        for op in func.walk():
            if op is not func:
                self._visit(op)

    def instruction_class(self, op: Operation) -> str | None:
        """The class ``op`` counts as, or ``None`` when it issues nothing.

        >>> from tinycomp.ir import Operation, f32
        >>> EmittedCode(Operation.create("gpu.func")).instruction_class(
        ...     Operation.create("arith.addf", result_types=[f32]))
        'fp32'
        """
        return None if op in self.free else instruction_class(op)

    # -- the rules -------------------------------------------------------------------------
    def _visit(self, op: Operation) -> None:
        name = op.name
        if name == "arith.constant":
            self._static.update(op.results)
        elif name == "scf.for":
            self._visit_for(op)
        elif name == "arith.mulf":
            users = [use.user for use in op.results[0].uses]
            if len(users) == 1 and users[0].name in CONTRACTING_USERS:
                self.free.add(op)
        elif name in PRIVATE_ACCESSES:
            memref, first = PRIVATE_ACCESSES[name]
            static = all(x in self._static for x in op.operands[first:])
            if memory_space(op.operands[memref].type) == "local" and static:
                self.free.add(op)
                self.registers.add(op)
        elif name.startswith("arith.") and op.results and self._integer_op(op):
            self._visit_integer(op)

    def _visit_for(self, op: Operation) -> None:
        if is_fully_unrollable(op, UNROLL_LIMIT):  # the rule scf-for-full-unroll applies
            self.unrolled.add(op)
            self._static.add(op.regions[0].blocks[0].arguments[0])

    @staticmethod
    def _integer_op(op: Operation) -> bool:
        return all(_is_integer(x) for x in op.operands) and all(_is_integer(r) for r in op.results)

    def _visit_integer(self, op: Operation) -> None:
        if all(x in self._static for x in op.operands):
            self.free.add(op)
            self._static.update(op.results)
            return
        loop = self._enclosing_loop(op)
        if loop is None or loop not in self.unrolled or op.name == "arith.cmpi":
            return
        if all(x in self._static or x in self._folded or not self._inside(x, loop)
               for x in op.operands):  # fmt: skip
            self.free.add(op)
            self._folded.update(op.results)

    @staticmethod
    def _enclosing_loop(op: Operation) -> Operation | None:
        parent = op.parent_op()
        while parent is not None and parent.name not in LOOPS and parent.name != "gpu.func":
            parent = parent.parent_op()
        return parent if parent is not None and parent.name in LOOPS else None

    @staticmethod
    def _inside(value: Value, loop: Operation) -> bool:
        owner = _owner(value)
        return owner is not None and loop.is_ancestor_of(owner)
