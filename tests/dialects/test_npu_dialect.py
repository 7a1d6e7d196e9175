"""The npu dialect: every op parses from generic text and prints back to text that
parses into equal IR (in both forms); each op names its pipe; each verifier error says
what was expected and what was found, naming the op and its line; the memory effects
the op classes declare are what ``tinycomp.ir.effects`` reports, on the op's values."""

from __future__ import annotations

import pytest

import tinycomp.dialects.npu as npu_dialect
from tinycomp.dialects.npu import VECTOR_OP_CLASSES, CopyOp, MmadOp, VectorOp
from tinycomp.ir import first_difference, ir_equal, parse, print_ir
from tinycomp.ir.effects import (
    has_unknown_effects,
    is_pure,
    is_trivially_dead,
    may_read,
    may_write,
    may_write_memory,
    memory_effects,
)
from tinycomp.ir.errors import VerifyError
from tinycomp.ir.memory_effect import MEMORY
from tinycomp.ir.registry import registered_op_classes

UB = 'memref<1024xf16, "ub">'
UB32 = 'memref<512xf32, "ub">'
L1 = 'memref<4096xf16, "l1">'
L0A = 'memref<1024xf16, "l0a">'
L0B = 'memref<1024xf16, "l0b">'
L0C = 'memref<1024xf32, "l0c">'
GM = "memref<4096xf16>"
GM32 = "memref<4096xf32>"

VECTOR_BODY = f"""
  %ub0 = "npu.alloc"() {{offset = 0 : i64}} : () -> {UB}
  %ub1 = "npu.alloc"() {{offset = 2048 : i64}} : () -> {UB}
  %ub2 = "npu.alloc"() {{offset = 4096 : i64}} : () -> {UB}
  %f32 = "npu.alloc"() {{offset = 6144 : i64}} : () -> {UB32}
  "npu.copy"(%x, %ub0, %o, %c0) {{burst_len = 1024 : i64}} : ({GM}, {UB}, index, index) -> ()
  "npu.copy"(%x, %ub1, %c0, %c0) {{burst_len = 10 : i64, n_burst = 4 : i64, pad = true,
      src_stride = 12 : i64, dst_stride = 16 : i64}} : ({GM}, {UB}, index, index) -> ()
  "npu.set_flag"(%c0) {{src = "MTE2", dst = "V"}} : (index) -> ()
  "npu.wait_flag"(%c0) {{src = "MTE2", dst = "V"}} : (index) -> ()
"""
for short in ("vadd", "vsub", "vmul", "vdiv", "vmax", "vmin"):
    VECTOR_BODY += (
        f'  "npu.{short}"(%ub2, %ub0, %ub1, %c0, %c16, %c0) {{repeat = 3 : i64, mask = 100 : i64,'
        f" dst_blk_stride = 2 : i64, src1_rep_stride = 9 : i64}}"
        f" : ({UB}, {UB}, {UB}, index, index, index) -> ()\n"
    )
for short in ("vexp", "vln", "vabs", "vrelu", "vsqrt", "vrec", "vmov"):
    VECTOR_BODY += (
        f'  "npu.{short}"(%ub2, %ub0, %c0, %c16) {{repeat = 2 : i64}}'
        f" : ({UB}, {UB}, index, index) -> ()\n"
    )
for short in ("vadds", "vmuls", "vmaxs", "vmins"):
    VECTOR_BODY += (
        f'  "npu.{short}"(%ub2, %ub0, %c0, %c0, %h) {{repeat = 1 : i64, mask = 7 : i64}}'
        f" : ({UB}, {UB}, index, index, f16) -> ()\n"
    )
