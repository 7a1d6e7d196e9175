"""The map of the whole compiler: every stage of the pipeline and the chapter that teaches it.

Chapter 00 draws it, the README shows it, and later chapters highlight their own stage.
"""

from __future__ import annotations

from itertools import pairwise

from tinycomp.viz.graph import Graph

__all__ = ["STAGES", "TARGETS", "pipeline_graph"]

STAGES: tuple[tuple[str, str, str], ...] = (
    ("python", "Python\nprogram", "04"),
    ("tensor_ir", "tensor IR\nlinalg on\ntensors", "01-02"),
    ("cleanup", "canonicalize\nCSE, DCE", "03"),
    ("fusion", "fusion", "05"),
    ("tiling", "tile, fuse,\nbind to units", "06"),
    ("bufferize", "bufferize\ntensors to\nmemrefs", "07"),
    ("loops", "loops\nscf / affine", "07"),
)
"""The linear part of the pipeline: (id, label, chapters that teach it)."""

TARGETS: tuple[tuple[str, str, str], ...] = (
    ("cpu", "CPU: LLVM IR\nto native code", "08"),
    ("gpu_sim", "GPU simulator\nSIMT + cost model", "09-10"),
    ("gpu", "PTX / AMDGPU\nthrough LLVM", "10"),
    ("npu_sim", "NPU simulator\nDa Vinci pipes", "11-12"),
    ("interp", "reference\ninterpreter (numpy)", "01"),
)
"""Where the loops go: (id, label, chapters that teach it)."""


def pipeline_graph(highlight: str | None = None) -> Graph:
    """The pipeline as a graph; ``highlight`` names a stage or target to colour.

    >>> graph = pipeline_graph(highlight="fusion")
    >>> print(graph.text.splitlines()[0])
    graph "tinycomp pipeline" (13 nodes, 12 edges, 1 cluster)
    """
    known = {stage_id for stage_id, _, _ in STAGES + TARGETS}
    if highlight is not None and highlight not in known:
        raise ValueError(f"pipeline_graph: no stage {highlight!r}; expected one of {sorted(known)}")
    graph = Graph("tinycomp pipeline", rankdir="LR")
    targets = graph.cluster("targets", "targets", color="#999999")

    def add(stage_id: str, label: str, chapters: str, cluster=None) -> None:
        if stage_id == highlight:
            fill, outline, note = "#ffd27f", None, ""
        elif _is_planned(chapters):
            fill, outline, note = "#f4f4f4", "dashed", ", to come"
        else:
            fill, outline, note = "#e8f1fa", None, ""
        text = f"{label}\n[ch {chapters}{note}]"
        graph.node(stage_id, text, shape="box", fill=fill, outline=outline, cluster=cluster)

    for stage_id, label, chapters in STAGES:
        add(stage_id, label, chapters)
    for (before, _, _), (after, _, _) in pairwise(STAGES):
        graph.edge(before, after)
    for stage_id, label, chapters in TARGETS:
        add(stage_id, label, chapters, cluster=targets)
        graph.edge("loops", stage_id)
    graph.node(
        "cache",
        "JIT kernel cache\n[ch 14, to come]",
        shape="cylinder",
        fill="#f4f4f4",
        outline="dashed",
    )
    graph.edge("cache", "cpu", style="dashed")
    return graph


LAST_READY_CHAPTER = 9
"""Chapters after this one are still to come: the map draws their stages dashed and grey."""


def _is_planned(chapters: str) -> bool:
    """Whether every chapter of ``"11-12"`` (or ``"08"``) is still to come.

    >>> _is_planned("11-12"), _is_planned("09-10"), _is_planned("08")
    (True, False, False)
    """
    first = int(chapters.split("-")[0])
    return first > LAST_READY_CHAPTER
