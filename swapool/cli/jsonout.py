"""Every command's JSON, one way (its own module so that the renderers that use it import
nothing of each other)."""

from __future__ import annotations

import math

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def to_json(obj: Any, **options: Any) -> str:
    """JSON that every parser reads: a table may hold `.nan` or `.inf`, which `json.dumps`
    would print as bare NaN / Infinity; those become strings. Every command's JSON goes here."""
    import json

    return json.dumps(_finite(obj), allow_nan=False, **{"default": str, **options})


def _finite(obj: Any) -> Any:
    if isinstance(obj, float) and not math.isfinite(obj):
        return repr(obj)
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    return obj
