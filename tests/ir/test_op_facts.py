"""Op facts live on the op classes: every registered class's declarations, checked against
what the reference interpreter does, against MLIR's ODS where the old name tables
disagreed, and the traits the GPU and NPU ops will need, through CSE and DCE."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tinycomp
from tinycomp.interp import Interpreter, InterpreterError
from tinycomp.interp.arguments import to_runtime_value
from tinycomp.interp.memory import Buffer, MemRefValue
from tinycomp.ir import Block, MemRefType, Operation, f32, parse
from tinycomp.ir.effects import (
    is_pure,
    is_trivially_dead,
    may_read,
    may_write,
    may_write_memory,
    memory_effects,
)
from tinycomp.ir.memory_effect import MEMORY, reads, writes
from tinycomp.ir.op_traits import is_barrier, is_commutative, is_convergent
from tinycomp.ir.registry import registered_op_classes
from tinycomp.ir.types import DYNAMIC, FloatType, IndexType, IntegerType
from tinycomp.passes import CSEPass, DCEPass
from tinycomp.rewrite.traits import COMMUTATIVE_OPS, READ_ONLY_OPS, UNUSED_MEANS_DEAD_OPS

ROOT = Path(tinycomp.__file__).parent
CORPUS_FILES = sorted((Path(__file__).parent / "corpus").glob("*.mlir"))
CLASSES = {  # the library's own ops (other tests register test dialects of their own)
    op_class.name: op_class
    for op_class in registered_op_classes()
    if op_class.__module__.startswith("tinycomp.")
}


# -- 1. the declarations themselves ------------------------------------------------------
def test_every_registered_class_declares_consistent_facts():
    assert len(CLASSES) > 140
    for name, op_class in CLASSES.items():
        declared = op_class.effects
        if op_class.is_pure:
            assert declared is None and not op_class.has_recursive_effects, name
        for effect in declared or ():
            if effect.operand is not None and op_class.num_operands is not None:
                assert effect.operand < op_class.num_operands, (name, effect)
            if effect.result is not None and op_class.num_results is not None:
                assert effect.result < op_class.num_results, (name, effect)
        if op_class.is_terminator:  # they only pass values on, or run their regions
            assert op_class.is_pure or op_class.has_recursive_effects, name
        if op_class.has_recursive_effects:
            assert op_class.num_regions != 0, name
        if op_class.view_source is not None:
            assert op_class.is_pure, name
        if op_class.is_commutative:
            assert op_class.num_operands in (2, None), name


# Where the old tables of rewrite/traits.py and ir/effects.py disagreed, MLIR's ODS
# decides: func.return is `[Pure, HasParent<"FuncOp">, MemRefsNormalizable, ReturnLike,
# Terminator]` (mlir/include/mlir/Dialect/Func/IR/FuncOps.td), cf.br and cf.cond_br are
# `Pure, Terminator` (ControlFlowOps.td); func.func, func.call and memref.global
# (`[Symbol]`) have no MemoryEffectOpInterface, so their effects are unknown
# (`mlir-opt-22 --test-side-effects` prints nothing for them); scf.reduce,
# scf.execute_region and tensor.generate have RecursiveMemoryEffects
# (test_mlir_decisions_about_recursive_effects runs the last one through mlir-opt-22).
MLIR_DECISIONS = {
    "func.return": "pure",
    "cf.br": "pure",
    "cf.cond_br": "pure",
    "func.func": "unknown",
    "func.call": "unknown",
    "memref.global": "unknown",
    "builtin.module": "unknown",
    "scf.reduce": "recursive",
    "scf.execute_region": "recursive",
    "tensor.generate": "recursive",
    "scf.for": "recursive",
    "affine.if": "recursive",
}


@pytest.mark.parametrize("name, expected", MLIR_DECISIONS.items())
def test_the_decisions_where_the_old_tables_disagreed(name, expected):
    op_class = CLASSES[name]
    found = (
        "pure"
        if op_class.is_pure
        else "recursive"
        if op_class.has_recursive_effects
        else "unknown"
        if op_class.effects is None
        else "declared"
    )
    assert found == expected, f"'{name}': expected {expected} (as MLIR), found {found}"


@pytest.mark.mlir
def test_mlir_decisions_about_recursive_effects():
    """An unused tensor.generate is erased by mlir-opt's canonicalizer when its body is
    pure and kept when its body stores: its effects are its body's, as tinycomp says."""
    from .mlir_opt import run_mlir_opt

    text = """func.func @f(%m: memref<4xf32>, %i: index, %v: f32) {
  %pure = tensor.generate { ^bb0(%j: index):
    tensor.yield %v : f32 } : tensor<4xf32>
  %storing = tensor.generate { ^bb0(%j: index):
    memref.store %v, %m[%i] : memref<4xf32>
    tensor.yield %v : f32 } : tensor<4xf32>
  return
}"""
    kept = run_mlir_opt(text, "--canonicalize").count("tensor.generate")
    ops = parse(text).body.first_op.entry_block.ops
    assert kept == 1
    assert [is_trivially_dead(op) for op in ops[:2]] == [True, False]


