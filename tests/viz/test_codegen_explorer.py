"""codegen_explorer and hot_loop_view: the real passes per setting, counted, nothing printed."""

import numpy as np
import pytest

import tinycomp
from tinycomp.compiler import CompileOptions
from tinycomp.passes.interchange import InterchangePass
from tinycomp.viz import Explorer
from tinycomp.viz.codegen_explorer import codegen_explorer
from tinycomp.viz.hot_loop_view import compile_variant, hot_loop_picture, hottest_loop


@pytest.fixture(scope="module")
def matmul_loops() -> str:
    """C = A @ B as loops (i, k, j): j innermost, B and C walked along rows."""
    a, b = np.ones((16, 32), np.float32), np.ones((32, 512), np.float32)
    options = CompileOptions(extra_passes={"bufferized": [InterchangePass((0, 2, 1))]})
    loops = tinycomp.compile(lambda a, b: a @ b, a, b, options=options, stop_after="loops")
    return str(loops.module)


def test_the_vector_width_decides_the_registers_and_the_fmas(matmul_loops):
    llvm_choice = compile_variant(matmul_loops, "main", "haswell", 3, 0)
    assert llvm_choice.loop.fmas == 0  # no contract flag: LLVM keeps vmulps + vaddps
    assert "vmulps" in llvm_choice.loop.text and "%ymm" in llvm_choice.loop.text
    assert llvm_choice.llvm_vector_lanes == 8
    for width, register in ((4, "xmm"), (8, "ymm")):
        variant = compile_variant(matmul_loops, "main", "haswell", 3, width)
        assert variant.loop.fmas > 0 and variant.loop.fma_registers == register
        # each FMA reads a vector of B and of C and writes C back: 2 loads, 1 store
        assert variant.loop.loads == 2 * variant.loop.fmas
        assert variant.loop.stores == variant.loop.fmas
    avx512 = compile_variant(matmul_loops, "main", "znver4", 2, 16)
    assert avx512.loop.fma_registers == "zmm"


def test_llvm_prefers_256_bit_vectors_on_intel_avx512_and_512_on_zen4(matmul_loops):
    assert compile_variant(matmul_loops, "main", "skylake-avx512", 3, 0).llvm_vector_lanes == 8
    assert compile_variant(matmul_loops, "main", "znver4", 3, 0).llvm_vector_lanes == 16


def test_o0_keeps_every_value_on_the_stack(matmul_loops):
    o0 = compile_variant(matmul_loops, "main", "haswell", 0, 8)
    o2 = compile_variant(matmul_loops, "main", "haswell", 2, 8)
    assert o0.loop.spills > 0 and o2.loop.spills == 0


def test_the_explorer_follows_its_controls_and_prints_nothing(matmul_loops, capsys):
    explorer = codegen_explorer(matmul_loops, cpus=("haswell", "znver4"))
    assert isinstance(explorer, Explorer)
    assert explorer.values == {"opt_level": 3, "vector_width": 0, "cpu": "haswell"}
    assert explorer.label.startswith("haswell, O3, LLVM's width: hot loop of ")
    assert ", 0 FMAs," in explorer.label
    explorer.set(vector_width=8)
    assert explorer.label.startswith("haswell, O3, width 8: ")
    assert "FMAs 8" not in explorer.label  # the label counts, the picture lists
    assert "vfmadd" in explorer.picture.text and "# FMA, load" in explorer.picture.text
    explorer.set(cpu="znver4", vector_width=16)
    assert "%zmm" in explorer.picture.text
    assert explorer.text.startswith('explorer "loops to assembly": opt_level=3, vector_width=16')
    assert capsys.readouterr().out == ""


def test_what_changed_is_drawn_in_orange_and_the_text_twin_does_not_depend_on_it(matmul_loops):
    explorer = codegen_explorer(matmul_loops, cpus=("haswell",))
    first = explorer.picture
    assert 'class="changed"' not in first.svg
    explorer.set(vector_width=8)
    assert 'class="changed"' in explorer.picture.svg  # FMAs went from 0 to 8
    alone = hot_loop_picture(compile_variant(matmul_loops, "main", "haswell", 3, 8))
    assert explorer.picture.text == alone.text
    explorer.set(vector_width=0)
    assert explorer.picture.text == first.text


def test_every_setting_is_compiled_once(matmul_loops):
    compile_variant.cache_clear()
    explorer = codegen_explorer(matmul_loops, cpus=("haswell",))
    explorer.set(opt_level=1)
    explorer.set(opt_level=3)
    assert compile_variant.cache_info().misses == 2
    assert compile_variant.cache_info().hits >= 1


def test_straight_line_code_and_bad_arguments():
    text = "func.func @f(%x: f32) -> f32 {\n  %y = arith.addf %x, %x : f32\n  return %y : f32\n}"
    variant = compile_variant(text, "f", "haswell", 3, 0)
    assert variant.loop is None
    assert "no loop" in hot_loop_picture(variant).text
    assert hottest_loop("f:\n  retq") is None
    with pytest.raises(ValueError, match="vector width in"):
        codegen_explorer(text, vector_width=5)
    with pytest.raises(ValueError, match="func.func"):
        codegen_explorer("module {\n}")
