"""Attention backends that resolve the SWA pool once and translate per forward (needs torch).

The flashinfer backend lives in `swapool.attention.flashinfer_backend` (CUDA only)."""

from .base import AttentionLayer, PageTable, SWAAwareBackend
from .torch_backend import TorchAttnBackend

__all__ = ["AttentionLayer", "PageTable", "SWAAwareBackend", "TorchAttnBackend"]
