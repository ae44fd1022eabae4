"""The ``meduris`` command (the top layer: it may import everything, nothing imports it)."""

from .main import main

__all__ = ["main"]
