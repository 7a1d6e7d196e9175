"""Graded tests for chapter 08 (`ch08_loops_to_llvm.py`): an emitter, GEMM blocking, a micro-kernel.

Each test carries its task's marker; `impl` is the module under test (see conftest.py).
While the student's code runs, the library's own answers to a task (its blocking model,
its micro-kernel generator, its tile rule) raise `LibraryAnswer`, however they were
imported: the tasks ask for the computation, not for a call.

* Task 08.1 registers the student's `emit_fpowi` as the emitter of `math.fpowi`, checks the
  LLVM IR it writes (no `@llvm.powi`, which the JIT cannot link; every overloaded intrinsic
  named for its types, for each element type: LLVM's parser would quietly rename a wrong
  one), JIT-compiles kernels (O0 and O3, i32 and i64 exponents, f16, f32, f64) and compares
  them with numpy on random bases of both signs and exponents from -3 to 5. bf16 is
  checked in the IR only: on a core without AVX-512 BF16, LLVM lowers a bf16 rounding to
  a call of `__truncsfbf2`, a compiler-runtime function this JIT does not link.
* Task 08.2 compares KC, MC and NC with the model its docstring states, written out here,
  on named hierarchies and on random ones; a wrong size is answered with the bytes and
  ways that show which constraint it breaks or leaves unused.
* Task 08.3 runs the micro-kernel in the reference interpreter and as native code against
  numpy, checks that no loop touches C, then compiles the student's tile for `haswell`
  and `skylake-avx512` (named CPUs, so every machine counts the same assembly) and counts
  every loop that does arithmetic: no spills, no stores, only vector FMAs, and the FMAs
  per load the docstring asks for. Speed is measured for the feedback, never graded.
"""

from __future__ import annotations

import math
import re
import time

import llvmlite.binding as llvm
import numpy as np
import pytest

from tinycomp.codegen.cpu import jit
from tinycomp.codegen.cpu.assembly import function_assembly
from tinycomp.codegen.cpu.optimize import optimize, parse_and_verify
from tinycomp.codegen.cpu.target import CpuHooks
from tinycomp.codegen.errors import CodegenError
from tinycomp.codegen.llvm import EMITTERS, emit_llvm, register_emitter
from tinycomp.codegen.llvm.types import intrinsic_suffix
from tinycomp.grading.checks import GradingFailure, expect_array_close
from tinycomp.grading.library_calls import library_answers_blocked
from tinycomp.interp import interpret
from tinycomp.ir import ParseError, VerifyError, parse, verify
from tinycomp.ir.types import VectorType
from tinycomp.targets.cpu.caches import format_bytes
from tinycomp.testing.tolerances import DTYPES

task08_1 = pytest.mark.task08_1
task08_2 = pytest.mark.task08_2
task08_3 = pytest.mark.task08_3


# -- your own work: the library's answers are out of reach while your code runs ----------
ANSWERS = {
    "08.1": {},  # the library has no math.fpowi lowering: its emitters are building blocks
    "08.2": {
        "tinycomp.targets.cpu.blis.blocking:choose_blocking": "the library's BLIS blocking",
    },
    "08.3": {
        "tinycomp.targets.cpu.blis.microkernel:microkernel_ir": "the library's micro-kernel",
        "tinycomp.targets.cpu.blis.gemm:gemm_module_ir": "the library's whole GEMM module",
        "tinycomp.targets.cpu.blis.blocking:register_tile": "the library's tile rule",
        "tinycomp.targets.cpu.blis.blocking:choose_blocking": "the library's BLIS blocking",
    },
}
"""Per task, the library functions that compute its answer, blocked while the student's
code runs (building blocks such as ``FunctionEmitter`` or ``math.gcd`` stay usable)."""


def own_work(impl, task: str, what: str):
    """Run the student's code with the library's answers to ``task`` blocked: a call of
    one of them, through any module that holds it, fails the test with ``LibraryAnswer``
    (even when the student's code swallowed the exception)."""
    return library_answers_blocked(impl, what, ANSWERS[task])