VECTOR_BODY += f"""
  "npu.vdup"(%ub2, %c16, %h) {{repeat = 4 : i64, dst_rep_stride = 0 : i64}}
      : ({UB}, index, f16) -> ()
  "npu.vconv"(%f32, %ub0, %c0, %c0) {{repeat = 2 : i64}} : ({UB32}, {UB}, index, index) -> ()
  "npu.vreduce"(%ub2, %ub0, %c0, %c0) {{repeat = 5 : i64, kind = "max", dst_rep_stride = 2 : i64}}
      : ({UB}, {UB}, index, index) -> ()
  "npu.set_flag"(%c0) {{src = "V", dst = "S"}} : (index) -> ()
  "npu.wait_flag"(%c0) {{src = "V", dst = "S"}} : (index) -> ()
  %v = "npu.get_value"(%ub2, %c16) : ({UB}, index) -> f16
  "npu.set_value"(%ub2, %c0, %v) : ({UB}, index, f16) -> ()
  "npu.pipe_barrier"() {{pipe = "V"}} : () -> ()
  "npu.pipe_barrier"() {{pipe = "ALL"}} : () -> ()
  "npu.cross_core_set"() {{flag = 3 : i64, mode = 0 : i64, pipe = "MTE3"}} : () -> ()
  "npu.cross_core_wait"() {{flag = 3 : i64, mode = 0 : i64, pipe = "MTE3"}} : () -> ()
  "npu.copy"(%ub2, %x, %c0, %o) {{burst_len = 1024 : i64}} : ({UB}, {GM}, index, index) -> ()
"""

CUBE_BODY = f"""
  %l1 = "npu.alloc"() {{offset = 0 : i64}} : () -> {L1}
  %a = "npu.alloc"() {{offset = 0 : i64}} : () -> {L0A}
  %b = "npu.alloc"() {{offset = 0 : i64}} : () -> {L0B}
  %c = "npu.alloc"() {{offset = 0 : i64}} : () -> {L0C}
  "npu.copy"(%x, %l1, %c0, %c0) {{burst_len = 40 : i64, n_burst = 20 : i64, layout = "nd2nz"}}
      : ({GM}, {L1}, index, index) -> ()
  "npu.copy"(%x, %b, %c0, %c0) {{burst_len = 24 : i64, n_burst = 40 : i64, layout = "nd2nz"}}
      : ({GM}, {L0B}, index, index) -> ()
  "npu.set_flag"(%c0) {{src = "MTE2", dst = "MTE1"}} : (index) -> ()
  "npu.wait_flag"(%c0) {{src = "MTE2", dst = "MTE1"}} : (index) -> ()
  "npu.copy"(%l1, %a, %c0, %c0) {{burst_len = 1024 : i64}} : ({L1}, {L0A}, index, index) -> ()
  "npu.copy"(%l1, %b, %c0, %c0) {{burst_len = 512 : i64}} : ({L1}, {L0B}, index, index) -> ()
  "npu.mmad"(%c, %a, %b, %c0, %c0, %c0) {{m = 20 : i64, k = 40 : i64, n = 24 : i64}}
      : ({L0C}, {L0A}, {L0B}, index, index, index) -> ()
  "npu.mmad"(%c, %a, %b, %c0, %c0, %c0) {{m = 20 : i64, k = 40 : i64, n = 24 : i64,
      accumulate = true}} : ({L0C}, {L0A}, {L0B}, index, index, index) -> ()
  "npu.copy"(%c, %y, %c0, %c0) {{burst_len = 24 : i64, n_burst = 20 : i64, layout = "nz2nd",
      dst_stride = 32 : i64}} : ({L0C}, {GM}, index, index) -> ()
  "npu.copy"(%c, %l1, %c0, %c0) {{burst_len = 1024 : i64}} : ({L0C}, {L1}, index, index) -> ()
  "npu.copy"(%c, %z, %c0, %c0) {{burst_len = 1024 : i64}} : ({L0C}, {GM32}, index, index) -> ()
  "npu.cross_core_set"() {{flag = 1 : i64, mode = 2 : i64, pipe = "FIX"}} : () -> ()
"""


def positions(header: str) -> str:
    return f"""
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %h = arith.constant 1.5 : f16
  %blk = "npu.block_idx"() : () -> index
  %nblk = "npu.block_num"() : () -> index
  %sub = "npu.sub_block_idx"() : () -> index
  %nsub = "npu.sub_block_num"() : () -> index
  %o = arith.muli %blk, %c16 : index
{header}"""


