"""tinycomp's IR core: MLIR's data model and text format in plain Python.

The pieces, in the order a reader meets them:

* ``types``, ``attributes``, ``dense``: the static vocabulary (``f32``,
  ``tensor<4x?xf32>``, ``1.0 : f32``, ``dense<...>``), printed as MLIR prints it;
* ``values``, ``operation``, ``block``, ``region``: the IR graph, with use lists;
* ``op_definition``: what an op class declares (counts, traits, memory effects, the
  printer/parser hooks); ``effects``, ``memref_views`` and ``op_traits`` answer the
  passes' questions from those declarations;
* ``builder``: creating ops (``b.insert(AddFOp.build(x, y))``);
* ``builtin``: ``builtin.module``, the one op the core knows (the dialects live in
  their own package, ``dialects/``, above the core, which imports none of them;
  ``dialect.py`` explains how to write one);
* ``printer``/``parser``: text out and in, custom and generic form;
* ``verifier``: structural rules, dominance, symbols;
* ``equality``: ``ir_equal``, structural equality modulo SSA names.

>>> from tinycomp.ir import parse
>>> module = parse('''
... func.func @axpy(%a: f32, %x: f32, %y: f32) -> f32 {
...   %ax = arith.mulf %a, %x : f32
...   %r = arith.addf %ax, %y : f32
...   return %r : f32
... }''')
>>> [op.name for op in module.walk()]
['builtin.module', 'func.func', 'arith.mulf', 'arith.addf', 'func.return']
"""

from tinycomp.ir.attributes import (
    AffineMapAttr,
    ArrayAttr,
    Attribute,
    BoolAttr,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    IntegerSetAttr,
    OpaqueAttr,
    StridedLayoutAttr,
    StringAttr,
    SymbolRefAttr,
    TypeAttr,
    UnitAttr,
)
from tinycomp.ir.block import Block
from tinycomp.ir.builder import Builder, InsertionPoint
from tinycomp.ir.builtin import ModuleOp
from tinycomp.ir.dense import DenseArrayAttr, DenseElementsAttr
from tinycomp.ir.dominance import DominanceInfo
from tinycomp.ir.equality import first_difference, ir_equal
from tinycomp.ir.errors import ParseError, VerifyError
from tinycomp.ir.location import Location
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser, parse, parse_attribute, parse_type
from tinycomp.ir.printer import Printer, print_ir
from tinycomp.ir.region import Region
from tinycomp.ir.registry import Dialect, lookup_op_class, register_dialect
from tinycomp.ir.symbols import SymbolTable, lookup_symbol
from tinycomp.ir.type_helpers import (
    bitwidth,
    default_strides,
    element_type,
    is_float,
    is_index,
    is_integer,
    rank,
    shape,
    strides_and_offset,
    to_numpy_dtype,
    with_element_type,
)
from tinycomp.ir.types import (
    DYNAMIC,
    FloatType,
    FunctionType,
    IndexType,
    IntegerType,
    MemRefType,
    NoneType,
    OpaqueType,
    RankedTensorType,
    ShapedType,
    Type,
    VectorType,
    bf16,
    f16,
    f32,
    f64,
    i1,
    i8,
    i16,
    i32,
    i64,
    index,
)
from tinycomp.ir.values import BlockArgument, OpResult, Use, Value
from tinycomp.ir.verifier import verify

__all__ = [
    # types
    "DYNAMIC", "Type", "IndexType", "IntegerType", "FloatType", "NoneType", "OpaqueType",
    "FunctionType", "ShapedType", "VectorType", "RankedTensorType", "MemRefType",
    "index", "i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64",
    "element_type", "shape", "rank", "is_float", "is_integer", "is_index", "bitwidth",
    "to_numpy_dtype", "default_strides", "strides_and_offset", "with_element_type",
    # attributes
    "Attribute", "IntegerAttr", "FloatAttr", "BoolAttr", "StringAttr", "UnitAttr",
    "ArrayAttr", "DictionaryAttr", "TypeAttr", "SymbolRefAttr", "AffineMapAttr",
    "IntegerSetAttr", "StridedLayoutAttr", "OpaqueAttr", "DenseElementsAttr",
    "DenseArrayAttr",
    # the IR graph
    "Location", "Value", "OpResult", "BlockArgument", "Use", "Operation", "Block", "Region",
    "ModuleOp", "Builder", "InsertionPoint",
    # dialects and registry
    "Dialect", "register_dialect", "lookup_op_class", "SymbolTable",
    "lookup_symbol",
    # text, checks, comparison
    "parse", "parse_type", "parse_attribute", "Parser", "ParseError", "print_ir", "Printer",
    "verify", "VerifyError", "DominanceInfo", "ir_equal", "first_difference",
]  # fmt: skip
