"""How facts are written in words: values, lists, regions and inputs, and text made inert
for a terminal. Used by the registry's wording functions and the edges that render; it
depends on no other module of swapool (PyYAML's resolver only, when a value is shown), so
every stage can use it."""

from __future__ import annotations

import functools
import reprlib

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Mapping, Sequence


@functools.lru_cache(maxsize=4096)
def plain_tag(text: str) -> str:
    """The tag YAML gives `text` written plain, unquoted (`true`: bool, `1.0`: float, `~`:
    null): PyYAML's own resolver, imported only when a value is shown or checked."""
    import yaml

    return yaml.resolver.Resolver().resolve(yaml.ScalarNode, text, (True, False))


def format_value(value: Any) -> str:
    """A value as a table writes it: a string that would read as a bool, null or number
    quoted (`"true"`), so that it never looks like the bool it is not."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str) and plain_tag(value) != "tag:yaml.org,2002:str":
        return f'"{value}"'
    return str(value)


def format_witness(witness: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={format_value(v)}" for k, v in witness.items())


def shown_list(items: Any, limit: int, show: Any = None, total: int | None = None) -> str:
    """The first `limit` items, comma-separated, then "and N more" (counting to `total`
    when the items are only the first of more): the one way a sentence shortens a list."""
    items = list(items)
    shown = ", ".join((show or format_value)(item) for item in items[:limit])
    more = (len(items) if total is None else total) - min(len(items), limit)
    return shown + (f" and {more:,} more" if more > 0 else "")


def quoted(name: Any) -> str:
    return f"'{name}'"


def describe_terms(region: Mapping[str, Sequence[Any]]) -> str:
    """A region given as the values of each restricted input, as `name=value` / `name in
    [a, b]` terms (an input it leaves out may take any value)."""
    terms = []
    for name, values in region.items():
        shown = [format_value(v) for v in values]
        terms.append(f"{name}={shown[0]}" if len(shown) == 1 else f"{name} in [{', '.join(shown)}]")
    return ", ".join(terms) or "every input"


def article(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


_FACT_REPR = reprlib.Repr()
_FACT_REPR.maxstring = _FACT_REPR.maxother = 80


def describe_fact(value: Any) -> str:
    """A caller's object as an error shows it: its repr, shortened, and never an exception
    of its own (a repr that raises is named by its type, as `reprlib` does)."""
    try:
        return _FACT_REPR.repr(value)
    except Exception:  # reprlib guards the common cases; a hostile __class__ can still raise
        return f"<{type(value).__name__} object>"


def visible(text: str) -> str:
    """`text` with C0/C1 control characters, DEL, line and paragraph separators and
    surrogates written as escapes, so that it prints as one inert line."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else _escape(ch) for ch in text)


def _escape(ch: str) -> str:
    code = ord(ch)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"