MODULE = f"""
func.func @k_aiv(%x: {GM}, %y: {GM}, %z: {GM32}) attributes {{npu.core = "aiv",
    npu.kernel = "k", npu.kernel_type = "mix_1_2"}} {{
{positions(VECTOR_BODY)}
  return
}}
func.func @k_aic(%x: {GM}, %y: {GM}, %z: {GM32}) attributes {{npu.core = "aic",
    npu.kernel = "k", npu.kernel_type = "mix_1_2"}} {{
{positions(CUBE_BODY)}
  return
}}
"""

NPU_NAMES = sorted(
    cls.name
    for cls in registered_op_classes()
    if cls.__module__.startswith("tinycomp.dialects.npu")
)


@pytest.fixture(scope="module")
def module():
    return parse(MODULE, filename="npu.mlir")


def npu_ops(module):
    return [op for op in module.walk() if op.name.startswith("npu.")]


def test_the_module_holds_every_npu_op(module):
    assert len(NPU_NAMES) == 14 + len(VECTOR_OP_CLASSES) == 34
    assert sorted({op.name for op in npu_ops(module)}) == NPU_NAMES
    for op in npu_ops(module):
        assert isinstance(op, npu_dialect.base.NpuOp), op.name


@pytest.mark.parametrize("generic", [False, True], ids=["default", "generic"])
def test_printing_and_parsing_back_gives_equal_ir(module, generic):
    printed = print_ir(module, generic=generic)
    again = parse(printed)
    assert first_difference(module, again) is None
    assert ir_equal(module, again)
    assert print_ir(again, generic=generic) == printed  # a fixed point


def test_a_changed_attribute_is_a_difference(module):
    changed = parse(MODULE.replace("repeat = 5 : i64", "repeat = 6 : i64"))
    assert not ir_equal(module, changed)
    assert "repeat" in first_difference(module, changed)


# -- pipes -------------------------------------------------------------------------------------
def test_each_op_names_its_pipe(module):
    aiv, aic = (func for func in module.body.ops)
    got = {}
    for op in npu_ops(module):
        pipe = op.execution_pipe()
        assert pipe in npu_dialect.PIPES, op.name
        if isinstance(op, CopyOp):
            got.setdefault(("npu.copy", op.path), set()).add(pipe)
        elif op.name in ("npu.pipe_barrier", "npu.set_flag", "npu.wait_flag"):
            got.setdefault((op.name, tuple(sorted(op.attributes))), set()).add(pipe)
        else:
            got.setdefault(op.name, set()).add(pipe)
    for name in ("npu.alloc", "npu.block_idx", "npu.block_num", "npu.sub_block_idx",
                 "npu.sub_block_num", "npu.get_value", "npu.set_value"):  # fmt: skip
        assert got[name] == {"S"}, name
    for cls in VECTOR_OP_CLASSES:
        assert got[cls.name] == {"V"}, cls.name
    assert got["npu.mmad"] == {"M"}
    paths = {key[1]: pipes for key, pipes in got.items() if key[0] == "npu.copy"}
    assert paths == {
        ("GM", "UB"): {"MTE2"}, ("GM", "L1"): {"MTE2"}, ("GM", "L0B"): {"MTE2"},
        ("L1", "L0A"): {"MTE1"}, ("L1", "L0B"): {"MTE1"}, ("UB", "GM"): {"MTE3"},
        ("L0C", "GM"): {"FIX"}, ("L0C", "L1"): {"FIX"},
    }  # fmt: skip
    assert got["npu.cross_core_set"] == {"MTE3", "FIX"}
    assert got["npu.cross_core_wait"] == {"MTE3"}


