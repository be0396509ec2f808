"""Fixtures shared by the tests."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings


@pytest.fixture
def write(tmp_path: Path):
    def _write(text: str | bytes, name: str = "t.yaml") -> Path:
        p = tmp_path / name
        p.write_bytes(text.encode() if isinstance(text, str) else text)
        return p
    return _write


# CI replays the same examples every run (a red CI is then a real regression, not a
# new random draw); locally hypothesis explores fresh examples.
if os.environ.get("CI"):
    settings.register_profile("ci", derandomize=True, print_blob=True)
    settings.load_profile("ci")
