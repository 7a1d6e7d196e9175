"""The old home of the mixed static/dynamic index lists (``[%o, 0] [4, %n] [1, 1]``).

They now live in ``mixed_indices.py``, shared by tensor, memref and their common window
base ``offsets_sizes_strides.py``; this module keeps the old imports working. ``Mixed``
is the old name of ``MixedIndex``.

>>> from tinycomp.dialects.tensor.indices import Mixed, MixedIndex
>>> Mixed is MixedIndex
True
"""

from tinycomp.dialects.common.mixed_indices import (
    DYNAMIC_INDEX,
    MixedIndex,
    check_static_array,
    count_dynamic,
    format_sizes,
    is_rank_reduction,
    join_mixed,
    parse_mixed,
    print_mixed,
    resolve_mixed,
    split_mixed,
    static_or_none,
)

Mixed = MixedIndex
"""The old name of ``MixedIndex``: an ``int`` or an ``index`` value."""

__all__ = [
    "DYNAMIC_INDEX", "Mixed", "check_static_array", "count_dynamic", "format_sizes",
    "is_rank_reduction", "join_mixed", "parse_mixed", "print_mixed", "resolve_mixed",
    "split_mixed", "static_or_none",
]  # fmt: skip