@pytest.mark.parametrize(
    ("text", "pipe"),
    [
        ('"npu.set_flag"(%e) {src = "MTE2", dst = "V"} : (index) -> ()', "MTE2"),
        ('"npu.wait_flag"(%e) {src = "MTE2", dst = "V"} : (index) -> ()', "V"),
        ('"npu.set_flag"(%e) {src = "M", dst = "FIX"} : (index) -> ()', "M"),
        ('"npu.wait_flag"(%e) {src = "V", dst = "S"} : (index) -> ()', "S"),
        ('"npu.pipe_barrier"() {pipe = "MTE3"} : () -> ()', "MTE3"),
        ('"npu.pipe_barrier"() {pipe = "ALL"} : () -> ()', "S"),
        ('"npu.cross_core_wait"() {flag = 0 : i64} : () -> ()', "S"),
        ('"npu.cross_core_set"() {flag = 0 : i64, mode = 1 : i64, pipe = "V"} : () -> ()', "V"),
    ],
)
def test_sync_ops_run_on_the_pipe_they_name(text, pipe):
    module = parse(f"func.func @f(%e: index) {{\n  {text}\n  return\n}}")
    (op,) = npu_ops(module)
    assert op.execution_pipe() == pipe


# -- the verifier ------------------------------------------------------------------------------
ERROR_HEAD = """func.func @f(%x: memref<4096xf16>, %x32: memref<4096xf32>, %e: index, %i: i32,
             %h: f16, %s: f32) {
  %ub = "npu.alloc"() {offset = 0 : i64} : () -> memref<1024xf16, "ub">
  %ub32 = "npu.alloc"() {offset = 4096 : i64} : () -> memref<512xf32, "ub">
  %l1 = "npu.alloc"() {offset = 0 : i64} : () -> memref<4096xf16, "l1">
  %a = "npu.alloc"() {offset = 0 : i64} : () -> memref<1024xf16, "l0a">
  %a32 = "npu.alloc"() {offset = 0 : i64} : () -> memref<512xf32, "l0a">
  %b = "npu.alloc"() {offset = 0 : i64} : () -> memref<1024xf16, "l0b">
  %c = "npu.alloc"() {offset = 0 : i64} : () -> memref<1024xf32, "l0c">
  %c16 = "npu.alloc"() {offset = 0 : i64} : () -> memref<1024xf16, "l0c">
"""
BAD_LINE = ERROR_HEAD.count("\n") + 1
U = 'memref<1024xf16, "ub">'
U32 = 'memref<512xf32, "ub">'

