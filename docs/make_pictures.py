"""Redraw the pictures that the README and the docs show: ``python docs/make_pictures.py``."""

from pathlib import Path

from tinycomp.tour import pipeline_graph

DOCS = Path(__file__).resolve().parent

if __name__ == "__main__":
    path = pipeline_graph().picture().save(DOCS / "pipeline.svg")
    print(f"wrote {path.name}")
