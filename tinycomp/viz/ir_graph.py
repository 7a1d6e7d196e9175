"""The def-use graph of a function: who defines each SSA value, and who reads it.

Every op becomes a box, every block argument a small ellipse, and every operand an
edge from the value's definition to the op that reads it. The edge needs no label: the
box or ellipse it starts from names the value (``%xx = arith.mulf``, ``%x: f32``); only a
result of an op with several results is named on its edge (``%0#1``). An op with
regions (``func.func``, ``scf.for``) becomes a cluster holding its body; when it also
has operands or results (``%r = scf.for``) a header box inside the cluster stands for
the op itself, so its inputs and its results have somewhere to attach. Constants are
shaded grey, terminators vermillion, arguments light blue, in the style every graph
shares (``tinycomp.viz.graph_style``).

The names are the printer's (``tinycomp.ir.naming``): the picture, its text twin and
``print_ir`` of the same op all say ``%c0``, ``%arg1``, ``%3``.

The algorithm:

1. Number every op of ``root.walk()``: the node of the k-th op is ``op<k>``; the
   arguments of its regions' blocks are ``op<k>.arg<j>`` (with ``.r<i>`` and
   ``.bb<b>`` when the op has several regions or a region several blocks).
2. Walk the tree once, adding nodes and clusters (regions, then blocks when a region
   has more than one; a module gets no box) and remembering which node defines each
   value.
3. Walk again, adding one edge per operand. A value defined outside ``root``
   (when you draw one loop of a function) gets a plain-text node of its own.

>>> from tinycomp.ir import parse
>>> module = parse('''
... func.func @axpy(%a: f32, %x: f32, %y: f32) -> f32 {
...   %ax = arith.mulf %a, %x : f32
...   %r = arith.addf %ax, %y : f32
...   return %r : f32
... }''')
>>> print(def_use_graph(module).text)
graph "def-use of @axpy" (6 nodes, 5 edges, 1 cluster)
  nodes:
    op0.arg0  "%a: f32"  shape=ellipse color=#5b8db8 fill=#dcebf5
    op0.arg1  "%x: f32"  shape=ellipse color=#5b8db8 fill=#dcebf5
    op0.arg2  "%y: f32"  shape=ellipse color=#5b8db8 fill=#dcebf5
    op1       "%ax = arith.mulf"
    op2       "%r = arith.addf"
    op3       "func.return"  color=#D55E00 fill=#fbe2d0
  edges:
    op0.arg0 -> op1
    op0.arg1 -> op1
    op1 -> op2
    op0.arg2 -> op2
    op2 -> op3
  clusters:
    op0 body  "func.func @axpy": op0.arg0, op0.arg1, op0.arg2, op1, op2, op3
"""

from __future__ import annotations

from tinycomp.ir.block import Block
from tinycomp.ir.builtin import ModuleOp
from tinycomp.ir.naming import SSANames
from tinycomp.ir.operation import Operation
from tinycomp.ir.printer import naming_root
from tinycomp.ir.registry import lookup_op_class
from tinycomp.ir.symbols import symbol_name
from tinycomp.ir.values import Value
from tinycomp.viz.graph import Cluster, Graph, GraphError
from tinycomp.viz.graph_style import CLUSTER_BORDER, CONSTANT, INPUT, TERMINATOR

__all__ = ["def_use_graph"]

LONGEST_CONSTANT = 28  # characters of a constant's value shown in its label


def def_use_graph(op: Operation, name: str | None = None, *, rankdir: str = "TB") -> Graph:
    """The def-use graph of ``op`` (a module, a function, a loop...) as a :class:`Graph`.

    With ``name``, draw the function (any symbol) called ``name`` inside ``op``
    instead: ``def_use_graph(module, "matmul")``; a module holding a single function
    draws that function (a module with several draws each one in its own cluster).
    Display the result in a notebook, or call ``.picture()`` for a
    :class:`~tinycomp.viz.Picture`. The module docstring explains the node names and
    shows an example; here is a loop body as a cluster:

    >>> from tinycomp.ir import parse
    >>> module = parse('''
    ... func.func @count(%n: index) -> index {
    ...   %c0 = arith.constant 0 : index
    ...   %c1 = arith.constant 1 : index
    ...   %r = "scf.for"(%c0, %n, %c1, %c0) ({
    ...   ^bb0(%i: index, %acc: index):
    ...     %next = arith.addi %acc, %c1 : index
    ...     "scf.yield"(%next) : (index) -> ()
    ...   }) : (index, index, index, index) -> index
    ...   return %r : index
    ... }''')
    >>> graph = def_use_graph(module)
    >>> print("\\n".join(graph.text.splitlines()[-3:]))
      clusters:
        op0 body  "func.func @count": op0.arg0, op1, op2, op6
          op3 body  "scf.for": op3, op3.arg0, op3.arg1, op4, op5
    """
    root = op if name is None else _find_symbol(op, name)
    if isinstance(root, ModuleOp) and len(root.body) == 1:
        root = root.body.first_op  # a module around one function: draw the function
    title = _op_title(root)
    graph = Graph(f"def-use of {title.removeprefix('func.func ')}", rankdir=rankdir)
    graph.attrs.update(nodesep="0.25", ranksep="0.35")
    builder = _DefUseBuilder(root, graph)
    builder.add_nodes(root, cluster=None)
    builder.add_edges()
    return graph


