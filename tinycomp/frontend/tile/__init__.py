"""The tile kernel DSL (Triton's model): ``@kernel`` reads a Python function whose
values are whole blocks of data and translates it into linalg on tensors for ONE
program instance, with ``tile.load``/``tile.store`` as its only memory edges.

Files by role: ``values.py`` (what kernel variables hold), ``arithmetic.py`` (operators
and promotion), ``shaping.py`` (splats, broadcasts, ``arange``, ``x[:, None]``),
``builtin.py`` + ``memory_builtins.py`` + ``tile_builtins.py`` (the language's
functions), ``expressions.py``, ``generator.py`` and ``control_flow.py`` (Python AST to
IR), ``signature.py`` (launch arguments), ``launch.py`` (the grid on the interpreter)
and ``kernel.py`` (``@kernel``). On the GPU: ``layout.py`` (blocked layouts: which
thread holds which element), ``contiguity.py`` (offsets that step by one),
``to_gpu.py`` (a program as a block of threads) and ``gpu_launch.py`` (``launch_gpu``,
the grid on the SIMT simulator). The public names are re-exported by ``tinycomp.tile``.

>>> from tinycomp.frontend.tile import kernel, TileKernel
>>> kernel.__name__, TileKernel.__name__
('kernel', 'TileKernel')
"""

from tinycomp.frontend.tile.gpu_launch import TileLaunch, launch_gpu
from tinycomp.frontend.tile.kernel import TileKernel, kernel
from tinycomp.frontend.tile.layout import BlockedLayout, LayoutError, default_layout
from tinycomp.frontend.tile.signature import element_strides
from tinycomp.frontend.tile.to_gpu import lower_to_gpu
from tinycomp.frontend.tile.values import Pointer, Tile, TileError, constexpr

__all__ = [
    "BlockedLayout", "LayoutError", "Pointer", "Tile", "TileError", "TileKernel", "TileLaunch",
    "constexpr", "default_layout", "element_strides", "kernel", "launch_gpu", "lower_to_gpu",
]  # fmt: skip
