"""A small builder of npu kernels as MLIR generic text, for the simulator's tests.

Each emitting method appends one line and returns its source line number (1-based, in
the text ``text()`` returns), so a test can check that an error names the right line.

>>> k = KernelText([("x", "memref<256xf16>")])
>>> ub = k.alloc("UB", 256, "f16")
>>> line = k.copy("x", ub, burst_len=256)
>>> "npu.copy" in k.text().splitlines()[line - 1]
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tinycomp.ir import parse
from tinycomp.targets.npu_sim.simulator import simulate

__all__ = ["DTYPES", "KernelText", "attr_text", "run"]

DTYPES = {"f16": np.float16, "f32": np.float32, "bf16": None, "i32": np.int32}
SIZES = {"f16": 2, "f32": 4, "bf16": 2, "i32": 4}


def attr_text(value: Any) -> str:
    """An attribute value in MLIR syntax (ints are i64)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"{value} : i64"
    if isinstance(value, str):
        return f'"{value}"'
    raise TypeError(value)


def _attrs(attributes: dict[str, Any]) -> str:
    items = [f"{key} = {attr_text(v)}" for key, v in attributes.items() if v is not None]
    return " {" + ", ".join(items) + "}" if items else ""


class KernelText:
    """One kernel function (or one half of a MIX kernel) being written."""

    def __init__(
        self,
        args: list[tuple[str, str]],
        *,
        name: str = "k",
        core: str = "aiv",
        kernel_type: str | None = None,
        kernel: str | None = None,
    ) -> None:
        self.args = args
        self.name = name
        self.core = core
        self.kernel_type = kernel_type or core
        self.kernel = kernel
        self.types: dict[str, str] = {n: t for n, t in args}
        self.body: list[str] = []
        self.constants: dict[tuple[Any, str], str] = {}
        self.count = 0
        self.first_line = 1

    # -- values ------------------------------------------------------------------------------
    def fresh(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def const(self, value: Any, type: str = "index") -> str:
        """An ``arith.constant`` (one per value and type)."""
        key = (value, type)
        if key not in self.constants:
            name = self.fresh("c")
            literal = repr(float(value)) if type.startswith(("f", "bf")) else str(int(value))
            self.emit(f"%{name} = arith.constant {literal} : {type}")
            self.types[name] = type
            self.constants[key] = name
        return self.constants[key]

    def _ref(self, value: Any) -> str:
        """An index operand: a name, or a Python int made a constant."""
        return self.const(value) if isinstance(value, int) else value

    def emit(self, line: str) -> int:
        self.body.append("  " + line)
        return self.first_line + len(self.body)

    # -- ops -----------------------------------------------------------------------------------
    def alloc(self, space: str, length: int, dtype: str, offset: int = 0) -> str:
        name = self.fresh(space.lower())
        memref = f'memref<{length}x{dtype}, "{space.lower()}">'
        self.emit(f'%{name} = "npu.alloc"() {{offset = {offset} : i64}} : () -> {memref}')
        self.types[name] = memref
        return name

    def copy(
        self, src: str, dst: str, src_offset: Any = 0, dst_offset: Any = 0, **attributes
    ) -> int:
        so, do = self._ref(src_offset), self._ref(dst_offset)
        types = f"({self.types[src]}, {self.types[dst]}, index, index) -> ()"
        return self.emit(f'"npu.copy"(%{src}, %{dst}, %{so}, %{do}){_attrs(attributes)} : {types}')

    def vector(
        self, op: str, buffers: list[str], offsets: list[Any], scalar: Any = None, **attributes
    ) -> int:
        names = [*buffers, *(self._ref(o) for o in offsets)]
        types = [self.types[b] for b in buffers] + ["index"] * len(offsets)
        if scalar is not None:
            element = self.types[buffers[0]].split("x", 1)[1].split(",")[0]
            names.append(self.const(scalar, element))
            types.append(element)
        operands = ", ".join(f"%{n}" for n in names)
        return self.emit(f'"npu.{op}"({operands}){_attrs(attributes)} : ({", ".join(types)}) -> ()')

    def mmad(self, c: str, a: str, b: str, offsets=(0, 0, 0), **attributes) -> int:
        refs = [self._ref(o) for o in offsets]
        operands = ", ".join(f"%{n}" for n in (c, a, b, *refs))
        types = ", ".join([self.types[c], self.types[a], self.types[b]] + ["index"] * 3)
        return self.emit(f'"npu.mmad"({operands}){_attrs(attributes)} : ({types}) -> ()')

    def set_flag(self, src: str, dst: str, event: Any = 0) -> int:
        e = self._ref(event)
        return self.emit(f'"npu.set_flag"(%{e}) {{src = "{src}", dst = "{dst}"}} : (index) -> ()')

    def wait_flag(self, src: str, dst: str, event: Any = 0) -> int:
        e = self._ref(event)
        return self.emit(f'"npu.wait_flag"(%{e}) {{src = "{src}", dst = "{dst}"}} : (index) -> ()')

    def sync(self, src: str, dst: str, event: Any = 0) -> tuple[int, int]:
        """``set_flag`` then ``wait_flag`` between two pipes."""
        return self.set_flag(src, dst, event), self.wait_flag(src, dst, event)

    def barrier(self, pipe: str = "ALL") -> int:
        return self.emit(f'"npu.pipe_barrier"() {{pipe = "{pipe}"}} : () -> ()')

    def cross_set(self, flag: int, mode: int = 2, pipe: str = "S") -> int:
        attrs = _attrs({"flag": flag, "mode": mode, "pipe": pipe})
        return self.emit(f'"npu.cross_core_set"(){attrs} : () -> ()')

    def cross_wait(self, flag: int, mode: int | None = None, pipe: str = "S") -> int:
        attrs = _attrs({"flag": flag, "mode": mode, "pipe": pipe})
        return self.emit(f'"npu.cross_core_wait"(){attrs} : () -> ()')

    def get_value(self, buffer: str, position: Any) -> str:
        name = self.fresh("v")
        element = self.types[buffer].split("x", 1)[1].split(",")[0]
        p = self._ref(position)
        self.emit(
            f'%{name} = "npu.get_value"(%{buffer}, %{p}) : ({self.types[buffer]}, index) '
            f"-> {element}"
        )
        self.types[name] = element
        return name

    def set_value(self, buffer: str, position: Any, value: str) -> int:
        p = self._ref(position)
        element = self.types[value]
        return self.emit(
            f'"npu.set_value"(%{buffer}, %{p}, %{value}) : ({self.types[buffer]}, index, '
            f"{element}) -> ()"
        )

    def raw(self, line: str) -> int:
        return self.emit(line)

    # -- text ----------------------------------------------------------------------------------
    def lines(self) -> list[str]:
        args = ", ".join(f"%{n}: {t}" for n, t in self.args)
        attrs = {"npu.core": self.core, "npu.kernel_type": self.kernel_type}
        if self.kernel is not None:
            attrs["npu.kernel"] = self.kernel
        attr_list = ", ".join(f'{k} = "{v}"' for k, v in attrs.items())
        head = f"func.func @{self.name}({args}) attributes {{{attr_list}}} {{"
        return [head, *self.body, "  return", "}"]

    def text(self) -> str:
        return "\n".join(self.lines())


def module_text(*kernels: KernelText) -> str:
    """Several functions (the halves of a MIX kernel) in one module; each kernel's line
    numbers are fixed up to where it lands."""
    lines: list[str] = []
    for kernel in kernels:
        assert kernel.first_line == len(lines) + 1, "set first_line before emitting ops"
        lines += kernel.lines()
    return "\n".join(lines)


def run(kernels: KernelText | list[KernelText], args, block_num: int = 1, preset="910b2", **kw):
    """Parse and simulate."""
    kernels = [kernels] if isinstance(kernels, KernelText) else kernels
    return simulate(parse(module_text(*kernels)), args, block_num, preset, **kw)
