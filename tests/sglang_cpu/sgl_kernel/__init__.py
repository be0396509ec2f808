"""STAND-IN for sglang's `sgl_kernel` (no CPU build exists on the package registries).

Only for the CPU server start in tests: every name imports, and calling any of them
raises `NotImplementedError`, so a start that would need a real kernel fails loudly
instead of computing something else. `torch.ops.sgl_kernel` stays empty, which makes
sglang take its plain-torch paths.
"""

from __future__ import annotations

import sys
import types
from typing import Any, Callable, NoReturn

STAND_IN = True


class Missing:
    """A kernel this stand-in does not have: attributes chain, a call raises."""

    def __init__(self, name: str):
        self._name = name

    def __call__(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise NotImplementedError(f"{self._name} is a stand-in (tests/sglang_cpu/sgl_kernel): no CPU build of "
                                  "sgl_kernel exists; this start needed a real kernel")

    def __getattr__(self, name: str) -> "Missing":
        if name.startswith("__"):
            raise AttributeError(name)
        return Missing(f"{self._name}.{name}")

    def __repr__(self) -> str:
        return f"<stand-in {self._name}>"


def _names_of(module: str) -> Callable[[str], Missing]:
    def module_getattr(name: str) -> Missing:
        if name.startswith("__"):
            raise AttributeError(name)
        return Missing(f"{module}.{name}")
    return module_getattr


__getattr__ = _names_of(__name__)

#: The submodules sglang 0.5.23 imports names from.
for _sub in ("kvcacheio", "scalar_type", "quantization", "flash_attn", "allreduce"):
    _module = types.ModuleType(f"{__name__}.{_sub}", "STAND-IN: see sgl_kernel/__init__.py")
    _module.__getattr__ = _names_of(_module.__name__)  # type: ignore[method-assign]
    sys.modules[_module.__name__] = _module
    globals()[_sub] = _module