def test_name_sets_are_computed_from_the_classes():
    assert "memref.load" in READ_ONLY_OPS and "vector.load" in READ_ONLY_OPS
    assert "memref.store" not in READ_ONLY_OPS and "nope.op" not in READ_ONLY_OPS
    assert {"memref.alloc", "memref.alloca", "memref.load"} <= set(UNUSED_MEANS_DEAD_OPS)
    assert "memref.copy" not in UNUSED_MEANS_DEAD_OPS
    assert "arith.addf" in COMMUTATIVE_OPS and "arith.subf" not in COMMUTATIVE_OPS
    library_ones = {name for name in COMMUTATIVE_OPS if name in CLASSES}
    assert library_ones == {n for n, c in CLASSES.items() if c.is_commutative}
    assert len(library_ones) == 15  # arith's Commutative ops (ArithOps.td)


# -- 2. the declarations against the interpreter -----------------------------------------
class _Watched(np.ndarray):
    """A buffer's memory that tells the observer about every read and write."""

    observer: EffectObserver | None = None

    def __getitem__(self, key: Any) -> Any:
        if _Watched.observer is not None:
            _Watched.observer.saw("read", self)
        return np.asarray(self)[key]

    def __setitem__(self, key: Any, value: Any) -> None:
        if _Watched.observer is not None:
            _Watched.observer.saw("write", self)
        np.asarray(self)[key] = value


class _OutOfBudget(Exception):
    """The observer has run enough ops of one function."""


class EffectObserver(Interpreter):
    """The reference interpreter, recording what the innermost running op does to which
    buffer (a load inside a loop is the load's)."""

    def __init__(self, module: Operation) -> None:
        super().__init__(module, vectorize_linalg=False)  # the simplest semantics
        self.running: list[Operation] = []
        self.owner: dict[int, Buffer] = {}  # id of a watched array -> its buffer
        self.seen: list[tuple[Operation, str, Buffer, dict]] = []
        self.keys: set[tuple[Operation, str, Buffer]] = set()
        self.budget = 5_000  # ops to run per call: a tiled loop nest repeats itself

    def watch(self, buffer: Buffer) -> None:
        if not isinstance(buffer.data, _Watched):
            buffer.data = buffer.data.view(_Watched)
            buffer.initialized = buffer.initialized.view(_Watched)
        self.owner[id(buffer.data)] = buffer
        self.owner[id(buffer.initialized)] = buffer

    def saw(self, kind: str, array: np.ndarray) -> None:
        buffer = self.owner.get(id(array))
        if buffer is None or not self.running:
            return
        op = self.running[-1]
        key = (op, kind, buffer)
        if key not in self.keys:  # once per op, kind and buffer is enough
            self.keys.add(key)
            self.seen.append((op, kind, buffer, self._buffers_of(op)))

    def _buffers_of(self, op: Operation) -> dict:
        """The buffer behind every memref operand and result of ``op`` right now."""
        frame = self.frames[-1].values
        found = {}
        for value in (*op.operands, *op.results):
            runtime = frame.get(value)
            if isinstance(runtime, MemRefValue):
                found[value] = runtime.buffer
        return found

    def run_op(self, op: Operation):
        self.budget -= 1
        if self.budget < 0:
            raise _OutOfBudget  # what was seen so far stands; the rest repeats it
        for value in op.operands:
            runtime = self.frames[-1].values.get(value)
            if isinstance(runtime, MemRefValue):
                self.watch(runtime.buffer)
        self.running.append(op)
        try:
            return super().run_op(op)
        finally:
            self.running.pop()


def _argument(value_type, rng: np.random.Generator, what: str) -> Any:
    if isinstance(value_type, IndexType):
        return to_runtime_value(1, value_type, what)
    if isinstance(value_type, IntegerType):
        return to_runtime_value(1 if value_type.width > 1 else 0, value_type, what)
    if isinstance(value_type, FloatType):
        return to_runtime_value(float(rng.uniform(-1, 1)), value_type, what)
    shape = tuple(4 if d == DYNAMIC else d for d in value_type.shape)
    dtype = to_runtime_value(0.0, value_type.element_type, what).dtype
    if isinstance(value_type.element_type, IndexType):
        dtype = np.dtype(np.int64)
    array = rng.uniform(0, 2, size=shape).astype(dtype)
    return to_runtime_value(array, value_type, what)


def observed_corpus_effects() -> tuple[list, int]:
    """Run every corpus function the interpreter can run on small random inputs."""
    rng = np.random.default_rng(10)
    seen, ran = [], 0
    for path in CORPUS_FILES:
        module = parse(path.read_text(), filename=path.name)
        for func in module.body.ops:
            if func.name != "func.func" or not func.regions[0].blocks:
                continue
            observer = EffectObserver(module)
            _Watched.observer = observer
            try:
                args = [_argument(a.type, rng, f"%{a.name_hint}") for a in func.arguments]
                observer.call(func.attributes["sym_name"].value, args)
            except _OutOfBudget:
                pass
            except (InterpreterError, TypeError, ValueError, AttributeError):
                continue  # an argument the random inputs cannot satisfy (a bound, a shape)
            finally:
                _Watched.observer = None
            ran += 1
            seen += observer.seen
    return seen, ran


