"""sglang's plugin entry point (group `sglang.srt.plugins`): puts the table in force in every
place of an sglang process, failing closed.

sglang's `load_plugins()` runs `plugin()` early in every process, before logging is set
up, and logs and swallows whatever a plugin raises; `HookRegistry.apply_hooks()` imports
every hooked module up front and skips a hook it cannot apply. So this plugin uses neither
for its places: it loads both tables, then patches each place's class when sglang itself
imports the class's module (`post_import`), and whatever went wrong (a table, swapool's own
import, a class sglang renamed) turns into a constructor, or an import, that raises with the
reason. No place is ever built by sglang's own logic unless the operator opted out
(SWAPOOL_SGLANG_PLUGIN=off, or sglang's allow-list SGLANG_PLUGINS without `swapool`).

Standard library only at import time: if the rest of swapool cannot be imported, the places
still refuse, naming that error.
"""

from __future__ import annotations

import functools
import gc
import logging
import os
import traceback
from types import ModuleType
from typing import Any

from .post_import import when_imported
from .sglang_places import BACKENDS, ENV_PLUGIN, GUARDED, MODULES, PLACES, RefusedPlace, places_in

log = logging.getLogger("swapool")


def opted_out() -> bool:
    return os.environ.get(ENV_PLUGIN, "").strip().lower() in ("0", "off", "false", "no")


def plugin_off() -> str | None:
    """Why sglang's own code decides every place in this environment, or None when the
    plugin is in force: the operator's opt-out, or sglang's allow-list (SGLANG_PLUGINS,
    comma-separated entry-point names; empty means all) without this plugin's name."""
    if opted_out():
        return f"{ENV_PLUGIN}={os.environ[ENV_PLUGIN]}"
    allowed = os.environ.get("SGLANG_PLUGINS", "")
    names = {name.strip() for name in allowed.split(",")} - {""}
    if names and "swapool" not in names:
        return f"SGLANG_PLUGINS={allowed} does not list swapool"
    return None


def _reason(exc: BaseException) -> str:
    """An unexpected error keeps its traceback: it is the whole story."""
    return "".join(traceback.format_exception(exc)).rstrip()


def _refusal(place: str, failure: BaseException | str) -> Exception:
    """The error a refused place raises: a table's `PolicyError` keeps its diagnostics
    (each with file:line:col); anything else is a `RefusedPlace` with the reason."""
    opt_out = f"(fix it, or opt out with {ENV_PLUGIN}=off)"
    diagnostics = getattr(failure, "diagnostics", None)
    headline = getattr(failure, "headline", None)
    if isinstance(failure, Exception) and headline is not None and diagnostics is not None:
        return type(failure)(f"swapool refuses to build sglang's {place}: {headline} {opt_out}", diagnostics)
    why = failure if isinstance(failure, str) else _reason(failure)
    return RefusedPlace(f"swapool refuses to build sglang's {place} {opt_out}: {why}")


def refuse(place: str, cls: type, failure: BaseException | str) -> None:
    """Make `cls` refuse construction, with the reason, whatever its subclasses do."""
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        error = _refusal(place, failure)
        log.error("%s", error)
        raise error
    __init__.__qualname__ = f"{cls.__qualname__}.__init__ [swapool refuses {place}]"
    setattr(cls, "__init__", __init__)
    cls._swapool_place = place  # type: ignore[attr-defined]


def _on_import(module: ModuleType, tables: Any, failure: BaseException | None) -> None:
    """Put the table in force on every place whose class `module` defines (a class patched
    already, by an earlier `plugin()` call, is left as it is). A class that is not there (an
    sglang this version of swapool does not know) fails the module's import, after the
    module's other places are patched."""
    missing = []
    for place in places_in(module.__name__):
        spec = PLACES[place]
        cls = getattr(module, spec.cls, None)
        if not isinstance(cls, type):
            missing.append(_refusal(place, f"{module.__name__} has no class {spec.cls}: this sglang is not one "
                                           "whose places swapool knows"))
            continue
        if "_swapool_place" in vars(cls):
            continue
        if failure is not None:
            refuse(place, cls, failure)
            continue
        try:
            from . import sglang

            sglang.patch(place, cls, tables)
        except Exception as exc:
            refuse(place, cls, exc)
    if missing:
        raise missing[0]


def plugin() -> list[str]:
    """Load both tables, then watch each place's module. Returns the places watched (none when
    opted out). Never raises: a table or an import that fails is reported where a place is
    built; a module sglang imported before this call whose class is missing is logged (the
    class cannot be built under its known name) and the other places are watched still.
    Calling it again changes nothing."""
    if opted_out():
        return []
    # The collector is paused for the plugin's own ~40 ms of work: in a server process sglang's
    # heap holds ~670,000 objects, and a full collection our allocations happen to trigger there
    # costs ~0.2 s. Safe: the work makes few reference cycles (refcounting frees its temporaries),
    # it runs once per process, and the collector runs again when plugin() returns (as it was):
    # a cycle left over, ours or another thread's made meanwhile, is collected at the next collection.
    collecting = gc.isenabled()
    gc.disable()
    try:
        tables: Any = None
        failure: BaseException | None = None
        try:
            from .sglang import load_tables

            tables = load_tables()
        except Exception as exc:  # swallowed by sglang if raised: kept for the places instead
            failure = exc
        for module in MODULES:
            try:
                when_imported(module, functools.partial(_on_import, tables=tables, failure=failure), key=__name__)
            except Exception as exc:  # the module was imported already: its import cannot fail any more
                log.error("%s", exc)
    finally:
        if collecting:
            gc.enable()
    return [*BACKENDS, *GUARDED]
