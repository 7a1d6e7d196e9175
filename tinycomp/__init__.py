"""tinycomp: a teaching kit for GPU/NPU compiler engineering.

The entry points a chapter starts from:

>>> import tinycomp
>>> module = tinycomp.parse('''
... func.func @double(%x: f32) -> f32 {
...   %y = arith.addf %x, %x : f32
...   return %y : f32
... }''')
>>> module.verify()
>>> print(module)
module {
  func.func @double(%x: f32) -> f32 {
    %y = arith.addf %x, %x : f32
    return %y : f32
  }
}
"""

from tinycomp.ir import parse

__version__ = "0.1.0"

__all__ = ["__version__", "parse"]