# -- Task 08.1 ---------------------------------------------------------------------------
POWI_KERNEL = """func.func @powi(%x: memref<?x{t}>, %n: {i}, %out: memref<?x{t}>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %len = memref.dim %x, %c0 : memref<?x{t}>
  scf.for %k = %c0 to %len step %c1 {{
    %v = memref.load %x[%k] : memref<?x{t}>
    %p = "math.fpowi"(%v, %n) : ({t}, {i}) -> {t}
    memref.store %p, %out[%k] : memref<?x{t}>
  }}
  return
}}"""

CUBE = """func.func @cube(%x: f32) -> f32 {
  %three = arith.constant 3 : i32
  %p = "math.fpowi"(%x, %three) : (f32, i32) -> f32
  return %p : f32
}"""

FLOATS = {"f16": "half", "bf16": "bfloat", "f32": "float", "f64": "double"}
"""MLIR float type -> LLVM's name for it."""
RTOL = {"f16": 2e-3, "f32": 2e-6, "f64": 1e-12}
"""About two units in the last place of each type: powf is within one, rounding adds one."""
EXPONENTS = (0, 1, 2, 3, 5, -1, -2, -3)
DECLARE = re.compile(r"^declare\s+(?P<ret>.+?)\s+@(?P<name>[\w.$]+)\((?P<args>.*)\)", re.MULTILINE)


@pytest.fixture
def fpowi_emitter(impl):
    """The student's ``emit_fpowi`` registered for ``math.fpowi`` during one test; a stub's
    NotImplementedError comes out as itself (the grader then says "not started")."""
    before = EMITTERS.get("math.fpowi")
    register_emitter("math.fpowi", replace=True)(impl.emit_fpowi)
    try:
        try:
            emit_llvm(parse(CUBE))
        except CodegenError as error:
            if isinstance(error.__cause__, NotImplementedError):
                raise error.__cause__ from None
            raise GradingFailure(f"math.fpowi: your emitter failed on\n{CUBE}\n{error}") from None
        yield
    finally:
        EMITTERS.pop("math.fpowi", None)
        if before is not None:
            EMITTERS["math.fpowi"] = before


def emitted_powi(impl, float_type: str, int_type: str) -> tuple[str, str]:
    """The kernel's tinycomp IR and the LLVM IR the student's emitter makes of it, checked
    for the two things the JIT cannot survive or LLVM would silently repair."""
    text = POWI_KERNEL.format(t=float_type, i=int_type)
    what = f"math.fpowi ({float_type} base, {int_type} exponent)"
    try:
        with own_work(impl, "08.1", f"emit_fpowi on {what}"):
            llvm_ir = emit_llvm(parse(text)).text
    except CodegenError as error:
        raise GradingFailure(f"{what}: your emitter failed: {error}\nkernel:\n{text}") from None
    if "@llvm.powi" in llvm_ir:  # running it would call __powisf2 at address 0
        raise GradingFailure(
            f"{what}: the LLVM IR calls @llvm.powi, which LLVM's x86 backend turns into a "
            "call of __powisf2 from the compiler runtime (libgcc, compiler-rt); this JIT "
            "links the C math library only, so the call would crash the process"
        )
    for declaration in DECLARE.finditer(llvm_ir):
        check_intrinsic_name(what, declaration, llvm_ir)
    return text, llvm_ir


def check_intrinsic_name(what: str, declaration: re.Match, llvm_ir: str) -> None:
    """An overloaded float intrinsic is named for its return type: ``llvm.pow.f16`` for
    ``half`` (LLVM LangRef, "Intrinsic Functions"; the parser renames a wrong one)."""
    name, ret = declaration["name"], declaration["ret"].strip()
    if not name.startswith("llvm.") or not (ret in FLOATS.values() or ret.startswith("<")):
        return
    suffix = intrinsic_suffix(ret)
    if not name.endswith("." + suffix):
        raise GradingFailure(
            f"{what}: the LLVM IR declares @{name} returning {ret}: an overloaded "
            f"intrinsic's name carries its types (LLVM LangRef, 'Intrinsic Functions'), so "
            f"for {ret} it must end in .{suffix}. LLVM's parser quietly renames the "
            "declaration, which hides the mistake; other tools reject it.\n"
            f"  {declaration.group(0)}"
        )