BAD_OPS = {
    "vector op writing L1": (
        '"npu.vadd"(%l1, %ub, %ub, %e, %e, %e) {repeat = 1 : i64} : '
        f'(memref<4096xf16, "l1">, {U}, {U}, index, index, index) -> ()',
        "'npu.vadd' at line {line}: expected the destination in UB, got one in L1",
    ),
    "vector op reading GM": (
        '"npu.vmul"(%ub, %ub, %x, %e, %e, %e) {repeat = 1 : i64} : '
        f"({U}, {U}, memref<4096xf16>, index, index, index) -> ()",
        "expected source #1 in UB, got one in GM",
    ),
    "vector op reading L0A": (
        f'"npu.vexp"(%ub, %a, %e, %e) {{repeat = 1 : i64}} : ({U}, '
        'memref<1024xf16, "l0a">, index, index) -> ()',
        "expected source #0 in UB, got one in L0A",
    ),
    "repeat 0": (
        f'"npu.vabs"(%ub, %ub, %e, %e) {{repeat = 0 : i64}} : ({U}, {U}, index, index) -> ()',
        "expected a repeat count of 1 to 255, got 0 (split the work into several instructions)",
    ),
    "repeat 256": (
        f'"npu.vadd"(%ub, %ub, %ub, %e, %e, %e) {{repeat = 256 : i64}} : ({U}, {U}, {U}, index, '
        "index, index) -> ()",
        "expected a repeat count of 1 to 255, got 256",
    ),
    "mask 129 of f16": (
        f'"npu.vabs"(%ub, %ub, %e, %e) {{repeat = 1 : i64, mask = 129 : i64}} : ({U}, {U}, '
        "index, index) -> ()",
        "expected a mask of 1 to 128 elements (256 bytes of f16), got 129",
    ),
    "mask 65 of f32": (
        f'"npu.vabs"(%ub32, %ub32, %e, %e) {{repeat = 1 : i64, mask = 65 : i64}} : ({U32}, '
        f"{U32}, index, index) -> ()",
        "expected a mask of 1 to 64 elements (256 bytes of f32), got 65",
    ),
    "mask of a conversion": (
        f'"npu.vconv"(%ub32, %ub, %e, %e) {{repeat = 1 : i64, mask = 128 : i64}} : ({U32}, '
        f"{U}, index, index) -> ()",
        "expected a mask of 1 to 64 elements",
    ),
    "mask 0": (
        f'"npu.vabs"(%ub, %ub, %e, %e) {{repeat = 1 : i64, mask = 0 : i64}} : ({U}, {U}, '
        "index, index) -> ()",
        "expected a mask of 1 to 128 elements",
    ),
    "mixed element types": (
        f'"npu.vadd"(%ub, %ub, %ub32, %e, %e, %e) {{repeat = 1 : i64}} : ({U}, {U}, {U32}, '
        "index, index, index) -> ()",
        "expected every buffer to hold f16, got f32",
    ),
    "scalar of the wrong type": (
        f'"npu.vadds"(%ub, %ub, %e, %e, %s) {{repeat = 1 : i64}} : ({U}, {U}, index, index, '
        "f32) -> ()",
        "expected the scalar to be f16, got f32",
    ),
    "too few operands": (
        f'"npu.vadd"(%ub, %ub, %e, %e) {{repeat = 1 : i64}} : ({U}, {U}, index, index) -> ()',
        "expected 3 buffers, 3 offsets (6 operands), got 4",
    ),
    "negative stride": (
        f'"npu.vabs"(%ub, %ub, %e, %e) {{repeat = 1 : i64, src0_rep_stride = -1 : i64}} : '
        f"({U}, {U}, index, index) -> ()",
        "expected src0_rep_stride >= 0, got -1",
    ),
    "offset not an index": (
        f'"npu.vabs"(%ub, %ub, %e, %i) {{repeat = 1 : i64}} : ({U}, {U}, index, i32) -> ()',
        "expected an element offset to be an index, got i32",
    ),
    "unknown reduction": (
        f'"npu.vreduce"(%ub, %ub, %e, %e) {{repeat = 1 : i64, kind = "mean"}} : ({U}, {U}, '
        "index, index) -> ()",
        "expected kind sum, max or min, got 'mean'",
    ),
    "mmad with f32 A": (
        '"npu.mmad"(%c, %a32, %b, %e, %e, %e) {m = 16 : i64, k = 16 : i64, n = 16 : i64} : '
        '(memref<1024xf32, "l0c">, memref<512xf32, "l0a">, '
        'memref<1024xf16, "l0b">, index, index, index) -> ()',
        "'npu.mmad' at line {line}: expected A and B both f16 or both bf16, got f32 and f16",
    ),
    "mmad with f16 C": (
        '"npu.mmad"(%c16, %a, %b, %e, %e, %e) {m = 16 : i64, k = 16 : i64, n = 16 : i64} : '
        '(memref<1024xf16, "l0c">, memref<1024xf16, "l0a">, '
        'memref<1024xf16, "l0b">, index, index, index) -> ()',
        "expected C to accumulate in f32, got f16",
    ),
    "mmad with A and B swapped": (
        '"npu.mmad"(%c, %b, %a, %e, %e, %e) {m = 16 : i64, k = 16 : i64, n = 16 : i64} : '
        '(memref<1024xf32, "l0c">, memref<1024xf16, "l0b">, '
        'memref<1024xf16, "l0a">, index, index, index) -> ()',
        "expected A in L0A, got one in L0B",
    ),
    "mmad with k = 0": (
        '"npu.mmad"(%c, %a, %b, %e, %e, %e) {m = 16 : i64, k = 0 : i64, n = 16 : i64} : '
        '(memref<1024xf32, "l0c">, memref<1024xf16, "l0a">, '
        'memref<1024xf16, "l0b">, index, index, index) -> ()',
        "expected m, k and n >= 1, got (16, 0, 16)",
    ),
    "copy UB -> L1": (
        f'"npu.copy"(%ub, %l1, %e, %e) {{burst_len = 16 : i64}} : ({U}, '
        'memref<4096xf16, "l1">, index, index) -> ()',
        "'npu.copy' at line {line}: no data path UB->L1 on an AI core (the paths: GM->L1, "
        "GM->L0A, GM->L0B, GM->UB, L1->L0A, L1->L0B, UB->GM, L0C->GM, L0C->L1)",
    ),
    "copy GM -> GM": (
        '"npu.copy"(%x, %x, %e, %e) {burst_len = 16 : i64} : (memref<4096xf16>, '
        "memref<4096xf16>, index, index) -> ()",
        "no data path GM->GM on an AI core",
    ),
    "copy L1 -> GM": (
        '"npu.copy"(%l1, %x, %e, %e) {burst_len = 16 : i64} : (memref<4096xf16, '
        '"l1">, memref<4096xf16>, index, index) -> ()',
        "no data path L1->GM on an AI core",
    ),
    "nd2nz into UB": (
        f'"npu.copy"(%x, %ub, %e, %e) {{burst_len = 16 : i64, layout = "nd2nz"}} : '
        f"(memref<4096xf16>, {U}, index, index) -> ()",
        "an nd2nz copy writes L1, L0A or L0B, not UB",
    ),
    "nz2nd out of UB": (
        f'"npu.copy"(%ub, %x, %e, %e) {{burst_len = 16 : i64, layout = "nz2nd"}} : '
        f"({U}, memref<4096xf16>, index, index) -> ()",
        "an nz2nd copy reads L0C, not UB",
    ),
    "unknown layout": (
        f'"npu.copy"(%x, %ub, %e, %e) {{burst_len = 16 : i64, layout = "zn"}} : '
        f"(memref<4096xf16>, {U}, index, index) -> ()",
        "expected a layout among nd, nd2nz, nz2nd, got 'zn'",
    ),
    "conversion on MTE2": (
        f'"npu.copy"(%x32, %ub, %e, %e) {{burst_len = 16 : i64}} : (memref<4096xf32>, {U}, '
        "index, index) -> ()",
        "expected the same element type on both sides, got f32 and f16 (only FixPipe converts, "
        "from f32 to f16 or bf16)",
    ),
    "empty burst": (
        f'"npu.copy"(%x, %ub, %e, %e) {{burst_len = 0 : i64}} : (memref<4096xf16>, {U}, '
        "index, index) -> ()",
        "expected burst_len and n_burst >= 1, got 0 and 1",
    ),
    "offset not an index (copy)": (
        f'"npu.copy"(%x, %ub, %i, %e) {{burst_len = 16 : i64}} : (memref<4096xf16>, {U}, '
        "i32, index) -> ()",
        "expected the source offset to be an index, got i32",
    ),
    "set_flag from a pipe to itself": (
        '"npu.set_flag"(%e) {src = "V", dst = "V"} : (index) -> ()',
        "'npu.set_flag' at line {line}: a flag goes between two pipes, got V to itself "
        "(use pipe_barrier)",
    ),
    "wait_flag on a pipe with a bad name": (
        '"npu.wait_flag"(%e) {src = "MTE2", dst = "VEC"} : (index) -> ()',
        "expected a pipe among S, V, M, MTE1, MTE2, MTE3, FIX, got 'VEC'",
    ),
    "flag named ALL": (
        '"npu.set_flag"(%e) {src = "ALL", dst = "V"} : (index) -> ()',
        "expected a pipe among S, V, M, MTE1, MTE2, MTE3, FIX, got 'ALL'",
    ),
    "event id not an index": (
        '"npu.set_flag"(%i) {src = "MTE2", dst = "V"} : (i32) -> ()',
        "expected the event id to be an index, got i32",
    ),
    "barrier on a bad pipe": (
        '"npu.pipe_barrier"() {pipe = "MTE4"} : () -> ()',
        "expected a pipe among S, V, M, MTE1, MTE2, MTE3, FIX, ALL, got 'MTE4'",
    ),
    "cross-core mode 3": (
        '"npu.cross_core_set"() {flag = 0 : i64, mode = 3 : i64, pipe = "S"} : () -> ()',
        "'npu.cross_core_set' at line {line}: expected mode 0, 1 or 2, got 3",
    ),
    "cross-core wait on a bad pipe": (
        '"npu.cross_core_wait"() {flag = 0 : i64, pipe = "Q"} : () -> ()',
        "expected a pipe among S, V, M, MTE1, MTE2, MTE3, FIX, got 'Q'",
    ),
    "alloc in GM": (
        '%g = "npu.alloc"() {offset = 0 : i64} : () -> memref<64xf16>',
        "expected a memref in an on-chip npu space, got memref<64xf16>",
    ),
    "alloc of a matrix": (
        '%g = "npu.alloc"() {offset = 0 : i64} : () -> memref<8x8xf16, "ub">',
        'expected a 1-D buffer of a static length, got memref<8x8xf16, "ub">',
    ),
    "alloc at a negative offset": (
        '%g = "npu.alloc"() {offset = -32 : i64} : () -> memref<64xf16, "ub">',
        "expected an offset >= 0, got -32",
    ),
    "get_value of the wrong type": (
        f'%g = "npu.get_value"(%ub, %e) : ({U}, index) -> f32',
        "expected the result to be f16, got f32",
    ),
    "get_value of GM": (
        '%g = "npu.get_value"(%x, %e) : (memref<4096xf16>, index) -> f16',
        "expected the buffer in L1 or L0A or L0B or L0C or BT or FB or UB, got one in GM",
    ),
    "set_value of the wrong type": (
        f'"npu.set_value"(%ub, %e, %s) : ({U}, index, f32) -> ()',
        "expected the value to be f16, got f32",
    ),
    "block_idx that is not an index": (
        '%g = "npu.block_idx"() : () -> i32',
        "expected an index result, got i32",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_OPS))