def _find_symbol(op: Operation, name: str) -> Operation:
    """The first op under ``op`` (in walk order) whose ``sym_name`` is ``name``."""
    symbols = []
    for candidate in op.walk():
        found = symbol_name(candidate)
        if found == name:
            return candidate
        if found is not None:
            symbols.append(found)
    raise GraphError(
        f"expected a symbol @{name} inside '{op.name}', got none (symbols there: {symbols})"
    )


class _DefUseBuilder:
    """Steps 2 and 3 of the module docstring, for one ``root`` op."""

    def __init__(self, root: Operation, graph: Graph) -> None:
        self.root = root
        self.graph = graph
        # The printer numbers values per isolated-from-above op: use the same numbering.
        self.names = SSANames(naming_root(root), use_asm_names=True)
        self.op_ids = {op: f"op{number}" for number, op in enumerate(root.walk())}  # step 1
        self.defining_node: dict[Value, str] = {}
        self.outside_nodes = 0

    # -- step 2: nodes and clusters ------------------------------------------------------
    def add_nodes(self, op: Operation, cluster: Cluster | None) -> None:
        """Add ``op`` (a node, a cluster, or both) and everything nested in it."""
        op_id = self.op_ids[op]
        if not op.regions:
            self._add_op_node(op, cluster)
            return
        if isinstance(op, ModuleOp):  # a box around everything adds nothing: draw the body
            for nested in op.body:
                self.add_nodes(nested, cluster)
            return
        body = self.graph.cluster(
            f"{op_id} body", _op_title(op), color=CLUSTER_BORDER, parent=cluster
        )
        if op.operands or op.results:
            self._add_op_node(op, body)  # the header: the op itself, inside its cluster
        for region_number, region in enumerate(op.regions):
            region_cluster = body
            region_suffix = ""
            if len(op.regions) > 1:
                region_suffix = f".r{region_number}"
                region_cluster = self.graph.cluster(
                    f"{op_id} region {region_number}",
                    f"region {region_number}",
                    color=CLUSTER_BORDER,
                    parent=body,
                )
            for block_number, block in enumerate(region.blocks):
                block_cluster = region_cluster
                prefix = f"{op_id}{region_suffix}"
                if len(region.blocks) > 1:
                    prefix += f".bb{block_number}"
                    block_name = self.names.block_name(block)
                    block_cluster = self.graph.cluster(
                        f"{op_id}{region_suffix} {block_name}",
                        block_name,
                        color=CLUSTER_BORDER,
                        parent=region_cluster,
                    )
                self._add_block(block, prefix, block_cluster)

    def _add_block(self, block: Block, prefix: str, cluster: Cluster) -> None:
        for position, argument in enumerate(block.arguments):
            node = self.graph.node(
                f"{prefix}.arg{position}",
                f"{self.names.value_name(argument)}: {argument.type}",
                cluster=cluster,
                **INPUT.options(),
            )
            self.defining_node[argument] = node
        for nested in block:
            self.add_nodes(nested, cluster)

    def _add_op_node(self, op: Operation, cluster: Cluster | None) -> None:
        kind = {}
        if _is_constant(op):
            kind = CONSTANT.options()
        elif _is_terminator(op):
            kind = TERMINATOR.options()
        node = self.graph.node(self.op_ids[op], self._op_label(op), cluster=cluster, **kind)
        for result in op.results:
            self.defining_node[result] = node

    def _op_label(self, op: Operation) -> str:
        """``%3 = arith.mulf``, ``%0:2 = test.op``, ``%c0 = arith.constant 0 : index``."""
        label = _op_title(op)
        if op.results:
            results = self.names.result_group_name(op)
            if len(op.results) > 1:
                results += f":{len(op.results)}"
            label = f"{results} = {label}"
        value = op.attributes.get("value")
        if _is_constant(op) and value is not None:
            shown = str(value)
            if len(shown) > LONGEST_CONSTANT:
                shown = shown[: LONGEST_CONSTANT - 3] + "..."
            label += f" {shown}"
        return label

    # -- step 3: edges -------------------------------------------------------------------
    def add_edges(self) -> None:
        """One edge per operand, from the node defining the value to the reader; named
        only when that node defines several values."""
        for op in self.root.walk():
            for value in op.operands:
                source = self.defining_node.get(value)
                if source is None:
                    source = self._add_outside_node(value)
                producer = value.defining_op()
                several = producer is not None and len(producer.results) > 1
                label = self.names.value_name(value) if several else None
                self.graph.edge(source, self.op_ids[op], label)

    def _add_outside_node(self, value: Value) -> str:
        """A plain-text node for a value defined outside the drawn op."""
        node = self.graph.node(
            f"outside{self.outside_nodes}", self.names.value_name(value), shape="plaintext"
        )
        self.outside_nodes += 1
        self.defining_node[value] = node
        return node


def _op_title(op: Operation) -> str:
    """The op name, with its symbol if it has one: ``func.func @axpy``."""
    symbol = symbol_name(op)
    return op.name if symbol is None else f"{op.name} @{symbol}"


def _is_constant(op: Operation) -> bool:
    """A constant: an op named ``*.constant`` with no operands and no regions."""
    return op.name.endswith(".constant") and not op.operands and not op.regions


def _is_terminator(op: Operation) -> bool:
    """A registered terminator, or an unregistered op (such as ``"scf.yield"``) that ends
    a block whose region needs a terminator: MLIR lets an unknown op play that part."""
    if op.is_terminator:
        return True
    if lookup_op_class(op.name) is not None or op.parent is None:
        return False
    owner = op.parent.parent_op()
    needs_terminator = owner is not None and not owner.no_terminator
    return needs_terminator and op is op.parent.last_op
