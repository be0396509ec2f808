"""Names a package exports but imports on first use (PEP 562), so that `import swapool` and
the CLI pay only for what they touch."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Callable, Mapping


def lazy_exports(package: str, exports: Mapping[str, str], namespace: dict[str, Any]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The module `__getattr__` and `__dir__` of `package`: each name of `exports` is imported
    from the module it maps to (absolute, or relative to `package` with a leading dot) the
    first time it is read (as `lazy_module` imports), then kept in `namespace`."""
    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module '{package}' has no attribute '{name}'")
        value = getattr(lazy_module(package + module if module.startswith(".") else module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(namespace.get("__all__", exports))

    return __getattr__, __dir__


class lazy_module:
    """A module (by absolute name) imported the first time one of its names is read: the codes
    of findings a valid table never has (reading, format, imports) cost a clean `swapool validate`
    nothing, and a package's exports (`lazy_exports`) cost `import swapool` nothing.
    A module that uses one imports it for mypy under TYPE_CHECKING and binds this otherwise."""

    def __init__(self, name: str):
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        return getattr(__import__(self._name, fromlist=["_"]), attr)  # the builtin: importlib is one more import