def test_the_verifier_says_what_is_wrong(case):
    line_text, expected = BAD_OPS[case]
    with pytest.raises(VerifyError) as info:
        parse(f"{ERROR_HEAD}  {line_text}\n  return\n}}")
    message = info.value.message
    op_name = line_text.split('"', 2)[1]
    assert message.startswith(f"'{op_name}' at line {BAD_LINE}: "), message
    assert expected.format(line=BAD_LINE) in message, message


def test_the_error_head_alone_verifies():
    parse(f"{ERROR_HEAD}  return\n}}")


@pytest.mark.parametrize(
    ("text", "fine"),
    [
        ('"npu.pipe_barrier"() {pipe = "ALL"} : () -> ()', True),
        ('"npu.cross_core_set"() {flag = 0 : i64, mode = 2 : i64, pipe = "S"} : () -> ()', True),
        (f'"npu.vabs"(%ub, %ub, %e, %e) {{repeat = 255 : i64, mask = 1 : i64}} : ({U}, {U}, '
         "index, index) -> ()", True),
        (f'"npu.vconv"(%ub32, %ub, %e, %e) {{repeat = 1 : i64, mask = 64 : i64}} : ({U32}, '
         f"{U}, index, index) -> ()", True),
        ('"npu.copy"(%c, %x, %e, %e) {burst_len = 16 : i64, layout = "nz2nd"} : (memref<1024xf32, '
         "\"l0c\">, memref<4096xf16>, index, index) -> ()", True),
    ],
)  # fmt: skip
def test_the_limits_themselves_verify(text, fine):
    assert fine
    parse(f"{ERROR_HEAD}  {text}\n  return\n}}")


