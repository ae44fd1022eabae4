"""``meduris serve``: play Meduris against the agents in a browser.

:mod:`.app` is the FastAPI app (``create_app(db_path)``), :mod:`.store` the games: SQLite
storage, resuming, and playing the opponents through the engine. The page and its style are in
``static/``; the board renderer it shares with the HTML replay is in
``meduris_env/render/templates/``.

``create_app`` is imported on first use (PEP 562): a thinking worker imports
:mod:`.thinking` through this package before it lowers its CPU priority, and must not import
the app (fastapi, the arena, numba) at the server's priority while the page starts.
"""

from __future__ import annotations

__all__ = ["create_app"]


def __getattr__(name: str):
    if name == "create_app":
        from meduris_rl.cli.meduris.web.app import create_app
        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