@pytest.fixture(scope="module")
def observed() -> tuple[list, int]:
    return observed_corpus_effects()


def test_no_op_touches_a_buffer_it_does_not_declare(observed):
    """What the interpreter does to a buffer, the op's declaration allows: an op that
    writes a buffer it claims only to read (or does not name) is a defect."""
    seen, ran = observed
    assert ran >= 40 and len(seen) > 60, (ran, len(seen))
    for op, kind, buffer, buffers in seen:
        allowed = [
            effect
            for effect in memory_effects(op)
            if effect.kind == kind and effect.resource == MEMORY
        ]
        ok = any(e.value is None or buffers.get(e.value) is buffer for e in allowed)
        assert ok, (
            f"'{op.name}' at {op.location}: the interpreter saw a {kind} of a buffer its "
            f"declared effects {[str(e) for e in memory_effects(op)]} do not name"
        )


def test_every_declared_kind_of_effect_is_seen_happening(observed):
    """The other way round: each read/write a class declares happens somewhere."""
    seen, _ = observed
    happened: dict[str, set[str]] = defaultdict(set)
    for op, kind, _, _ in seen:
        happened[op.name].add(kind)
    for name in ("memref.load", "memref.copy", "linalg.generic", "linalg.matmul"):
        assert "read" in happened[name], name
    for name in ("memref.store", "memref.copy", "linalg.fill", "linalg.generic", "affine.store"):
        assert "write" in happened[name], name
    for name, kinds in happened.items():
        op_class = CLASSES.get(name)
        if op_class is not None and op_class.effects is not None:
            declared = {effect.kind for effect in op_class.effects}
            assert kinds <= declared, (name, kinds, declared)


# -- 3. traits for the GPU and NPU ops: one class each ------------------------------------
class FlagSetOp(Operation):
    """An NPU-like ``set_flag``: writes synchronisation state, no buffer."""

    name = "npu_test.set_flag"
    num_operands = 0
    num_results = 0
    effects = (writes(resource="npu.flags"),)


class FlagWaitOp(Operation):
    """An NPU-like ``wait_flag``: reads and consumes the flag (so it also writes it)."""

    name = "npu_test.wait_flag"
    num_operands = 0
    num_results = 0
    effects = (reads(resource="npu.flags"), writes(resource="npu.flags"))


class BarrierOp(Operation):
    """A GPU-like ``barrier``: convergent, and it orders every memory access."""

    name = "gpu_test.barrier"
    num_operands = 0
    num_results = 0
    is_convergent = True
    is_barrier = True
    effects = (reads(), writes())


def test_hardware_state_keeps_ops_without_naming_a_buffer():
    buffer = Block([MemRefType((4,), f32)]).arguments[0]
    set_flag, wait = FlagSetOp(), FlagWaitOp()
    assert not is_pure(set_flag) and not is_trivially_dead(wait) and may_write_memory(wait)
    assert not may_write(set_flag, buffer) and not may_read(wait, buffer)
    barrier = BarrierOp()
    assert may_read(barrier, buffer) and may_write(barrier, buffer)
    assert is_convergent(barrier) and is_barrier(barrier) and not is_commutative(barrier)


def test_cse_and_dce_keep_hardware_effects_and_convergence_reaches_loops():
    module = parse("""func.func @f(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
  }
  return
}""")
    entry = module.body.first_op.entry_block
    loop = entry.ops[2]
    for op in (FlagSetOp(), FlagSetOp(), FlagWaitOp()):
        entry.insert_before(op, loop)
    loop.body.insert_before(BarrierOp(), loop.body.last_op)
    assert is_convergent(loop) and not is_convergent(entry.ops[0])
    CSEPass().run(module)
    DCEPass().run(module)
    names = [op.name for op in module.walk()]
    assert names.count("npu_test.set_flag") == 2 and "npu_test.wait_flag" in names
    assert "gpu_test.barrier" in names and "scf.for" in names


# -- 4. the IR core knows no dialect ------------------------------------------------------
def test_the_ir_core_imports_no_dialect():
    for path in sorted((ROOT / "ir").glob("*.py")):
        text = path.read_text()
        assert "tinycomp.dialects" not in text, f"{path.name} mentions tinycomp.dialects"
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("tinycomp.dialects"), path.name
            if isinstance(node, ast.Import):
                for alias in node.names:
                    assert not alias.name.startswith("tinycomp.dialects"), path.name


def test_every_syntax_hook_is_typed():
    """``printer``/``parser`` parameters carry ``Printer``/``Parser``, never ``Any``."""
    untyped = []
    for path in sorted([*(ROOT / "dialects").rglob("*.py"), *(ROOT / "ir").glob("*.py")]):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for arg in node.args.args:
                    if arg.arg in ("printer", "parser"):
                        note = ast.unparse(arg.annotation) if arg.annotation else None
                        if note not in ("Printer", "Parser"):
                            untyped.append(f"{path.relative_to(ROOT)}:{node.lineno} {note}")
    assert not untyped, untyped