# -- op facts: memory effects --------------------------------------------------------------
def effects(op):
    return sorted(
        (effect.kind, effect.value.name_hint if effect.value is not None else None, effect.resource)
        for effect in memory_effects(op)
    )


def test_vector_ops_write_the_destination_and_read_the_sources(module):
    for op in npu_ops(module):
        if not isinstance(op, VectorOp):
            continue
        buffers = [b.name_hint for b in op.buffers]
        expected = sorted(
            [("write", buffers[0], MEMORY)] + [("read", b, MEMORY) for b in buffers[1:]]
        )
        assert effects(op) == expected, op.name
        assert may_write(op, op.buffers[0]) and not is_pure(op)
        assert all(may_read(op, source) for source in op.buffers[1:])


def test_copies_read_the_source_and_write_the_destination(module):
    copies = [op for op in npu_ops(module) if isinstance(op, CopyOp)]
    assert len(copies) == 10
    for op in copies:
        src, dst = op.operands[0], op.operands[1]
        assert effects(op) == sorted(
            [("read", src.name_hint, MEMORY), ("write", dst.name_hint, MEMORY)]
        )
        assert may_read(op, src) and may_write(op, dst) and not is_pure(op)


def test_mmad_reads_a_and_b_and_reads_and_writes_c(module):
    mmads = [op for op in npu_ops(module) if isinstance(op, MmadOp)]
    assert [op.accumulate for op in mmads] == [False, True]
    for op in mmads:
        assert effects(op) == sorted([("read", "a", MEMORY), ("read", "b", MEMORY),
                                      ("read", "c", MEMORY), ("write", "c", MEMORY)])  # fmt: skip
        assert op.fractals == 2 * 3 * 2  # ceil(20/16) * ceil(40/16) * ceil(24/16)
        assert may_read(op, op.operands[1]) and may_write(op, op.operands[0])