def random_bases(rng, length: int, float_type: str) -> np.ndarray:
    magnitude = rng.uniform(0.5, 2.0, length)
    return (magnitude * rng.choice([-1.0, 1.0], length)).astype(DTYPES.get(float_type, "f8"))


@task08_1
@pytest.mark.parametrize("float_type", sorted(FLOATS))
def test_fpowi_names_its_intrinsics_for_each_type(impl, fpowi_emitter, float_type):
    for int_type in ("i32", "i64"):
        emitted_powi(impl, float_type, int_type)


@task08_1
@pytest.mark.parametrize(
    "float_type, int_type, opt_level",
    [("f32", "i32", 0), ("f32", "i32", 3), ("f32", "i64", 0), ("f32", "i64", 3),
     ("f16", "i32", 3), ("f16", "i64", 0), ("f64", "i32", 3), ("f64", "i64", 0)],
)  # fmt: skip
def test_fpowi_matches_numpy(impl, fpowi_emitter, float_type, int_type, opt_level):
    text, _ = emitted_powi(impl, float_type, int_type)
    what = f"math.fpowi ({float_type} base, {int_type} exponent, O{opt_level})"
    try:
        native = jit(parse(text), opt_level=opt_level)
    except CodegenError as error:
        raise GradingFailure(f"{what}: LLVM rejected your emitter's code: {error}") from None
    rng = np.random.default_rng(81 + opt_level)
    dtype = np.dtype(DTYPES.get(float_type, np.float64))
    x = random_bases(rng, 23, float_type).astype(dtype)
    right = []
    for n in EXPONENTS:
        out = np.full(x.shape, np.nan, dtype)
        native["powi"](x, n, out)
        expected = np.power(x.astype(np.float64), n).astype(dtype)
        try:
            expect_array_close(f"{what}: x ** {n}", out, expected, rtol=RTOL[float_type])
        except GradingFailure as failure:
            hint = ""
            if n < 0 and right and min(right) >= 0:
                hint = (
                    f"\n(x ** n is right for n = {', '.join(map(str, right))}: how is a "
                    f"negative {int_type} turned into a float?)"
                )
            raise GradingFailure(f"{failure}\nbases x: {x[:6]} ...{hint}") from None
        right.append(n)


# -- Task 08.2 ---------------------------------------------------------------------------
KIB, MIB = 1024, 1024 * 1024
MACHINES = {
    # name: (MR, NR, L1, L2, L3 share or None, itemsize); caches as (size, ways, line)
    "laptop AVX2": (6, 16, (32 * KIB, 8, 64), (256 * KIB, 4, 64), (2 * MIB, 16, 64), 4),
    "Zen 5 (AVX-512)": (14, 32, (48 * KIB, 12, 64), (1 * MIB, 16, 64), (4 * MIB, 16, 64), 4),
    "Apple M1 (no L3)": (14, 8, (128 * KIB, 8, 128), (3 * MIB, 12, 128), None, 4),
    "Skylake-X": (14, 32, (32 * KIB, 8, 64), (1 * MIB, 16, 64), (1408 * KIB, 11, 64), 4),
    "f64 on AVX2": (4, 12, (32 * KIB, 8, 64), (256 * KIB, 4, 64), (8 * MIB, 16, 64), 8),
    "tiny caches": (8, 8, (4 * KIB, 2, 32), (16 * KIB, 2, 32), (64 * KIB, 4, 32), 4),
    "odd tile": (5, 24, (32 * KIB, 8, 64), (512 * KIB, 8, 64), (16 * MIB, 16, 64), 2),
}


