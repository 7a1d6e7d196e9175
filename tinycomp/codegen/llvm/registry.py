"""The emitter registry: one function per op name, and the ``FunctionEmitter`` they write with.

An *emitter* turns one tinycomp op into LLVM instructions. It is a plain function
registered under the op's name::

    @register_emitter("arith.addf")
    def emit_addf(em: FunctionEmitter, op: Operation) -> None:
        result = em.fresh(op.result.name_hint or "addf")   # "%in.1"
        type_ = em.llvm_type(op.result.type)                # "float"
        em.emit(f"{result} = fadd {type_} {em.value(op.operands[0])}, "
                f"{em.value(op.operands[1])}")
        em.bind(op.result, result)                          # later uses read "%in.1"

The ``FunctionEmitter`` holds the state of the function being written: which LLVM
operand text each tinycomp value has become (``value``/``bind``; a memref is a
``MemRefDescriptor``, see ``descriptor.py``), the local names in use (``fresh``), the
basic block being filled (``emit``) and the module's declarations (``intrinsic``).
Structured ops (``scf.for``) emit their regions with ``emit_block`` and create blocks
and phi nodes with ``fresh_label``/``start_block``/``add_phi`` (``control_flow.py``
wraps the common shapes). Emitting an op, step by step (``emit_op``):

1. Find the op's emitter; none is a ``CodegenError`` that names the op and its line
   and lists the ops that have one.
2. Remember the op as the *current op*: every line written now is attributed to it, so
   LLVM's complaints about a line can be traced back (``renderer.py``).
3. Run the emitter; any other exception it raises becomes a ``CodegenError`` naming
   the op, so a bug in a new emitter points at the op that triggered it.

This is MLIR's ``ConversionPattern`` per op of ``-convert-to-llvm`` with a
``TypeConverter``, flattened: tinycomp writes text directly instead of building
``llvm`` dialect ops and translating them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tinycomp.codegen.errors import CodegenError
from tinycomp.codegen.llvm import index_math
from tinycomp.codegen.llvm.descriptor import MemRefDescriptor, descriptor_part_types
from tinycomp.codegen.llvm.names import NameTable
from tinycomp.codegen.llvm.renderer import BlockText, FunctionText, ModuleText
from tinycomp.codegen.llvm.types import llvm_type as convert_type
from tinycomp.ir.block import Block
from tinycomp.ir.location import describe_location
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import MemRefType, Type
from tinycomp.ir.values import Value

__all__ = [
    "EMITTERS",
    "EmitterFn",
    "FunctionEmitter",
    "describe_op",
    "register_emitter",
    "supported_ops",
]

EmitterFn = Callable[["FunctionEmitter", Operation], None]
"""An emitter: writes the LLVM instructions of one op and binds its results."""

EMITTERS: dict[str, EmitterFn] = {}
"""Op name -> its emitter. Filled by the ``emit_*`` modules when they are imported."""


def register_emitter(op_name: str, replace: bool = False) -> Callable[[EmitterFn], EmitterFn]:
    """Decorator: register ``fn(emitter, op)`` as the LLVM emitter of ``op_name``.

    Registering a second, different function for a name is an error unless
    ``replace=True`` (re-running the same definition, as a notebook cell does, is fine).

    >>> @register_emitter("test.nothing")
    ... def emit_nothing(em, op):
    ...     pass
    >>> EMITTERS["test.nothing"] is emit_nothing
    True
    >>> del EMITTERS["test.nothing"]
    """

    def decorate(fn: EmitterFn) -> EmitterFn:
        known = EMITTERS.get(op_name)
        same = known is not None and (known.__module__, known.__qualname__) == (
            fn.__module__,
            fn.__qualname__,
        )
        if known is not None and not same and not replace:
            raise CodegenError(
                f"'{op_name}' already has an LLVM emitter ({known.__module__}."
                f"{known.__qualname__}); pass replace=True to register_emitter to replace it"
            )
        EMITTERS[op_name] = fn
        return fn

    return decorate


def supported_ops() -> str:
    """The ops that have an emitter, grouped by dialect: ``arith: addf, addi, ...``.

    >>> [group for group in supported_ops().split("; ") if group.startswith("scf")]
    ['scf: execute_region, for, if, while']
    """
    by_dialect: dict[str, list[str]] = {}
    for name in sorted(EMITTERS):
        dialect, _, short = name.partition(".")
        by_dialect.setdefault(dialect, []).append(short)
    return "; ".join(f"{d}: {', '.join(ops)}" for d, ops in sorted(by_dialect.items()))


def describe_op(op: Operation) -> str:
    """``'arith.addf' at line 7 (%0 = arith.addf %a, %b : f32)``: the op, its line when
    it has one, and its first line of text.

    >>> from tinycomp.ir import parse
    >>> module = parse("func.func @f() {\\n  return\\n}")
    >>> describe_op(module.body.first_op.entry_block.first_op)
    "'func.return' at line 2 (func.return)"
    """
    text = str(op).strip().splitlines()[0]
    if len(text) > 100:
        text = text[:97] + "..."
    shown = f" ({text})" if text else ""
    return f"'{op.name}'{describe_location(op.location)}{shown}"


@dataclass
class _Phi:
    """A phi node whose incoming values are still being collected."""

    label: str
    type: str
    op: Operation | None
    incoming: list[tuple[str, str]] = field(default_factory=list)


class FunctionEmitter:
    """The state of one LLVM function being emitted (see the module docstring).

    By hand, without any tinycomp op (``emit_function`` does this for a ``func.func``):

    >>> from tinycomp.codegen.llvm.renderer import FunctionText, ModuleText
    >>> module, function = ModuleText(), FunctionText("inc", "i64", [("i64", "x")])
    >>> em = FunctionEmitter(module, function)
    >>> em.start_block("entry")
    >>> y = em.fresh("y")
    >>> em.emit(f"{y} = add i64 %x, 1")
    >>> em.emit(f"ret i64 {y}")
    >>> em.finish()
    >>> module.functions.append(function)
    >>> print(module.render().text)
    define i64 @inc(i64 %x) {
    entry:
      %y = add i64 %x, 1
      ret i64 %y
    }
    """

    def __init__(self, module: ModuleText, function: FunctionText) -> None:
        self.module = module
        """The module being emitted: declarations go there."""
        self.function = function
        """The function being filled."""
        self.hooks = module.hooks
        """The target's hooks (address spaces, convergent calls)."""
        self.current_op: Operation | None = None
        """The op being emitted; lines written now are attributed to it."""
        self.names = NameTable()
        """The local names in use (values and labels share them)."""
        self.block_targets: dict[Block, tuple[str, list[list[str]]]] = {}
        """Blocks of a multi-block function body that branches go to: their label, and
        the phi names of each block argument (one per LLVM part), see ``emit_cf.py``."""
        self._values: dict[Value, str | MemRefDescriptor] = {}
        self._blocks: dict[str, BlockText] = {}
        self._phis: dict[str, _Phi] = {}
        self._block: BlockText | None = None

    # -- the registration API ------------------------------------------------------------
    def value(self, v: Value) -> str:
        """The LLVM operand text of a scalar or vector value: ``"%in"``, ``"8"``,
        ``"0x3FF0000000000000"``."""
        bound = self._values.get(v)
        if bound is None:
            what = f"%{v.name_hint}" if v.name_hint else f"a value of type {v.type}"
            raise CodegenError(f"{what} is used before an emitter bound it to an LLVM value")
        if isinstance(bound, MemRefDescriptor):
            raise CodegenError(
                f"{v.type} is a memref: several LLVM values; use emitter.memref(value)"
            )
        return bound

    def bind(self, v: Value, text: str | MemRefDescriptor) -> None:
        """Record that tinycomp value ``v`` is LLVM operand ``text`` (or, for a memref,
        the descriptor) from now on."""
        self._values[v] = text

    def fresh(self, hint: str = "v") -> str:
        """A new local name, ``"%hint"`` or, when taken, ``"%hint.N"``."""
        return "%" + self.names.fresh(hint)

    def emit(self, line: str) -> None:
        """Append one instruction to the current block, attributed to the current op."""
        if self._block is None:
            raise CodegenError("no current block to emit into (call start_block first)")
        if self._block.is_terminated:
            raise CodegenError(
                f"block %{self._block.label} already ends in '{self._block.lines[-1][0]}'; "
                f"cannot append '{line}'"
            )
        self._block.lines.append((line, self.current_op))

    def llvm_type(self, t: Type) -> str:
        """The LLVM type of ``t``: ``"float"``, ``"half"``, ``"bfloat"``, ``"i64"``,
        ``"<8 x float>"``; for a memref the type of its pointers (``"ptr"``)."""
        space = self.hooks.address_space(t.memory_space) if isinstance(t, MemRefType) else 0
        return convert_type(t, space)

    def intrinsic(self, name: str, ret: str, args: Sequence[str]) -> str:
        """Declare function ``name`` (an LLVM intrinsic such as ``llvm.fma.v8f32`` or a
        library function such as ``erff``) once; returns ``"@name"`` to call."""
        return self.module.declare(name.lstrip("@"), ret, list(args))

    def op_error(self, op: Operation, message: str) -> CodegenError:
        """A ``CodegenError`` naming ``op`` and its line: ``raise em.op_error(op, ...)``."""
        return CodegenError(f"{describe_op(op)}: {message}", op)

    # -- calls ---------------------------------------------------------------------------
    def call(self, callee: str, ret: str, args: Sequence[tuple[str, str]], hint: str = "call"):
        """Emit ``call ret @callee(type value, ...)``, ``convergent`` when the target
        says so; returns the result's name (``None`` for ``void``)."""
        name = callee.lstrip("@")
        arguments = ", ".join(f"{type_} {text}" for type_, text in args)
        suffix = " convergent" if self.hooks.is_convergent(name) else ""
        if ret == "void":
            self.emit(f"call void @{name}({arguments}){suffix}")
            return None
        result = self.fresh(hint)
        self.emit(f"{result} = call {ret} @{name}({arguments}){suffix}")
        return result

    # -- memrefs and values of several parts ----------------------------------------------
    def memref(self, v: Value) -> MemRefDescriptor:
        """The descriptor of a memref value (``descriptor.py``)."""
        bound = self._values.get(v)
        if not isinstance(bound, MemRefDescriptor):
            raise CodegenError(f"expected a memref value bound to a descriptor, got {v.type}")
        return bound

    def element_pointer(self, memref: Value | MemRefDescriptor, indices: Sequence[str]) -> str:
        """The address of element ``indices`` (operand texts) of a memref:
        ``offset + sum(index * stride)`` elements past the aligned pointer."""
        descriptor = memref if isinstance(memref, MemRefDescriptor) else self.memref(memref)
        linear = descriptor.offset
        for index, stride in zip(indices, descriptor.strides, strict=True):
            linear = index_math.add(self, linear, index_math.mul(self, index, stride))
        element = self.llvm_type(descriptor.type.element_type)
        pointer = self.fresh("ptr")
        self.emit(
            f"{pointer} = getelementptr inbounds {element}, {descriptor.pointer} "
            f"{descriptor.aligned}, i64 {linear}"
        )
        return pointer

    def load(
        self, memref: Value | MemRefDescriptor, indices: Sequence[str], type_: str, align: int,
        hint: str = "load",
    ) -> str:  # fmt: skip
        """``%hint = load type_, ptr <element address>, align A``; returns the name. The
        pointer is in the memref's address space (``ptr addrspace(3)`` on a GPU)."""
        descriptor = memref if isinstance(memref, MemRefDescriptor) else self.memref(memref)
        address = self.element_pointer(descriptor, indices)
        result = self.fresh(hint)
        self.emit(f"{result} = load {type_}, {descriptor.pointer} {address}, align {align}")
        return result

    def store(
        self, value: str, type_: str, memref: Value | MemRefDescriptor, indices: Sequence[str],
        align: int,
    ) -> None:  # fmt: skip
        """``store type_ value, ptr <element address>, align A``."""
        descriptor = memref if isinstance(memref, MemRefDescriptor) else self.memref(memref)
        address = self.element_pointer(descriptor, indices)
        self.emit(f"store {type_} {value}, {descriptor.pointer} {address}, align {align}")

    def part_types(self, t: Type) -> list[str]:
        """The LLVM types a value of type ``t`` is made of: one, or a memref's fields."""
        if isinstance(t, MemRefType):
            return descriptor_part_types(t.rank, self.llvm_type(t))
        return [self.llvm_type(t)]

    def parts(self, v: Value) -> list[tuple[str, str]]:
        """``(type, text)`` of each LLVM value ``v`` is made of."""
        if isinstance(v.type, MemRefType):
            return self.memref(v).parts()
        return [(self.llvm_type(v.type), self.value(v))]

    def bind_parts(self, v: Value, texts: Sequence[str]) -> None:
        """Bind ``v`` to values given part by part (phis, parameters, call results)."""
        if isinstance(v.type, MemRefType):
            pointer = self.llvm_type(v.type)
            self.bind(v, MemRefDescriptor.from_parts(v.type, pointer, list(texts)))
        else:
            (text,) = texts
            self.bind(v, text)

    # -- blocks and phis -----------------------------------------------------------------
    @property
    def current_label(self) -> str:
        """The label of the block being filled."""
        if self._block is None:
            raise CodegenError("no current block")
        return self._block.label

    def fresh_label(self, hint: str) -> str:
        """Reserve a block label (without ``%``) to branch to before the block exists."""
        return self.names.fresh(hint)

    def start_block(self, label: str) -> None:
        """Append the block ``label`` to the function and make it current."""
        block = self.function.add_block(label)
        self._blocks[label] = block
        self._block = block

    def add_phi(self, label: str, name: str, type_: str) -> None:
        """Declare phi ``name`` of ``type_`` at the start of block ``label``; its incoming
        values come with ``add_incoming``."""
        self._phis[name] = _Phi(label, type_, self.current_op)

    def add_incoming(self, name: str, value: str, predecessor: str) -> None:
        """Phi ``name`` takes ``value`` when control comes from block ``predecessor``."""
        self._phis[name].incoming.append((value, predecessor))

    def finish(self) -> None:
        """Write the phis into their blocks and check that every block is terminated."""
        for name, phi in self._phis.items():
            incoming = ", ".join(f"[ {value}, %{block} ]" for value, block in phi.incoming)
            self._blocks[phi.label].phis.append((f"{name} = phi {phi.type} {incoming}", phi.op))
        for block in self.function.blocks:
            if not block.is_terminated:
                raise CodegenError(
                    f"block %{block.label} of @{self.function.name} has no terminator"
                )

    # -- ops -----------------------------------------------------------------------------
    def emit_op(self, op: Operation) -> None:
        """Emit one op with its registered emitter (steps 1-3 of the module docstring)."""
        emitter = EMITTERS.get(op.name)
        if emitter is None:
            raise self.op_error(
                op,
                "no LLVM emitter for this op (bufferize and lower to loops first, or "
                f"register one with register_emitter); ops with an emitter: {supported_ops()}",
            )
        previous, self.current_op = self.current_op, op
        try:
            emitter(self, op)
        except CodegenError as error:
            if error.op is not None:
                raise
            raise self.op_error(op, error.message) from None  # say which op it was
        except Exception as error:
            raise self.op_error(
                op, f"the LLVM emitter failed: {type(error).__name__}: {error}"
            ) from error
        finally:
            self.current_op = previous

    def emit_block(self, block) -> Operation | None:
        """Emit every op of a tinycomp block. A terminator with an emitter of its own
        (``func.return``, ``cf.br``) is emitted like any op; one without (``scf.yield``,
        ``affine.yield``: its parent op reads its operands) is returned to the caller."""
        terminator = block.terminator
        for op in block.ops:
            if op is terminator and op.name not in EMITTERS:
                return op
            self.emit_op(op)
        return None
