"""The package version, in one place (the build metadata reads it from here)."""

__version__ = "0.1.0"
