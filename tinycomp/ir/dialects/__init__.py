"""The dialects of the IR core. Importing this package registers them all.

* ``builtin``: ``module``, ``unrealized_conversion_cast``
* ``func``: ``func.func``, ``func.return``, ``func.call``
* ``arith``: constants, arithmetic, comparisons, casts (``arith_*.py`` by role)
* ``cf``: ``cf.br``, ``cf.cond_br``

Other dialects (math, memref, scf, affine, linalg, tensor, vector...) live in their own modules
and register themselves the same way when imported.
"""

from tinycomp.ir.dialects import affine_ops as affine_ops
from tinycomp.ir.dialects import arith, builtin, cf, func
from tinycomp.ir.dialects import linalg as linalg
from tinycomp.ir.dialects import math as math
from tinycomp.ir.dialects import memref as memref
from tinycomp.ir.dialects import scf as scf
from tinycomp.ir.dialects import tensor as tensor
from tinycomp.ir.dialects import vector as vector

__all__ = ["arith", "builtin", "cf", "func"]
