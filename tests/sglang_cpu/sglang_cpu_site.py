"""Imported at start-up by every Python process of the sglang CPU environment (a .pth
file that `scripts/sglang_cpu_env.sh` writes): PyPI's torchvision links a CUDA torch, and
on the CPU build two of its operator schemas are missing at import. Just before
torchvision is first imported, define them; nothing is imported before that."""

from __future__ import annotations

import importlib.abc
import sys
from typing import Any


class _DefineTorchvisionSchemas(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: Any, target: Any = None) -> None:
        if fullname == "torchvision":
            sys.meta_path.remove(self)
            import torch

            lib = torch.library.Library("torchvision", "DEF")
            lib.define("nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
            lib.define("qnms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor")
            _libraries.append(lib)  # a Library deregisters what it defined when collected
        return None  # the ordinary finders import it


_libraries: list[Any] = []
if "torchvision" not in sys.modules:
    sys.meta_path.insert(0, _DefineTorchvisionSchemas())
