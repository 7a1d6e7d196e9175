"""Indexing maps as data: a loop nest, the map of each operand, and the operand shapes.

A ``linalg.generic`` runs a loop nest and gives each operand an *indexing map* from
the loop indices to the element it reads or writes: for a matmul, ``A`` is read at
``(m, n, k) -> (m, k)``. An :class:`IndexingProblem` holds such a nest, with loop
names for labels and the operand dimensions a picture should draw. Make one with
:func:`indexing_problem` from a dict of maps, a ``linalg``-style op, or the name of one
of the :data:`EXAMPLES`. :mod:`tinycomp.viz.footprints` then says which elements a
point or a tile touches, and :mod:`tinycomp.viz.indexing_explorer` draws them.

>>> problem = indexing_problem("conv2d_nhwc")
>>> problem.loop_names
('n', 'oh', 'ow', 'f', 'kh', 'kw', 'c')
>>> problem.operand_shapes["input"], problem.describe_map("input")
((2, 8, 8, 3), '(n, oh, ow, f, kh, kw, c) -> (n, oh + kh, ow + kw, c)')
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from tinycomp.affine import AffineDimExpr, AffineMap, dim
from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.ir.attributes import AffineMapAttr, ArrayAttr
from tinycomp.ir.naming import SSANames
from tinycomp.ir.operation import Operation
from tinycomp.ir.printer import naming_root
from tinycomp.ir.types import DYNAMIC, ShapedType

__all__ = [
    "EXAMPLES",
    "IndexingMapError",
    "IndexingProblem",
    "indexing_problem",
    "Plane",
    "rename_dims",
]


Plane = tuple[int | None, int | None]
"""The operand dimension drawn down the rows and the one drawn across the columns;
``None`` for a side with no dimension (a vector drawn as one row is ``(None, 0)``)."""


NAMED_OP_PLANES: dict[str, tuple[Plane, ...]] = {
    "linalg.conv_2d_nhwc_hwcf": ((1, 2), (0, 1), (1, 2)),  # the (h, w) planes
}
"""The planes to draw for the operands of named ops whose layout says what matters."""


class IndexingMapError(ValueError):
    """Indexing maps, loop sizes and operand shapes that do not fit together."""


@dataclass(frozen=True, eq=False)
class IndexingProblem:
    """A loop nest and the indexing maps of its operands; make one with :func:`indexing_problem`."""

    maps: Mapping[str, AffineMap]
    """Operand name -> indexing map (from the loop indices to the operand's indices)."""
    loop_sizes: tuple[int, ...]
    """How many iterations each loop runs (loop ``i`` is ``d<i>`` in the maps)."""
    loop_names: tuple[str, ...]
    """A name per loop, used instead of ``d0, d1, ...`` in labels: ``m, n, k``."""
    operand_shapes: Mapping[str, tuple[int, ...]]
    """Operand name -> shape."""
    planes: Mapping[str, Plane]
    """Operand name -> the operand dimensions a picture draws as rows and as columns."""
    tile_sizes: tuple[int, ...]
    """A good first tile, per loop."""

    def describe_map(self, name: str) -> str:
        """The map of operand ``name`` with loop names: ``(m, n, k) -> (m, k)``.

        >>> indexing_problem("transpose").describe_map("out")
        '(i, j) -> (j, i)'
        """
        return rename_dims(str(self.maps[name]), self.loop_names)

    def axis_labels(self, name: str) -> tuple[str, ...]:
        """One label per dimension of operand ``name``: its index expression.

        >>> indexing_problem("conv2d_nhwc").axis_labels("input")
        ('n', 'oh + kh', 'ow + kw', 'c')
        """
        return tuple(rename_dims(str(r), self.loop_names) for r in self.maps[name].results)


def rename_dims(text: str, loop_names: Sequence[str]) -> str:
    """Write ``d0, d1, ...`` as the loop names.

    >>> rename_dims("(d0, d1) -> (d1 * 2)", ["i", "j"])
    '(i, j) -> (j * 2)'
    """
    return re.sub(r"\bd(\d+)\b", lambda match: loop_names[int(match.group(1))], text)


def indexing_problem(
    maps: str | Mapping[str, AffineMap] | Operation | IndexingProblem,
    loop_sizes: Sequence[int] | None = None,
    operand_shapes: Mapping[str, Sequence[int]] | None = None,
    *,
    loop_names: Sequence[str] | None = None,
    planes: Mapping[str, Plane] | None = None,
) -> IndexingProblem:
    """Gather and check a problem from one of:

    - the name of an example in :data:`EXAMPLES` (``"matmul"``, ``"conv2d_nhwc"``,
      ``"transpose"``, ``"reduction"``); ``loop_sizes`` then resizes it;
    - a dict ``{operand name: AffineMap}``;
    - a linalg op (``linalg.generic``, ``linalg.matmul``, ...; or any op with an
      ``indexing_maps`` attribute): operands are named as the printed IR names them
      (``%A``), shapes come from their types and loop names from the op (``m, n, k``).

    Missing ``loop_sizes`` are read off the shapes (a loop ``d2`` that indexes
    dimension 1 of a 4x6 operand runs 6 times); missing shapes are what the maps reach.
    ``planes`` chooses, per operand, the dimensions a picture draws (see :data:`Plane`);
    by default all of them up to rank 2 (a vector as a row), else the two largest.

    >>> from tinycomp.affine import parse_affine_map
    >>> p = indexing_problem({"x": parse_affine_map("(d0) -> (d0 * 2)")}, [4])
    >>> p.operand_shapes, p.loop_names, p.tile_sizes
    ({'x': (7,)}, ('d0',), (2,))
    """
    if isinstance(maps, IndexingProblem):
        given = [loop_sizes, operand_shapes, loop_names, planes]
        if any(argument is not None for argument in given):
            raise IndexingMapError(
                "expected no loop sizes, shapes, loop names or planes with an IndexingProblem "
                "(it has its own); build a new one with indexing_problem(problem.maps, ...)"
            )
        return maps
    if isinstance(maps, str):
        if maps not in EXAMPLES:
            raise IndexingMapError(f"expected an example from {list(EXAMPLES)}, got {maps!r}")
        example = EXAMPLES[maps]
        sizes = example.loop_sizes if loop_sizes is None else loop_sizes
        chosen = dict(example.planes) | dict(planes or {})
        names = example.loop_names if loop_names is None else loop_names
        problem = _build(example.maps, sizes, operand_shapes, names, chosen)
        tile = zip(example.tile_sizes, problem.loop_sizes, strict=True)
        return replace(problem, tile_sizes=tuple(min(t, size) for t, size in tile))
    if isinstance(maps, Operation):
        named_maps, shapes, op_loop_names = _maps_of_op(maps)
        operand_shapes = shapes if operand_shapes is None else operand_shapes
        names = op_loop_names if loop_names is None else loop_names
        known = zip(named_maps, NAMED_OP_PLANES.get(maps.name, ()), strict=False)
        chosen = dict(known) | dict(planes or {})
        return _build(named_maps, loop_sizes, operand_shapes, names, chosen)
    return _build(dict(maps), loop_sizes, operand_shapes, loop_names, planes or {})


def _build(
    maps: Mapping[str, AffineMap],
    loop_sizes: Sequence[int] | None,
    operand_shapes: Mapping[str, Sequence[int] | None] | None,
    loop_names: Sequence[str] | None,
    planes: Mapping[str, Plane],
) -> IndexingProblem:
    """Check the maps, fill in what is missing, and check that everything fits."""
    if not maps:
        raise IndexingMapError("expected at least one operand with an indexing map, got none")
    num_loops = _check_maps(maps)
    shapes = {name: None for name in maps} | dict(operand_shapes or {})
    for what, named in (("shapes", shapes), ("planes", planes)):
        unknown = [name for name in named if name not in maps]
        if unknown:
            raise IndexingMapError(f"expected {what} for operands in {list(maps)}, got {unknown}")
    for name, shape in shapes.items():
        if shape is not None and len(shape) != maps[name].num_results:
            raise IndexingMapError(
                f"expected operand {name} to have rank {maps[name].num_results} (its map has "
                f"{maps[name].num_results} results), got shape {list(shape)}"
            )
    if loop_sizes is None:
        loop_sizes = _infer_loop_sizes(maps, shapes, num_loops)
    loop_sizes = tuple(int(size) for size in loop_sizes)
    if len(loop_sizes) != num_loops or min(loop_sizes, default=1) < 1:
        raise IndexingMapError(
            f"expected {num_loops} positive loop sizes (one per dimension of the maps), "
            f"got {list(loop_sizes)}"
        )
    names = (
        tuple(loop_names) if loop_names is not None else tuple(f"d{i}" for i in range(num_loops))
    )
    if len(names) != num_loops:
        raise IndexingMapError(f"expected {num_loops} loop names, got {list(names)}")
    whole = [(0, size) for size in loop_sizes]
    final_shapes = {}
    for name, indexing_map in maps.items():
        reached = indexing_map.footprint(whole)
        given = shapes[name] or [DYNAMIC] * len(reached)  # unknown sizes: what the map reaches
        final_shapes[name] = tuple(
            hi if size is DYNAMIC else int(size)
            for (_, hi), size in zip(reached, given, strict=True)
        )
        _check_fits(name, indexing_map, reached, final_shapes[name], names)
    return IndexingProblem(
        maps=dict(maps),
        loop_sizes=loop_sizes,
        loop_names=names,
        operand_shapes=final_shapes,
        planes={name: _plane(name, planes.get(name), final_shapes[name]) for name in maps},
        tile_sizes=tuple(max(1, size // 2) for size in loop_sizes),
    )


def _check_maps(maps: Mapping[str, AffineMap]) -> int:
    """All maps take the same dimensions and no symbols; return the number of loops."""
    for name, indexing_map in maps.items():
        if not isinstance(indexing_map, AffineMap):
            raise IndexingMapError(f"expected an AffineMap for {name}, got {indexing_map!r}")
        if indexing_map.num_symbols:
            raise IndexingMapError(f"expected maps without symbols, got {name}: {indexing_map}")
    counts = {name: indexing_map.num_dims for name, indexing_map in maps.items()}
    if len(set(counts.values())) != 1:
        raise IndexingMapError(f"expected every map to take the same loops, got dims {counts}")
    return next(iter(counts.values()))


def _infer_loop_sizes(
    maps: Mapping[str, AffineMap], shapes: Mapping[str, Sequence[int] | None], num_loops: int
) -> list[int]:
    """Each loop's size, from the first operand dimension indexed by that loop alone."""
    sizes: list[int | None] = [None] * num_loops
    for name, indexing_map in maps.items():
        shape = shapes.get(name)
        for axis, result in enumerate(indexing_map.results):
            if shape is not None and isinstance(result, AffineDimExpr):
                if sizes[result.position] is None and shape[axis] is not DYNAMIC:
                    sizes[result.position] = shape[axis]
    missing = [f"d{i}" for i, size in enumerate(sizes) if size is None]
    if missing:
        raise IndexingMapError(
            f"expected loop_sizes, or operand shapes that give the size of every loop; "
            f"the size of {', '.join(missing)} is unknown (no operand dimension of known "
            f"size is indexed by it alone)"
        )
    return sizes


def _check_fits(
    name: str,
    indexing_map: AffineMap,
    reached: Sequence[tuple[int, int]],
    shape: tuple[int, ...],
    loop_names: Sequence[str],
) -> None:
    """Every index the loops reach must lie inside the operand."""
    for axis, ((lo, hi), size) in enumerate(zip(reached, shape, strict=True)):
        if lo < 0 or hi > size:
            expr = rename_dims(str(indexing_map.results[axis]), loop_names)
            raise IndexingMapError(
                f"operand {name}: index {axis} ({expr}) reaches {lo}..{hi - 1} over the loops, "
                f"expected it to stay in 0..{size - 1} (shape {list(shape)})"
            )


def _plane(name: str, plane: Plane | None, shape: Sequence[int]) -> Plane:
    """Check a chosen plane, or choose one: every dimension up to rank 2 (a vector as a
    row), else the two largest dimensions, in order."""
    if plane is None:
        if len(shape) <= 2:
            return ((None, None), (None, 0), (0, 1))[len(shape)]
        largest = sorted(range(len(shape)), key=lambda axis: (-shape[axis], axis))[:2]
        return (min(largest), max(largest))
    axes = [axis for axis in plane if axis is not None]
    valid = len(plane) == 2 and len(set(axes)) == len(axes)
    if not valid or any(not 0 <= axis < len(shape) for axis in axes):
        raise IndexingMapError(
            f"expected the plane of {name} to be (row dimension, column dimension) with "
            f"different dimensions in 0..{len(shape) - 1} or None, got {plane}"
        )
    return (plane[0], plane[1])


def _maps_of_op(op: Operation) -> tuple[dict[str, AffineMap], dict[str, tuple], list[str]]:
    """The indexing maps and shapes of a linalg op's operands, by the operands' printed
    names, and its loop names (``m, n, k`` for ``linalg.matmul``). Ops that are not
    linalg ops (an unregistered ``"linalg.generic"``) need an ``indexing_maps`` attribute."""
    if isinstance(op, StructuredOp):
        found = op.indexing_maps()
        loop_names = [op.loop_name(i) for i in range(op.num_loops)]
    else:
        attr = op.attributes.get("indexing_maps")
        if not isinstance(attr, ArrayAttr) or not all(isinstance(a, AffineMapAttr) for a in attr):
            raise IndexingMapError(
                f"expected a linalg op, or an op with an indexing_maps attribute (an array of "
                f"affine maps), got '{op.name}' with indexing_maps = {attr}"
            )
        found = [map_attr.map for map_attr in attr]
        loop_names = [f"d{i}" for i in range(found[0].num_dims)] if found else []
    if len(found) != len(op.operands):
        raise IndexingMapError(
            f"expected one indexing map per operand of '{op.name}' ({len(op.operands)}), "
            f"got {len(found)}"
        )
    ssa_names = SSANames(naming_root(op))
    maps: dict[str, AffineMap] = {}
    shapes: dict[str, tuple] = {}
    for number, (operand, indexing_map) in enumerate(zip(op.operands, found, strict=True)):
        name = ssa_names.value_name(operand)
        if name in maps:  # the same value twice: keep both, told apart by position
            name = f"{name} (operand {number})"
        maps[name] = indexing_map
        shapes[name] = tuple(operand.type.shape) if isinstance(operand.type, ShapedType) else ()
    return maps, shapes, loop_names


# -- examples ---------------------------------------------------------------------------
def _example(maps, loop_sizes, loop_names, tile_sizes, planes=None) -> IndexingProblem:
    problem = _build(maps, loop_sizes, None, loop_names, planes or {})
    return replace(problem, tile_sizes=tuple(tile_sizes))


m, n, k = dim(0), dim(1), dim(2)
EXAMPLES: dict[str, IndexingProblem] = {
    "matmul": _example(
        {"A": AffineMap(3, 0, (m, k)), "B": AffineMap(3, 0, (k, n)), "C": AffineMap(3, 0, (m, n))},
        (8, 8, 6),
        ("m", "n", "k"),
        tile_sizes=(4, 4, 3),
    ),
    # linalg.conv_2d_nhwc_hwcf with stride 1: loops (n, oh, ow, f, kh, kw, c).
    "conv2d_nhwc": _example(
        {
            "input": AffineMap(7, 0, (dim(0), dim(1) + dim(4), dim(2) + dim(5), dim(6))),
            "filter": AffineMap(7, 0, (dim(4), dim(5), dim(6), dim(3))),
            "output": AffineMap(7, 0, (dim(0), dim(1), dim(2), dim(3))),
        },
        (2, 6, 6, 4, 3, 3, 3),
        ("n", "oh", "ow", "f", "kh", "kw", "c"),
        tile_sizes=(1, 2, 2, 4, 3, 3, 3),
        planes={"input": (1, 2), "filter": (0, 1), "output": (1, 2)},
    ),
    "transpose": _example(
        {"in": AffineMap(2, 0, (m, n)), "out": AffineMap(2, 0, (n, m))},
        (6, 8),
        ("i", "j"),
        tile_sizes=(2, 4),
    ),
    # A row sum: out[i] += in[i, j].
    "reduction": _example(
        {"in": AffineMap(2, 0, (m, n)), "out": AffineMap(2, 0, (m,))},
        (6, 10),
        ("i", "j"),
        tile_sizes=(2, 5),
        planes={"out": (0, None)},  # a column, beside the rows of `in` it sums
    ),
}
"""Small problems that make good pictures: matmul, conv2d NHWC, transpose, reduction."""
del m, n, k
