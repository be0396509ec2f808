"""Adapters that plug swapool's decision into serving engines."""
