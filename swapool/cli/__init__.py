"""The `swapool` command line: commands (main) and the renderers of their results."""

from .main import main

__all__ = ["main"]
