"""``meduris serve``: play Meduris against the agents in a browser.

:mod:`.app` is the FastAPI app (``create_app(db_path)``), :mod:`.store` the games: SQLite
storage, resuming, and playing the opponents through the engine. The page and its style are in
``static/``; the board renderer it shares with the HTML replay is in
``meduris_env/render/templates/``.
"""

from meduris_rl.cli.meduris.web.app import create_app

__all__ = ["create_app"]
