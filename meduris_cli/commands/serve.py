"""``meduris serve``: the game's web page (its row's ``web`` part; Meduris's:
:mod:`meduris_rl.cli.meduris.web`) to play against the built-in agents and shipped models in a
browser. Before it listens it checks the port, the games database and that fastapi and uvicorn
are installed, each error one line (:class:`ServeError`). A ``--db`` that is not a games
database of this server (not SQLite, another application's, other tables or columns, a newer
schema version) is refused before anything is written to it, the file unchanged (the web part
raises :class:`~meduris_rl.cli.checks.DatabaseRefused`). ``--max-running`` bounds the running
games stored. ``--thinkers N`` sets the worker processes that compute the opponents' moves
(default the CPU count, 1..256): they start and warm up in the background while the page
already answers (within 3 s of the command), and stop with the server (Ctrl-C or SIGTERM: the
open event streams are ended first, so the server stops at once and cleanly; :func:`serve_app`).
Every request must name the server in its ``Host`` header: this machine's names, ``--host``
and each ``--allow-host`` (:func:`allowed_hosts`); the connections served at once stay below
the open-file limit (:func:`connection_limit`)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

from meduris_rl.cli.checks import LOCAL_HOSTS, DatabaseRefused, int_in
from meduris_rl.cli.commands.games import add_game_flags
from meduris_rl.kit.errors import InputError
from meduris_rl.kit.games import game_spec
from meduris_rl.kit.jsonfile import clip

HOST_NAME = re.compile(r"[a-z0-9]([a-z0-9.-]{0,252})|[0-9a-f:]{2,39}")  # a name, IPv4 or IPv6
GRACE = 2  # seconds open connections (event streams) get to end when the server stops


class ServeError(InputError, ValueError):
    """``meduris serve`` cannot start as asked (the message names the fix)."""


def add_parser(sub) -> None:
    p = sub.add_parser("serve", help="play against agents in the browser (a small web app)",
                       description="Serve a web page to play Meduris against the built-in agents "
                       "and shipped models. Games are stored in an SQLite file: a restarted "
                       "server resumes them exactly. Binds to localhost unless --host says "
                       "otherwise; there is no login.")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int_in(1, 65535), default=8000, help="port (default 8000)")
    p.add_argument("--db", default="games.sqlite",
                   help="SQLite file holding the games (default games.sqlite; created if missing)")
    p.add_argument("--max-running", type=int_in(1, 10**6), default=1000, metavar="N",
                   help="running games stored at most; a new game beyond them is refused "
                   "(default 1000; finished games do not count)")
    p.add_argument("--thinkers", type=int_in(1, 256), default=None, metavar="N",
                   help="worker processes computing the opponents' moves (default: the CPU "
                   f"count, here {os.cpu_count() or 1}); they warm up while the page already "
                   "answers")
    p.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                   help="a name the server answers to besides localhost, 127.0.0.1, ::1 and "
                   "--host (the Host header of every request is checked: a web page of another "
                   "site cannot drive the server); repeat for more")
    add_game_flags(p, options=False, what="the game the page plays (a game whose row names a "
                   "web page: Meduris)")
    p.set_defaults(func=run)


def run(args) -> int:
    import socket
    import sqlite3

    from meduris_rl.kit.atomic import unwritable_reason
    row = game_spec(args.game, ServeError)
    if not row.has_part("web"):
        raise ServeError(f"--game {row.name}: {row.title} has no web page (its row names no "
                         "web part); play it in the terminal with meduris play")
    if not 1 <= args.port <= 65535:
        raise ServeError(f"--port {args.port}: a port is 1..65535")
    db = Path(args.db)
    if db.is_dir():
        raise ServeError(f"--db {str(db)!r} is a folder; give a file name such as games.sqlite")
    reason = unwritable_reason(db.parent)
    if reason:
        raise ServeError(f"cannot write the games database in {str(db.parent)!r} ({reason}); "
                         "choose another file with --db")
    try:
        import uvicorn  # noqa: F401 (installed: serve_app runs it)

        create_app = row.part("web")
    except ImportError as err:
        raise ServeError(f"meduris serve needs fastapi and uvicorn ({err}); install them with "
                         "pip install fastapi uvicorn") from None
    try:
        info = socket.getaddrinfo(args.host, args.port, type=socket.SOCK_STREAM)[0]
        with socket.socket(info[0], socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind(info[4])
    except OSError as err:
        raise ServeError(f"cannot listen on {args.host}:{args.port} "
                         f"({err.strerror or err}); choose another --port or --host") from None
    thinkers = args.thinkers if args.thinkers is not None else (os.cpu_count() or 1)
    hosts = allowed_hosts(args.host, args.allow_host)
    try:
        app = create_app(db, max_running=args.max_running, thinkers=thinkers, hosts=hosts)
    except DatabaseRefused as err:
        raise ServeError(f"--db {str(db)!r} is not a games database ({err.problem}); choose "
                         "another file") from None
    except sqlite3.DatabaseError as err:
        raise ServeError(f"--db {str(db)!r} is not a games database ({err}); choose another "
                         "file") from None
    if args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"warning: --host {args.host} lets other machines reach the server; there is no "
              "login (they must name it as --allow-host says; it answers to "
              f"{', '.join(hosts)})", file=sys.stderr)
    host = f"[{args.host}]" if ":" in args.host else args.host
    print(f"{row.title}: open http://{host}:{args.port}/ in a browser (games in {db}, {thinkers} "
          f"thinking worker{'s' if thinkers != 1 else ''}); Ctrl-C stops the server", flush=True)
    try:
        serve_app(app, args.host, args.port)
    finally:
        app.state.live.close()  # (done already by the app's lifespan when it ran)
    return 0


def allowed_hosts(host: str, extra: list[str]) -> list[str]:
    """The names a request's ``Host`` may give: this machine's, ``--host`` (unless it is a
    wildcard address) and every ``--allow-host``."""
    host = host.strip().lower().strip("[]")
    names = list(LOCAL_HOSTS) + ([host] if host not in ("0.0.0.0", "::", "", *LOCAL_HOSTS)
                                 else [])
    for name in extra:
        name = name.strip().lower()
        if not HOST_NAME.fullmatch(name):
            raise ServeError(f"--allow-host {clip(name, 60)!r}: give a host name or address "
                             "without a scheme, path or port (e.g. mybox.local or 10.0.0.5)")
        names.append(name)
    return names


def connection_limit() -> int:
    """Connections served at once (more are answered 503 at once): below the process's limit
    of open files, so that held connections cannot starve the games database and the workers'
    pipes of file descriptors."""
    try:
        import resource
        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
    except (ImportError, OSError, ValueError):
        return 900
    return max(32, min(4000, (soft if soft > 0 else 1024) - 100))


def serve_app(app, host: str, port: int) -> None:
    """uvicorn serving ``app`` until Ctrl-C or SIGTERM, which first end the games' event
    streams (each page's stream ends cleanly, and the page reconnects to the next server), then
    shut down: no open connection is left to be cancelled with a traceback, and no wait."""
    import uvicorn

    class Server(uvicorn.Server):
        async def shutdown(self, sockets=None):
            app.state.live.end_streams()
            await super().shutdown(sockets)

    Server(uvicorn.Config(app, host=host, port=port, log_level="warning",
                          timeout_graceful_shutdown=GRACE,
                          limit_concurrency=connection_limit())).run()
