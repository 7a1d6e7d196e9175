"""ptxas_report: the resources ptxas -v reports, and ptxas's own errors."""

from __future__ import annotations

import pytest

from tinycomp.codegen.errors import CodegenError
from tinycomp.codegen.gpu import ptx, ptxas_report, ptxas_unavailable
from tinycomp.codegen.gpu.ptxas import WHEEL_PTXAS, find_ptxas, parse_ptxas_log

needs_ptxas = pytest.mark.skipif(ptxas_unavailable() is not None, reason=str(ptxas_unavailable()))

LOG = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'a' for 'sm_90'
ptxas info    : Function properties for a
    16 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 2048 bytes smem, 360 bytes cmem[0]
ptxas info    : Compiling entry function 'b' for 'sm_90'
ptxas info    : Function properties for b
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 6 registers, used 0 barriers, 352 bytes cmem[0]
"""


def test_the_log_is_read_per_kernel() -> None:
    kernels = parse_ptxas_log(LOG)
    assert (kernels["a"].registers, kernels["a"].spill_stores, kernels["a"].spill_loads) == (
        40,
        8,
        12,
    )
    assert (kernels["a"].shared_bytes, kernels["a"].stack_frame) == (2048, 16)
    assert (kernels["b"].registers, kernels["b"].shared_bytes) == (6, 0)


@needs_ptxas
def test_ptx_that_does_not_assemble_is_a_codegen_error_with_ptxas_message() -> None:
    broken = (
        ".version 7.0\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\tnot_an_op;\n}\n"
    )
    with pytest.raises(CodegenError, match=r"ptxas rejected the PTX for sm_80:\n.*not_an_op"):
        ptxas_report(broken, "sm_80")


@needs_ptxas
def test_a_report_for_real_ptx() -> None:
    text = ptx("gpu.module @m {\n  gpu.func @k() kernel {\n    gpu.barrier\n    gpu.return\n  }\n}")
    report = ptxas_report(text, "sm_80")
    assert report.arch == "sm_80" and report.kernels["k"].spill_stores == 0


def test_without_ptxas_the_report_is_none_and_says_why(monkeypatch) -> None:
    monkeypatch.setattr("tinycomp.codegen.gpu.ptxas.find_ptxas", lambda: None)
    assert ptxas_report(".version 7.0\n", "sm_80") is None
    assert "not on PATH" in ptxas_unavailable()
    assert "nvidia-cuda-nvcc" in ptxas_unavailable()


def _fake_ptxas(where) -> str:
    where.parent.mkdir(parents=True, exist_ok=True)
    where.write_text("#!/bin/sh\necho fake\n")
    where.chmod(0o755)
    return str(where)


@pytest.mark.parametrize("layout", WHEEL_PTXAS)
def test_ptxas_is_found_inside_an_nvcc_wheel(tmp_path, layout) -> None:
    site = tmp_path / "site-packages"
    fake = _fake_ptxas(site / layout)
    assert (
        find_ptxas(path=str(tmp_path / "empty"), roots=[str(tmp_path / "none"), str(site)]) == fake
    )


def test_ptxas_on_path_comes_before_the_wheel(tmp_path) -> None:
    on_path = _fake_ptxas(tmp_path / "bin" / "ptxas")
    _fake_ptxas(tmp_path / "site" / WHEEL_PTXAS[0])
    assert find_ptxas(path=str(tmp_path / "bin"), roots=[str(tmp_path / "site")]) == on_path


def test_a_wheel_ptxas_that_cannot_run_is_not_found(tmp_path) -> None:
    site = tmp_path / "site"
    fake = site / WHEEL_PTXAS[1]
    fake.parent.mkdir(parents=True)
    fake.write_text("not executable")
    assert find_ptxas(path=str(tmp_path / "empty"), roots=[str(site)]) is None