def test_scalar_reads_and_writes_of_a_buffer(module):
    (get,) = [op for op in npu_ops(module) if op.name == "npu.get_value"]
    (put,) = [op for op in npu_ops(module) if op.name == "npu.set_value"]
    assert effects(get) == [("read", "ub2", MEMORY)]
    assert effects(put) == [("write", "ub2", MEMORY)]
    assert not is_trivially_dead(get)  # its value is used by the set_value


def test_flags_are_a_resource_of_their_own(module):
    by_name: dict[str, list] = {}
    for op in npu_ops(module):
        by_name.setdefault(op.name, []).append(op)
    for op in by_name["npu.set_flag"]:
        assert effects(op) == [("write", None, "npu.flags")]
    for op in by_name["npu.wait_flag"]:
        assert effects(op) == [("read", None, "npu.flags"), ("write", None, "npu.flags")]
    for op in by_name["npu.cross_core_set"]:
        assert effects(op) == [("write", None, "npu.cross_core_flags")]
    for op in by_name["npu.cross_core_wait"]:
        assert effects(op) == [("read", None, "npu.cross_core_flags"),
                               ("write", None, "npu.cross_core_flags")]  # fmt: skip
    for op in by_name["npu.set_flag"] + by_name["npu.wait_flag"] + by_name["npu.cross_core_set"]:
        # impure and kept, but they touch no buffer
        assert not is_pure(op) and not is_trivially_dead(op) and may_write_memory(op)
        assert not has_unknown_effects(op)
        assert all(effect.resource != MEMORY for effect in memory_effects(op))


def test_a_barrier_orders_all_memory(module):
    for op in npu_ops(module):
        if op.name == "npu.pipe_barrier":
            assert op.is_barrier and has_unknown_effects(op)
            assert not is_trivially_dead(op)


def test_allocs_and_positions_are_pure(module):
    for op in npu_ops(module):
        if op.name in ("npu.alloc", "npu.block_idx", "npu.block_num", "npu.sub_block_idx",
                       "npu.sub_block_num"):  # fmt: skip
            assert is_pure(op) and effects(op) == [], op.name
    (nsub,) = [op for op in npu_ops(module) if op.name == "npu.sub_block_num"][:1]
    assert is_trivially_dead(nsub)  # unused


def test_declared_effects_name_operands_the_ops_have():
    for cls in registered_op_classes():
        if not cls.name.startswith("npu."):
            continue
        for effect in cls.effects or ():
            if effect.operand is not None:
                assert cls.num_operands is None or effect.operand < cls.num_operands, cls.name