def describe_cache(level: str, cache) -> str:
    size, count, line = cache
    way = format_bytes(size // count)
    return f"{level} {format_bytes(size)} ({count} ways of {way}, {line}-B lines)"


def ways(count: int) -> str:
    return f"{count} way" if count == 1 else f"{count} ways"


def check_kc(where: str, kc: int, mr: int, nr: int, l1, s: int) -> None:
    """KC against the L1 constraint (the docstring's first rule)."""
    size, total, line = l1
    way = size // total
    a_ways = max(1, math.floor((total - 1) / (1 + nr / mr)))
    quantum = line // math.gcd(line, mr * s)
    best = max(quantum, a_ways * way // (mr * s) // quantum * quantum)
    sliver = mr * kc * s
    if kc == best:
        return
    if sliver % line:
        problem = f"the A sliver (MR x KC x S = {sliver} B) is not a whole number of {line}-B lines"
    elif sliver > a_ways * way and kc > quantum:
        problem = (
            f"the A sliver (MR x KC x S = {sliver} B) needs more than the {ways(a_ways)} "
            f"({a_ways * way} B) A may use beside B's sliver and C's way"
        )
    elif kc < best:
        problem = (
            f"a deeper sliver still fits: KC = {best} gives {mr * best * s} B of the "
            f"{ways(a_ways)} ({a_ways * way} B) A may use"
        )
    else:
        problem = f"the largest depth that fits and is whole lines is {best}"
    raise GradingFailure(f"{where}: KC = {kc} is wrong: {problem}")


def check_block(where, name, found, multiple, kc, beside, cache, s, label):
    """MC (L2) or NC (L3): the largest multiple of ``multiple`` beside ``beside`` bytes."""
    size, total, _ = cache
    way = size // total
    taken = math.ceil(beside / way)
    room = max(1, total - 1 - taken)
    best = max(multiple, room * way // (kc * s) // multiple * multiple)
    if found == best:
        return
    block = found * kc * s
    why = f"{label} takes {ways(taken)} ({beside} B), C 1, which leaves {room} of {ways(total)}"
    if total - 1 - taken < 1:
        why = f"{label} takes {ways(taken)} ({beside} B), C 1, which leaves none of "
        why += f"{ways(total)}, so the block gets one (at least one way)"
    if found % multiple:
        problem = f"{name} is not a multiple of {multiple}"
    elif block > room * way and found > multiple:
        problem = f"its block ({name} x KC x S = {block} B) does not fit in {room * way} B"
    else:
        problem = f"{name} = {best} still fits ({best * kc * s} of {room * way} B)"
    raise GradingFailure(f"{where}: {name} = {found} (with KC = {kc}) is wrong: {why}; {problem}")


def check_blocking(impl, mr, nr, l1, l2, l3, s) -> None:
    caches = [describe_cache("L1", l1), describe_cache("L2", l2)]
    caches.append("no L3" if l3 is None else describe_cache("L3", l3))
    where = f"cache_blocking(MR={mr}, NR={nr}, S={s}) for {'; '.join(caches)}"
    with own_work(impl, "08.2", "cache_blocking"):
        found = impl.cache_blocking(mr, nr, l1, l2, l3, s)
    if not (isinstance(found, (tuple, list)) and len(found) == 3):
        raise GradingFailure(f"{where}: expected a tuple (KC, MC, NC), found {found!r}")
    if not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in found):
        raise GradingFailure(f"{where}: expected three positive ints, found {found!r}")
    kc, mc, nc = found
    check_kc(where, kc, mr, nr, l1, s)
    check_block(where, "MC", mc, mr, kc, nr * kc * s, l2, s, "the B sliver (NR x KC x S)")
    if l3 is None:
        if nc != max(nr, 4096 // nr * nr):
            raise GradingFailure(
                f"{where}: NC = {nc} is wrong: without an L3, NC is NC_WITHOUT_L3 (4096) "
                f"rounded down to a multiple of NR={nr}"
            )
        return
    check_block(where, "NC", nc, nr, kc, mc * kc * s, l3, s, "the A block (MC x KC x S)")


def random_hierarchy(rng):
    line = int(rng.choice([32, 64, 128]))
    lanes = int(rng.choice([4, 8, 16]))
    mr, nr = int(rng.integers(2, 17)), lanes * int(rng.integers(1, 5))
    l1_ways = int(rng.choice([2, 4, 8, 12, 16]))
    l1 = (l1_ways * int(rng.choice([1, 2, 4, 8])) * KIB, l1_ways, line)
    l2_ways = int(rng.choice([4, 8, 12, 16]))
    l2 = (l2_ways * int(rng.choice([16, 32, 64, 128])) * KIB, l2_ways, line)
    l3_ways = int(rng.choice([8, 11, 12, 16, 20]))
    l3 = (l3_ways * int(rng.choice([64, 128, 256, 512])) * KIB, l3_ways, line)
    s = int(rng.choice([2, 4, 8]))
    return mr, nr, l1, l2, None if rng.random() < 0.2 else l3, s


@task08_2
@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_cache_blocking_on_named_cores(impl, machine):
    check_blocking(impl, *MACHINES[machine])


@task08_2
def test_cache_blocking_on_random_hierarchies(impl):
    rng = np.random.default_rng(82)
    for _ in range(60):
        check_blocking(impl, *random_hierarchy(rng))


# -- Task 08.3 ---------------------------------------------------------------------------
SHAPES = [(1, 8, 8), (2, 8, 8), (4, 16, 8), (6, 16, 8), (5, 8, 4), (3, 32, 16), (2, 48, 16)]
VIEWS = ("memref.subview", "memref.cast", "memref.reinterpret_cast", "memref.collapse_shape",
         "memref.expand_shape", "memref.transpose")  # fmt: skip
LOOPS = ("scf.for", "scf.while", "scf.parallel", "affine.for", "affine.parallel")
FLOAT_MATH = ("arith.addf", "arith.mulf", "arith.subf", "arith.divf", "math.fma", "vector.fma")


def kernel_module(impl, mr: int, nr: int, lanes: int):
    what = f"microkernel_ir({mr}, {nr}, {lanes})"
    with own_work(impl, "08.3", what):
        text = impl.microkernel_ir(mr, nr, lanes)
    if not isinstance(text, str):
        raise GradingFailure(
            f"{what}: expected the MLIR text of @tile, found {type(text).__name__}"
        )
    try:
        module = parse(text)
        verify(module)
    except (ParseError, VerifyError) as error:
        raise GradingFailure(f"{what} is not valid IR: {error}\nIR:\n{text}") from None
    tiles = [op for op in module.walk() if op.name == "func.func" and op.sym_name == "tile"]
    wanted = [f"memref<{mr}x?xf32>", f"memref<?x{nr}xf32>", f"memref<{mr}x{nr}xf32>"]
    found = [str(arg.type) for arg in tiles[0].arguments] if tiles else None
    if found != wanted:
        raise GradingFailure(
            f"{what}: expected func.func @tile({', '.join(wanted)}), found "
            f"{'no @tile' if found is None else '@tile(' + ', '.join(found) + ')'}"
        )
    return module, text, what


def random_operands(rng, mr: int, nr: int, k: int):
    a = rng.standard_normal((mr, k)).astype(np.float32)
    b = rng.standard_normal((k, nr)).astype(np.float32)
    c = rng.standard_normal((mr, nr)).astype(np.float32)
    return a, b, c


def check_product(what: str, run, mr: int, nr: int, depths, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for k in depths:
        a, b, c = random_operands(rng, mr, nr, k)
        expected = c.astype(np.float64) + a.astype(np.float64) @ b.astype(np.float64)
        run(a, b, c)
        expect_array_close(f"{what}, k={k}: C + A @ B", c, expected.astype(np.float32),
                           rtol=1e-4, atol=1e-4)  # fmt: skip


@task08_3
@pytest.mark.parametrize("mr, nr, lanes", SHAPES)
def test_microkernel_matches_numpy_in_the_interpreter(impl, mr, nr, lanes):
    module, _, what = kernel_module(impl, mr, nr, lanes)
    run = lambda a, b, c: interpret(module, a, b, c, entry="tile")  # noqa: E731
    check_product(f"{what} (interpreter)", run, mr, nr, (1, 7, 33), 83 + mr)


@task08_3
@pytest.mark.parametrize("mr, nr, lanes", SHAPES)
def test_microkernel_runs_natively(impl, mr, nr, lanes, record_property):
    module, _, what = kernel_module(impl, mr, nr, lanes)
    try:
        native = jit(module, opt_level=3)
    except CodegenError as error:
        raise GradingFailure(f"{what}: LLVM could not compile it: {error}") from None
    check_product(f"{what} (native)", native["tile"], mr, nr, (1, 16, 129), 84 + mr)
    if (mr, nr, lanes) == (6, 16, 8):
        record_property("tinycomp_note", measured_speed(native, mr, nr, lanes))


def measured_speed(native, mr: int, nr: int, lanes: int) -> str:
    """The micro-kernel's speed on this machine, for the feedback: measured, never graded."""
    k, calls = 4096, 50
    a, b, c = random_operands(np.random.default_rng(7), mr, nr, k)
    start = time.perf_counter()
    for _ in range(calls):
        native["tile"](a, b, c)
    gflops = 2 * mr * nr * k * calls / (time.perf_counter() - start) / 1e9
    return (
        f"your {mr}x{nr} micro-kernel ({lanes} lanes) ran at {gflops:.1f} GFLOPS on this "
        "machine, Python call overhead included (shown, never graded)"
    )


@task08_3
@pytest.mark.parametrize("mr, nr, lanes", [(2, 8, 8), (6, 16, 8), (3, 32, 16)])
def test_microkernel_keeps_c_in_registers(impl, mr, nr, lanes):
    module, _, what = kernel_module(impl, mr, nr, lanes)
    tile = next(op for op in module.walk() if op.name == "func.func" and op.sym_name == "tile")
    c_views = {tile.arguments[2]}
    for op in tile.walk():
        if op.name in VIEWS and op.operands and op.operands[0] in c_views:
            c_views.update(op.results)
    for loop in (op for op in tile.walk() if op.name in LOOPS):
        for op in loop.walk():
            if op is not loop and any(value in c_views for value in op.operands):
                raise GradingFailure(
                    f"{what}: a loop touches C: '{str(op).strip().splitlines()[0]}' "
                    f"inside '{str(loop).strip().splitlines()[0]}'. The tile of C should "
                    "stay in vector registers (values the loop carries) until the loop ends"
                )
            if op.name in FLOAT_MATH and not isinstance(op.results[0].type, VectorType):
                raise GradingFailure(
                    f"{what}: scalar float arithmetic in a loop: "
                    f"'{str(op).strip().splitlines()[0]}'; compute on vector<{lanes}xf32>"
                )


BUDGETS = {
    # target: (registers, lanes, LLVM CPU, register kind, FMAs per load at least)
    "AVX2": (16, 8, "haswell", "ymm", 1.7),
    "AVX-512": (32, 16, "skylake-avx512", "zmm", 2.0),
}
_LABEL = re.compile(r"^(\.L[\w$.]+):")
_JUMP = re.compile(r"^j\w+\s+(\.L[\w$.]+)")
_ARITHMETIC = re.compile(r"^v?(fn?m(add|sub)\w*|add|sub|mul|div|min|max|sqrt)[ps][sdh]$")
_PACKED_FMA = re.compile(r"^vfn?m(add|sub)\w*ps$")


def named_cpu_assembly(text: str, cpu: str) -> str:
    """``@tile``'s x86 assembly for the LLVM CPU ``cpu`` at O3, whatever the host is."""
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    machine = llvm.Target.from_triple("x86_64-unknown-linux-gnu").create_target_machine(
        cpu=cpu, features="", opt=3
    )
    emitted = emit_llvm(parse(text), CpuHooks(machine))
    module = parse_and_verify(emitted.text, emitted)
    optimize(module, machine, 3)
    return function_assembly(machine.emit_assembly(module), "tile")


def assembly_loops(assembly: str) -> list[tuple[str, list[str]]]:
    """Every loop (a label and a later jump back to it) as (label, its instructions)."""
    lines = [" ".join(line.split("#")[0].split()) for line in assembly.splitlines()]
    lines = [x for x in lines if x and not (x.startswith(".") and not _LABEL.match(x))]
    where = {m.group(1): i for i, x in enumerate(lines) if (m := _LABEL.match(x))}
    loops = []
    for index, line in enumerate(lines):
        jump = _JUMP.match(line)
        if jump and where.get(jump.group(1), index) < index:
            body = lines[where[jump.group(1)] + 1 : index + 1]
            loops.append((jump.group(1), [x for x in body if not _LABEL.match(x)]))
    return loops


def count(body: list[str], register: str) -> dict[str, int]:
    """The counts of one loop body: arithmetic, FMAs (packed, on ``register``), loads,
    stores (the memory operand is the destination, AT&T's last), spills (%rsp, %rbp)."""
    counts = dict.fromkeys(("arithmetic", "fmas", "loads", "stores", "spills"), 0)
    for line in body:
        mnemonic, _, operands = line.partition(" ")
        if _ARITHMETIC.match(mnemonic):
            counts["arithmetic"] += 1
            registers = set(re.findall(r"%([xyz]mm)\d+", operands))
            counts["fmas"] += bool(_PACKED_FMA.match(mnemonic)) and registers == {register}
        if "(" not in operands or mnemonic.startswith(("lea", "prefetch", "nop")):
            continue
        counts["spills"] += "%rsp" in operands or "%rbp" in operands
        writes = (
            operands.endswith(")") and "," in operands and not mnemonic.startswith(("cmp", "test"))
        )
        counts["stores" if writes else "loads"] += 1
    return counts


@task08_3
@pytest.mark.parametrize("target", sorted(BUDGETS))
def test_choose_tile_meets_the_budget(impl, target):
    registers, lanes, cpu, register, budget = BUDGETS[target]
    what = f"choose_tile({registers}, {lanes})"
    with own_work(impl, "08.3", what):
        tile = impl.choose_tile(registers, lanes)
    ok = isinstance(tile, (tuple, list)) and len(tile) == 2 and all(
        isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in tile)  # fmt: skip
    if not ok or tile[1] % lanes:
        raise GradingFailure(f"{what}: expected (MR, NR) with NR a multiple of {lanes}, "
                             f"found {tile!r}")  # fmt: skip
    mr, nr = tile
    module, text, kernel = kernel_module(impl, mr, nr, lanes)
    check_product(f"{kernel} (interpreter)", lambda a, b, c: interpret(
        module, a, b, c, entry="tile"), mr, nr, (5,), 85)  # fmt: skip
    assembly = named_cpu_assembly(text, cpu)
    where = f"{what} = ({mr}, {nr}): the assembly of {kernel} for {cpu} ({target}, {registers} "
    where += f"{register} registers)"
    if re.search(r"^\s*call", assembly, re.MULTILINE):
        raise GradingFailure(f"{where} calls a function: the kernel must do the work itself")
    working = [(label, body) for label, body in assembly_loops(assembly)
               if count(body, register)["arithmetic"]]  # fmt: skip
    if not working:
        raise GradingFailure(f"{where} has no loop that does arithmetic:\n{assembly}")
    per_step = mr * nr // lanes
    for label, body in working:
        counts = count(body, register)
        listing = "\n".join("    " + line for line in body[:60])
        loop = f"{where}: its loop {label} (per iteration: {counts['fmas']} FMAs on {register}, "
        loop += f"{counts['loads']} loads, {counts['stores']} stores, {counts['spills']} spills)"
        problem = None
        if counts["spills"]:
            needed = per_step + nr // lanes + 1
            problem = (
                f"spills: the tile needs {per_step} accumulators, {nr // lanes} vectors of B "
                f"and a broadcast of A, {needed} registers of {registers}"
            )
        elif counts["stores"]:
            problem = "stores to memory: the tile of C should stay in registers"
        elif counts["fmas"] != counts["arithmetic"]:
            others = sorted({line.split()[0] for line in body if _ARITHMETIC.match(line.split()[0])
                             and not _PACKED_FMA.match(line.split()[0])})  # fmt: skip
            problem = f"arithmetic that is not a vector FMA on {register}: {', '.join(others)}"
            if any(name.startswith(("vmul", "vadd")) for name in others):
                problem += " (a multiply and an add stay two instructions without contract)"
        elif counts["fmas"] < budget * counts["loads"]:
            ratio = counts["fmas"] / counts["loads"]
            problem = (
                f"{ratio:.2f} FMAs per load, the budget is at least {budget}: one step of k "
                f"loads NR/lanes = {nr // lanes} vectors of B and broadcasts MR = {mr} elements "
                f"of A for MR x NR/lanes = {per_step} FMAs"
            )
        elif counts["fmas"] % per_step:
            problem = (
                f"FMAs that are not a whole number of steps of k: each step of the {mr} x {nr} "
                f"tile is {per_step} FMAs (MR x NR/lanes)"
            )
        if problem is not None:
            raise GradingFailure(f"{loop} has {problem}\n{listing}")
