"""The ``meduris`` command (the top layer: it may import everything, nothing imports it)."""

from meduris_rl.cli.main import main

__all__ = ["main"]
