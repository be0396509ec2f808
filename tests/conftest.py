"""Fixtures shared by the tests."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def write(tmp_path: Path):
    def _write(text: str | bytes, name: str = "t.yaml") -> Path:
        p = tmp_path / name
        p.write_bytes(text.encode() if isinstance(text, str) else text)
        return p
    return _write
