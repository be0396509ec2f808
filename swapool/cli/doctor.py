"""`swapool doctor`: what the sglang plugin will do in this environment, place by place: the
sglang release found, whether sglang will load the plugin, and for each place whether its
class is there, shaped as that release decides, and what swapool does to it at start."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .jsonout import to_json
from .reading import add_server_tables
from .render import EXIT_OK, EXIT_USAGE, refuse, say

#: Ran, but some place will not have the table in force (it refuses SWA runners), or the
#: plugin will not run at all.
EXIT_NOT_IN_FORCE = 1


def add(commands: Any, reading: argparse.ArgumentParser) -> None:
    p = commands.add_parser(
        "doctor", parents=[reading], help="what the sglang plugin will do in this environment, place by place",
        description="Run in the server's own environment: print the sglang release installed, whether "
                    "sglang will run swapool's plugin (its entry point, sglang's plugin loader, the "
                    "opt-outs), the tables a server would load, and for each place that picks a SWA pool "
                    "whether that release has it, whether its constructor is shaped as swapool read that "
                    "release, and what the plugin does there: replace the resolver, guard the constructor, "
                    "or refuse a runner with a SWA pool. Imports sglang's place modules (seconds).",
        epilog=f"Exit codes: 0 the table is in force at every place this sglang has, {EXIT_NOT_IN_FORCE} some "
               "place refuses runners with a SWA pool or the plugin will not run, 2 a table does not load as "
               "a server's would. Example: swapool doctor --format json")
    add_server_tables(p)
    p.set_defaults(func=run)


def _loader() -> str | None:
    """Why sglang will not run the plugin here, or None."""
    import importlib.util
    from importlib import metadata

    if not any(ep.name == "swapool" for ep in metadata.entry_points(group="sglang.srt.plugins")):
        return "swapool's entry point (group sglang.srt.plugins) is not installed in this environment"
    try:
        found = importlib.util.find_spec("sglang.srt.plugins")
    except ImportError:
        found = None
    if found is None:
        return "this sglang has no plugin loader (sglang.srt.plugins; it came in 0.5.11)"
    return None


def inspect_places(release: str | None) -> list[dict[str, Any]]:
    """Each place: whether its class imports here, and what the plugin does to it."""
    import contextlib
    import importlib

    from ..swa.integrations.sglang import how_it_decides
    from ..swa.integrations.sglang_places import MARKS, PLACES, RESOLVER

    out = []
    for place, spec in PLACES.items():
        row: dict[str, Any] = {"place": place, "class": f"{spec.module}.{spec.cls}"}
        try:
            with contextlib.redirect_stdout(sys.stderr):  # sglang prints banners on import; the report is stdout
                cls = getattr(importlib.import_module(spec.module), spec.cls)
        except Exception as exc:  # sglang's import chain fails in many ways without its GPU stack
            absent = isinstance(exc, ModuleNotFoundError) and spec.module.startswith(exc.name or "-")
            row.update(found=False, does=f"not in sglang {release}: nothing to watch" if absent else
                       f"cannot be checked here ({type(exc).__name__}: {exc}); a server's import of it fails "
                       "or is checked then", **({} if absent else {"in_force": False}))
            out.append(row)
            continue
        kind, why = how_it_decides(place, cls, release)
        does = (f"the table's resolver replaces {MARKS[kind]}" if kind == RESOLVER else
                f"start-up guard: checks what the constructor decided ({MARKS[kind]})" if kind in MARKS else
                f"refuses a runner with a SWA pool: {why}")
        row.update(found=True, kind=kind, in_force=kind in MARKS, does=does)
        out.append(row)
    return out


def run(args: argparse.Namespace) -> int:
    from ..swa.integrations.sglang import load_tables
    from ..swa.integrations.sglang_places import VERIFIED_RELEASES, sglang_release
    from ..swa.integrations.sglang_plugin import plugin_off
    from ..table.decider import PolicyError

    try:
        tables = load_tables(args.policy, args.places, import_enums=not args.no_enum_import,
                             enum_modules=args.enum_module)
    except PolicyError as exc:
        return refuse("doctor", exc.diagnostics, exc.headline)
    except ValueError as exc:
        say(f"swapool doctor: {exc}", sys.stderr)
        return EXIT_USAGE
    release = sglang_release()
    off = plugin_off() or (_loader() if release else None)
    places = inspect_places(release) if release else []
    in_force = bool(release) and off is None and all(p.get("in_force", True) for p in places)
    if args.format == "json":
        print(to_json({"sglang": release, "verified_releases": list(VERIFIED_RELEASES), "plugin_off": off,
                       "policy": tables.policy.path, "places_table": tables.places.path, "places": places,
                       "in_force": in_force}, indent=2))
        return EXIT_OK if in_force else EXIT_NOT_IN_FORCE
    if release is None:
        say(f"sglang is not installed for {sys.executable}: the plugin has nothing to act on")
        return EXIT_NOT_IN_FORCE
    say(f"sglang {release} (swapool verified {VERIFIED_RELEASES[0]} to {VERIFIED_RELEASES[1]})")
    say(f"plugin: off ({off}): sglang's own code decides every place" if off else "plugin: on")
    say(f"tables: {tables.policy.path} (sha256:{tables.policy.digest[:12]}); places: {tables.places.path}")
    width = max(len(p["place"]) for p in places)
    for p in places:
        say(f"  {p['place']:<{width}}  {p['does']}")
    return EXIT_OK if in_force else EXIT_NOT_IN_FORCE
