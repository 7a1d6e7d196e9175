"""tinycomp: a teaching kit for GPU/NPU compiler engineering."""

__version__ = "0.1.0"
