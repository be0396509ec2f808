"""Run a function on a module each time the program itself executes it (standard library only).

The sglang plugin patches a place's class when sglang imports that class's module, so it
imports nothing sglang would not import itself (sglang's own `HookRegistry.apply_hooks`
imports every target's module up front, ~3 s for the eleven backends). A meta-path finder
wraps the real loader of each watched module; a module already imported is handed over at
once. What a callback raises propagates from the `import` statement: a place that cannot
be patched is an import error of its module, never a silently unpatched class.

A watched module stays watched: executed again (`importlib.reload`, or imported afresh after
it was dropped from `sys.modules`), its new classes are handed over too. There is one
watcher per process, whichever copy of this module installed it: two would ask each other
for the same module without end.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import threading
from types import ModuleType
from typing import Any, Callable, Hashable, Sequence

Callback = Callable[[ModuleType], None]

#: What marks the process's watcher on `sys.meta_path` (kept across copies of this module).
MARK = "swapool_post_import"


class _Loader(importlib.abc.Loader):
    """The module's own loader, then the callbacks, in the import's own thread."""

    def __init__(self, loader: Any, watcher: Any, name: str):
        self._loader = loader
        self._watcher = watcher
        self._name = name

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        with self._watcher.lock:
            callbacks = list(self._watcher.callbacks.get(self._name, {}).values())
        for callback in callbacks:
            callback(module)

    def __getattr__(self, name: str) -> Any:  # get_code, get_source, is_package, resource readers
        return getattr(self._loader, name)


class _Watcher(importlib.abc.MetaPathFinder):
    def __init__(self) -> None:
        self.callbacks: dict[str, dict[Hashable, Callback]] = {}
        self.lock = threading.Lock()
        setattr(self, MARK, True)

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
                  ) -> importlib.machinery.ModuleSpec | None:
        with self.lock:
            if fullname not in self.callbacks:
                return None
        for finder in sys.meta_path:
            if getattr(finder, MARK, False) or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is None or not hasattr(spec.loader, "exec_module"):
            raise ImportError(f"swapool cannot watch the import of {fullname}: its loader "
                              f"{spec.loader!r} has no exec_module", name=fullname)
        spec.loader = _Loader(spec.loader, self, fullname)
        return spec


_install_lock = threading.Lock()


def _the_watcher(install: bool) -> Any:
    """The process's watcher on `sys.meta_path` (installed first, if asked and none is there)."""
    with _install_lock:
        found = next((f for f in sys.meta_path if getattr(f, MARK, False)), None)
        if found is None and install:
            found = _Watcher()
            sys.meta_path.insert(0, found)
        return found


def when_imported(name: str, callback: Callback, key: Hashable | None = None) -> None:
    """Call `callback(module)` each time module `name` has been executed, and now if it
    already has been. A second callback under the same `key` replaces the first."""
    watcher = _the_watcher(install=True)
    with watcher.lock:
        watcher.callbacks.setdefault(name, {})[callback if key is None else key] = callback
    module = sys.modules.get(name)
    if module is not None:
        callback(module)


def watched() -> list[str]:
    """The module names being watched."""
    watcher = _the_watcher(install=False)
    return [] if watcher is None else sorted(watcher.callbacks)


def forget_all() -> None:
    """Drop every callback (tests; a program that is done with sglang)."""
    watcher = _the_watcher(install=False)
    if watcher is not None:
        with watcher.lock:
            watcher.callbacks.clear()
