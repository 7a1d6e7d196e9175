"""Hypothesis strategy for random scf/affine loop nests, as MLIR text.

``loop_nests()`` writes one function whose body is a random tree of ``affine.for`` (all
kinds of bounds, steps, iter_args), ``affine.if``, ``affine.load``/``store`` with random
subscripts, ``affine.apply``/``min``, ``scf.for`` (with and without iter_args), ``scf.if``
(with and without results) and float arithmetic. It tracks which values are in scope,
and which of those are valid affine dimensions and symbols (an ``scf.for`` counter is
neither), so every nest verifies in tinycomp and in mlir-opt.

Subscripts are written the way MLIR itself prints them (one loop counter per
subscript, symbols and constants after it), so mlir-opt's re-print is the same IR.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from hypothesis import strategies as st

SIGNATURE = "(%A: memref<16x16xf32>, %B: memref<?xf32>, %n: index, %m: index, %x: f32, %flag: i1)"
MAX_DEPTH = 3


@dataclass
class Scope:
    """The values visible at one point, by role."""

    dims: list[str] = field(default_factory=list)
    """Index values that may be affine dimensions (affine.for counters, apply results)."""
    symbols: list[str] = field(default_factory=lambda: ["%n", "%m"])
    """Index values that may be affine symbols."""
    indices: list[str] = field(default_factory=lambda: ["%n", "%m", "%c0", "%c1"])
    """Any index value (for memref.load and scf bounds)."""
    floats: list[str] = field(default_factory=lambda: ["%x"])
    """f32 values."""

    def nested(self) -> Scope:
        """A copy for a nested region: it sees everything, adds its own values."""
        return replace(
            self,
            dims=list(self.dims),
            symbols=list(self.symbols),
            indices=list(self.indices),
            floats=list(self.floats),
        )


class Names:
    """Hands out fresh SSA names."""

    def __init__(self) -> None:
        self.count = 0

    def fresh(self, stem: str) -> str:
        self.count += 1
        return f"%{stem}{self.count}"


def _subscript(draw, scope: Scope) -> str:
    """One subscript: ``[dim term] [+ symbol] [+/- constant]`` (never empty). A value is
    used in one role only (MLIR would merge ``%a * 2 + symbol(%a)`` into ``%a * 3``)."""
    parts = []
    if scope.dims and draw(st.booleans()):
        dim = draw(st.sampled_from(scope.dims))
        form = draw(st.sampled_from(["{}", "{} * 2", "{} floordiv 3", "{} mod 4", "{} * 3"]))
        parts.append(form.format(dim))
    symbols = [name for name in scope.symbols if name not in scope.dims]
    if symbols and draw(st.booleans()):
        parts.append(f"symbol({draw(st.sampled_from(symbols))})")
    constant = draw(st.integers(-3, 5))
    if not parts:
        return str(draw(st.integers(0, 15)))
    text = " + ".join(parts)
    if constant > 0:
        text += f" + {constant}"
    elif constant < 0:
        text += f" - {-constant}"
    return text


def _bound(draw, scope: Scope, lower: bool) -> str:
    kinds = ["constant", "symbol"] + (["map", "minmax"] if scope.dims else [])
    kind = draw(st.sampled_from(kinds))
    if kind == "constant":
        return str(draw(st.integers(-2, 3) if lower else st.integers(4, 16)))
    if kind == "symbol":
        return draw(st.sampled_from(scope.symbols))
    dim = draw(st.sampled_from(scope.dims))
    if kind == "map":
        shift = "" if lower else " + 4"
        return f"affine_map<(d0) -> (d0{shift})>({dim})"
    symbol = draw(st.sampled_from(scope.symbols))
    if lower:
        return f"max affine_map<(d0)[s0] -> (d0, s0)>({dim})[{symbol}]"
    return f"min affine_map<(d0)[s0] -> (d0 + 4, s0)>({dim})[{symbol}]"


def _statements(draw, scope: Scope, names: Names, depth: int, lines: list[str], indent: str):
    """Append a few random statements to ``lines``."""
    count = draw(st.integers(0 if depth else 1, 3))
    for _ in range(count):
        kinds = ["load", "store", "arith", "apply"]
        if depth < MAX_DEPTH:
            kinds += ["affine_for", "affine_for", "affine_if", "scf_for", "scf_if"]
        kind = draw(st.sampled_from(kinds))
        _STATEMENTS[kind](draw, scope, names, depth, lines, indent)


def _load(draw, scope, names, depth, lines, indent):
    name = names.fresh("v")
    if draw(st.booleans()):
        subscripts = f"{_subscript(draw, scope)}, {_subscript(draw, scope)}"
        lines.append(f"{indent}{name} = affine.load %A[{subscripts}] : memref<16x16xf32>")
    else:
        position = draw(st.sampled_from(scope.indices))
        lines.append(f"{indent}{name} = memref.load %B[{position}] : memref<?xf32>")
    scope.floats.append(name)


def _store(draw, scope, names, depth, lines, indent):
    value = draw(st.sampled_from(scope.floats))
    subscripts = f"{_subscript(draw, scope)}, {_subscript(draw, scope)}"
    lines.append(f"{indent}affine.store {value}, %A[{subscripts}] : memref<16x16xf32>")


def _arith(draw, scope, names, depth, lines, indent):
    name = names.fresh("f")
    a, b = draw(st.sampled_from(scope.floats)), draw(st.sampled_from(scope.floats))
    op = draw(st.sampled_from(["arith.addf", "arith.mulf", "arith.maximumf"]))
    lines.append(f"{indent}{name} = {op} {a}, {b} : f32")
    scope.floats.append(name)


def _apply(draw, scope, names, depth, lines, indent):
    name = names.fresh("a")
    if scope.dims and draw(st.booleans()):
        dim = draw(st.sampled_from(scope.dims))
        lines.append(f"{indent}{name} = affine.apply affine_map<(d0) -> (d0 * 2 + 1)>({dim})")
        scope.dims.append(name)
    else:
        symbol = draw(st.sampled_from(scope.symbols))
        lines.append(f"{indent}{name} = affine.min affine_map<()[s0] -> (s0, 8)>()[{symbol}]")
        scope.symbols.append(name)
        scope.dims.append(name)
    scope.indices.append(name)


def _affine_for(draw, scope, names, depth, lines, indent):
    iv = names.fresh("i")
    header = f"affine.for {iv} = {_bound(draw, scope, True)} to {_bound(draw, scope, False)}"
    step = draw(st.sampled_from([1, 1, 2, 4]))
    if step != 1:
        header += f" step {step}"
    inner = scope.nested()
    inner.dims.append(iv)
    inner.indices.append(iv)
    carried = draw(st.booleans())
    if carried:
        acc, result = names.fresh("acc"), names.fresh("r")
        init = draw(st.sampled_from(scope.floats))
        lines.append(f"{indent}{result} = {header} iter_args({acc} = {init}) -> (f32) {{")
        inner.floats.append(acc)
    else:
        lines.append(f"{indent}{header} {{")
    _statements(draw, inner, names, depth + 1, lines, indent + "  ")
    if carried:
        lines.append(f"{indent}  affine.yield {draw(st.sampled_from(inner.floats))} : f32")
        scope.floats.append(result)
    lines.append(f"{indent}}}")


def _affine_if(draw, scope, names, depth, lines, indent):
    operand = draw(st.sampled_from(scope.dims + scope.symbols))
    constraint = draw(st.sampled_from(["d0 - 2 >= 0", "-d0 + 10 >= 0", "d0 mod 2 == 0"]))
    lines.append(f"{indent}affine.if affine_set<(d0) : ({constraint})>({operand}) {{")
    _statements(draw, scope.nested(), names, depth + 1, lines, indent + "  ")
    if draw(st.booleans()):
        lines.append(f"{indent}}} else {{")
        _statements(draw, scope.nested(), names, depth + 1, lines, indent + "  ")
    lines.append(f"{indent}}}")


def _scf_for(draw, scope, names, depth, lines, indent):
    iv = names.fresh("k")
    upper = draw(st.sampled_from(scope.indices))
    header = f"scf.for {iv} = %c0 to {upper} step %c1"
    inner = scope.nested()
    inner.indices.append(iv)  # an scf.for counter is neither an affine dim nor a symbol
    carried = draw(st.booleans())
    if carried:
        acc, result = names.fresh("acc"), names.fresh("r")
        init = draw(st.sampled_from(scope.floats))
        lines.append(f"{indent}{result} = {header} iter_args({acc} = {init}) -> (f32) {{")
        inner.floats.append(acc)
    else:
        lines.append(f"{indent}{header} {{")
    _statements(draw, inner, names, depth + 1, lines, indent + "  ")
    if carried:
        lines.append(f"{indent}  scf.yield {draw(st.sampled_from(inner.floats))} : f32")
        scope.floats.append(result)
    lines.append(f"{indent}}}")


def _scf_if(draw, scope, names, depth, lines, indent):
    if draw(st.booleans()):
        result = names.fresh("s")
        lines.append(f"{indent}{result} = scf.if %flag -> (f32) {{")
        for position in range(2):
            if position:
                lines.append(f"{indent}}} else {{")
            branch = scope.nested()
            _statements(draw, branch, names, depth + 1, lines, indent + "  ")
            lines.append(f"{indent}  scf.yield {draw(st.sampled_from(branch.floats))} : f32")
        lines.append(f"{indent}}}")
        scope.floats.append(result)
        return
    lines.append(f"{indent}scf.if %flag {{")
    _statements(draw, scope.nested(), names, depth + 1, lines, indent + "  ")
    lines.append(f"{indent}}}")


_STATEMENTS = {
    "load": _load,
    "store": _store,
    "arith": _arith,
    "apply": _apply,
    "affine_for": _affine_for,
    "affine_if": _affine_if,
    "scf_for": _scf_for,
    "scf_if": _scf_if,
}


@st.composite
def loop_nests(draw) -> str:
    """A module with one function holding a random scf/affine nest (see module docstring)."""
    lines = [
        "module {",
        f"  func.func @nest{SIGNATURE} {{",
        "    %c0 = arith.constant 0 : index",
        "    %c1 = arith.constant 1 : index",
    ]
    _statements(draw, Scope(), Names(), 0, lines, "    ")
    lines += ["    return", "  }", "}"]
    return "\n".join(lines)
