"""On a CUDA machine with flashinfer: the real kernels against the torch reference.

Its CPU twin is test_kv_and_attention.py::test_flashinfer_backend_plumbing_matches_the_torch_backend
(flashinfer's calls replayed in torch); the timing half lives in benchmarks/gpu_check.py."""

import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch", reason="needs the [torch] extra")
if not torch.cuda.is_available():
    pytest.skip("no CUDA device on this machine", allow_module_level=True)
pytest.importorskip("flashinfer", reason="needs flashinfer-python (the [cuda] extra)")

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import gpu_check  # noqa: E402


def test_flashinfer_matches_the_torch_reference_on_bf16():
    rows = gpu_check.correctness("cuda", use_flashinfer=True)
    assert rows and all(r["ok"] for r in rows), rows
