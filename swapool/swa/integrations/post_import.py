"""Run a function on a module right after the program itself imports it (standard library only).

The sglang plugin patches a place's class when sglang imports that class's module, so it
imports nothing sglang would not import itself (sglang's own `HookRegistry.apply_hooks`
imports every target's module up front, ~3 s for the eleven backends). A meta-path finder
wraps the real loader of each watched module; a module already imported is handed over at
once. What the callback raises propagates from the `import` statement: a place that cannot
be patched is an import error of its module, never a silently unpatched class.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
import threading
from types import ModuleType
from typing import Any, Callable, Sequence

Callback = Callable[[ModuleType], None]


class _Loader(importlib.abc.Loader):
    """The module's own loader, then the callbacks, in the import's own thread. The
    callbacks stay pending until they have all run without raising: an import that fails
    (in the module or in a callback) leaves the next import of it watched too."""

    def __init__(self, loader: Any, watcher: "_Watcher", name: str):
        self._loader = loader
        self._watcher = watcher
        self._name = name

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        self._loader.exec_module(module)
        with self._watcher.lock:
            callbacks = list(self._watcher.pending.get(self._name, ()))
        for callback in callbacks:
            callback(module)
        with self._watcher.lock:
            self._watcher.pending.pop(self._name, None)

    def __getattr__(self, name: str) -> Any:  # get_code, get_source, is_package, resource readers
        return getattr(self._loader, name)


class _Watcher(importlib.abc.MetaPathFinder):
    def __init__(self) -> None:
        self.pending: dict[str, list[Callback]] = {}
        self.lock = threading.Lock()

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
                  ) -> importlib.machinery.ModuleSpec | None:
        with self.lock:
            if fullname not in self.pending:
                return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
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


_watcher: _Watcher | None = None
_install_lock = threading.Lock()


def when_imported(name: str, callback: Callback) -> None:
    """Call `callback(module)` once, as soon as module `name` has been executed (now, if it
    already has been)."""
    global _watcher
    module = sys.modules.get(name)
    if module is not None:
        callback(module)
        return
    with _install_lock:
        if _watcher is None or _watcher not in sys.meta_path:
            _watcher = _Watcher()
            sys.meta_path.insert(0, _watcher)
        with _watcher.lock:
            _watcher.pending.setdefault(name, []).append(callback)


def watched() -> list[str]:
    """Module names still waiting for their import."""
    return [] if _watcher is None else sorted(_watcher.pending)


def forget_all() -> None:
    """Drop every pending callback (tests; a program that unloads and reloads sglang)."""
    if _watcher is not None:
        with _watcher.lock:
            _watcher.pending.clear()
