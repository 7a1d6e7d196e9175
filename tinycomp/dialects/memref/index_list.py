"""The old home of the mixed static/dynamic index lists (``[%i, 2]``).

They now live in ``mixed_indices.py``, shared by memref, tensor and their common window
base ``offsets_sizes_strides.py``; this module keeps the old imports working.

>>> from tinycomp.dialects.memref.index_list import DYNAMIC_INDEX
>>> DYNAMIC_INDEX
-9223372036854775808
"""

from tinycomp.dialects.common.mixed_indices import (
    DYNAMIC_INDEX,
    MixedIndex,
    check_index_list,
    count_dynamic,
    join_mixed,
    parse_index_list,
    print_index_list,
    split_mixed,
    static_or_dynamic,
)

__all__ = [
    "DYNAMIC_INDEX",
    "MixedIndex",
    "check_index_list",
    "count_dynamic",
    "join_mixed",
    "parse_index_list",
    "print_index_list",
    "split_mixed",
    "static_or_dynamic",
]
