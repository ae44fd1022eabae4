"""The web app of ``meduris serve`` (FastAPI): one page to play Meduris against the agents, and
its JSON API. ``create_app(db_path)`` builds it; uvicorn serves it.

Routes (the shapes are in docs/web.md):

=======================================  ===================================================
``GET /``                                the page (``static/play.html``)
``GET /board.js``, ``GET /play.css``     the board renderer (``meduris_env/render/templates/``,
                                         shared with the HTML replay), the page's style
                                         (``static/play.css``)
``GET /api/agents``                      the opponents a game may have
``GET /api/games``                       the latest games
``POST /api/games``                      a new game: players, opponents, seat, seed
``GET /api/games/{id}``                  a game: view, log, config
``POST /api/games/{id}/actions``         your action, answered at once (opponents who must
                                         think answer on the event stream)
``GET /api/games/{id}/events``           the game's event stream (Server-Sent Events)
``GET /api/games/{id}/record``           a finished game's record (``meduris replay``)
``GET /games/{id}/replay``               a finished game's HTML replay
=======================================  ===================================================

Nothing else is served: the four files (those three and the replay's page) are fixed names
read from the package, never a path from the request.

Every request must name the server in its ``Host`` header (``localhost``, ``127.0.0.1``,
``::1``, ``--host``, ``--allow-host``; else 400: a site the player visits cannot drive the server
through a DNS name that resolves to it); a body must arrive within :data:`BODY_TIMEOUT` seconds
(else 408); a path with a trailing slash is not redirected (404, as any unknown path).
Every error is a JSON object ``{"error": reason, "status": code}`` (one line, values shown as
short excerpts), never text: a refusal (4xx) changes nothing. Bodies are read by
:func:`read_body`: ``Content-Type: application/json`` (else 415), at most :data:`MAX_BODY`
bytes (413, refused by :class:`Guard` before they are read), parsed by the project's bounded
reader :func:`meduris_rl.kit.jsonfile.parse_json` (at most :data:`MAX_DEPTH` levels, 64-bit
integers, no NaN: else 422) and then checked field by field. A stored game that no longer
replays is 409 (:class:`.store.DamagedGame`); too many running games 503. Anything unforeseen
is caught by :class:`Guard`: its traceback goes to the server log (logger ``meduris.web``) and
the answer is 500 JSON naming the exception's class.

Requests of different games never wait for each other (no lock is shared by all games); those
of one game are served one at a time, under the game's own lock; the opponents' searches run
in the thinking pool (:mod:`.thinking`, ``thinkers`` worker processes started and warmed up in
the background when the app starts: the page answers at once, ``GET /api/agents`` says which
opponents are ready), the drivers and event streams are :mod:`.live`'s. The pool stops when
the app shuts down (its lifespan) or the process exits.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import logging
import re
from collections.abc import Iterable
from contextlib import asynccontextmanager
from functools import partial
from importlib import resources
from pathlib import Path
from typing import Any

import anyio
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from pydantic import BaseModel, ConfigDict, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from meduris_env.records.replay import html_replay
from meduris_env.render import template
from meduris_rl.cli.checks import LOCAL_HOSTS
from meduris_rl.cli.meduris.web.live import KEEPALIVE, Live, Refusal
from meduris_rl.cli.meduris.web.store import (
    MAX_RUNNING,
    Games,
    LiveGame,
    Store,
    WebError,
    available_agents,
    check_config,
    offered_levels,
)
from meduris_rl.cli.meduris.web.thinking import Thinkers, is_instant
from meduris_rl.kit.jsonfile import clip, parse_json

MAX_BODY = 16 * 1024  # bytes; a move is about 30
BODY_TIMEOUT = 10.0  # seconds a request body may take to arrive (a move's takes microseconds)
HOST = re.compile(r"\[([^\]]+)\](?::\d*)?|([^:\[][^:]*)(?::\d*)?")  # [IPv6] or name, :port
MAX_DEPTH = 8  # JSON nesting of a body (a new game's is 2)
LOG = logging.getLogger("meduris.web")
SECURITY_HEADERS = [
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"x-frame-options", b"DENY"),
    (b"content-security-policy",
     b"default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
     b"img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
     b"form-action 'self'"),
]


class NewGame(BaseModel):
    model_config = ConfigDict(extra="forbid")
    players: Any = 2
    opponents: Any = "greedy"
    seat: Any = 0
    seed: Any = None


class Move(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: Any
    step: Any = None


def _error(status: int, reason: str) -> JSONResponse:
    return JSONResponse({"error": reason, "status": status}, status_code=status)


class BodyError(WebError):
    """A request body that is not the JSON asked for (422)."""

    def __init__(self, reason: str):
        super().__init__(422, reason)


async def read_body(request: Request, model: type[BaseModel]) -> Any:
    """The request's JSON body as ``model``: a WebError (415, 422) with one line otherwise."""
    kind = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if kind != "application/json":
        raise WebError(415, f"the body must be JSON sent with Content-Type: application/json, "
                       f"got {clip(kind, 40)!r}")
    data = parse_json(await request.body(), BodyError, "the body", max_bytes=MAX_BODY,
                      max_depth=MAX_DEPTH)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise BodyError(_validation_reason(exc.errors())) from None


def host_name(header: bytes | None) -> str | None:
    """The host name of a ``Host`` header without its port, lower case (``[::1]:8000`` is
    ``::1``); None for a missing or malformed one."""
    try:
        match = HOST.fullmatch((header or b"").decode("ascii").strip().lower())
    except UnicodeDecodeError:
        return None
    return (match.group(1) or match.group(2)) if match else None


class Guard:
    """ASGI middleware: refuses a request whose ``Host`` is not one of ``hosts`` (400: a web
    page of another site that the player visits cannot drive the server through a name that
    resolves to it, DNS rebinding), bodies over ``limit`` bytes (413, before the app sees them)
    and bodies that do not arrive within ``body_timeout`` seconds (408: a half-sent body holds
    nothing for long); adds the security headers to every response."""

    def __init__(self, app, limit: int = MAX_BODY, hosts: Iterable[str] = LOCAL_HOSTS,
                 body_timeout: float | None = None):
        self.app = app
        self.limit = limit
        self.hosts = frozenset(h.lower() for h in hosts)
        self.body_timeout = BODY_TIMEOUT if body_timeout is None else body_timeout

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_secure(message):
            if message["type"] == "http.response.start":
                message = dict(message)
                message["headers"] = list(message.get("headers", [])) + SECURITY_HEADERS
            await send(message)

        headers = dict(scope.get("headers", []))
        host = host_name(headers.get(b"host"))
        if host not in self.hosts:
            shown = clip(headers.get(b"host", b"").decode("latin-1"), 60)
            await _error(400, f"the Host header {shown!r} does not name this server (it answers "
                         f"to {', '.join(sorted(self.hosts))}; meduris serve --allow-host NAME "
                         "adds a name)")(scope, receive, send_secure)
            return
        too_big = f"the request body is over {self.limit} bytes"
        length = headers.get(b"content-length")
        if length is not None:
            try:
                declared = int(length)
            except ValueError:
                await _error(400, "bad Content-Length header")(scope, receive, send_secure)
                return
            if declared > self.limit:
                await _error(413, too_big)(scope, receive, send_secure)
                return
        chunks, size, more = [], 0, True
        try:
            async with asyncio.timeout(self.body_timeout):
                while more:
                    message = await receive()
                    if message["type"] != "http.request":  # the client went away
                        return
                    chunk = message.get("body", b"")
                    size += len(chunk)
                    if size > self.limit:
                        await _error(413, too_big)(scope, receive, send_secure)
                        return
                    chunks.append(chunk)
                    more = message.get("more_body", False)
        except TimeoutError:
            await _error(408, f"the request body did not arrive within {self.body_timeout:g} s"
                         )(scope, receive, send_secure)
            return
        body = b"".join(chunks)
        given = False

        async def replay():
            nonlocal given
            if not given:
                given = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        started = False

        async def send_tracked(message):
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send_secure(message)

        try:
            await self.app(scope, replay, send_tracked)
        except Exception as exc:  # the catch-all: the traceback to the log, 500 JSON out
            LOG.exception("internal error answering %s %s", scope.get("method"),
                          scope.get("path"))
            if not started:
                reason = (f"internal error ({type(exc).__name__}); the server's log has the "
                          "details")
                await _error(500, reason)(scope, receive, send_secure)


def _validation_reason(errors) -> str:
    """The first of pydantic's ``errors`` in one short line."""
    if not errors:
        return "malformed request"
    e = errors[0]
    if e.get("type") == "json_invalid":
        return "the body is not valid JSON"
    loc = [str(x) for x in e.get("loc", ()) if x != "body"]
    where = clip(".".join(loc), 60)
    msg = clip(str(e.get("msg", "invalid")), 120)
    return f"{where}: {msg}" if where else f"body: {msg}"


def warm_agents() -> list[tuple[str, int]]:
    """What each thinking worker plays once when it starts: every built-in name the page offers
    that thinks in the pool (each kind's ``examples`` and the difficulty levels' agents), for
    each player count it is offered for, so no offered opponent is built or loaded on a click.
    Installed entry-point plug-ins are left out: they are built when first played (lazily), so
    one that fails to import or hangs in its constructor never stops the server starting."""
    from meduris_rl.agents.registry import kind_named
    offer = [a for a in available_agents()
             if getattr(kind_named(a["name"]), "source", "") != "entry point"]
    names = {a["name"]: list(a["examples"]) for a in offer}
    for lv in offered_levels(offer):
        kind = next(n for n in names if lv["agent"].split(":", 1)[0] == n)
        if lv["agent"] not in names[kind]:
            names[kind].append(lv["agent"])
    return [(name, p) for a in offer for name in names[a["name"]] if not is_instant(name)
            for p in a["players"]]


def create_app(db_path: str | Path, keep: int = 256, max_running: int = MAX_RUNNING,
               thinkers: int | None = None, keepalive: float = KEEPALIVE,
               hosts: Iterable[str] = LOCAL_HOSTS) -> FastAPI:
    """The app, storing its games in the SQLite file ``db_path`` (created if missing; a file
    that is not a games database is refused: :class:`.store.DatabaseRefused`). Games already in
    the file are resumed when asked for. ``keep``: games held in memory; ``max_running``:
    running games stored at most (one more is refused, 503). ``thinkers``: worker processes
    of the thinking pool, started and warmed up (:func:`warm_agents`) in the background when
    the app starts (its lifespan: the page answers meanwhile, ``/api/agents`` says which
    opponents are ready) and again if a worker dies; None: one worker, started (cold) when an
    opponent first thinks (for tests and embedding). ``keepalive``: seconds between an idle
    event stream's keep-alive comments. ``hosts``: the names a request's ``Host`` may give
    (:class:`Guard`)."""
    store = Store(db_path)
    games = Games(store, keep=keep, max_running=max_running)
    if thinkers is None:
        live = Live(games, lambda: stopped_at_exit(Thinkers(1)), keepalive=keepalive)
    else:
        warm = warm_agents()

        def make_pool() -> Thinkers:
            return stopped_at_exit(Thinkers(thinkers, warm, stop=live.stop))

        live = Live(games, make_pool, keepalive=keepalive)

    @asynccontextmanager
    async def lifespan(app):
        if thinkers is not None:
            live.warm()
        yield
        live.close()

    app = FastAPI(title="Meduris", docs_url=None, redoc_url=None, openapi_url=None,
                  lifespan=lifespan, redirect_slashes=False)
    app.state.games = games
    app.state.store = store
    app.state.live = live
    app.add_middleware(Guard, hosts=hosts)
    _add_error_handlers(app)
    _add_page_routes(app)
    _add_game_routes(app, live)
    _add_record_routes(app, games)
    return app


def stopped_at_exit(pool: Thinkers) -> Thinkers:
    """``pool``, closed when the process exits if nothing closed it before."""
    atexit.register(pool.close)
    return pool


def static(name: str) -> str:
    """The text of a file of the page shipped in ``meduris_cli/meduris/web/static/`` (package
    data)."""
    return resources.files(__package__).joinpath("static", name).read_text("utf-8")


def _add_error_handlers(app: FastAPI) -> None:
    """Every refusal as ``{"error": reason, "status": code}``."""

    @app.exception_handler(WebError)
    def _web_error(request: Request, exc: WebError):
        if isinstance(exc, Refusal):  # the game too: the page refreshes its position
            return JSONResponse({"error": exc.reason, "status": exc.status, "game": exc.game},
                                status_code=exc.status)
        return _error(exc.status, exc.reason)

    @app.exception_handler(StarletteHTTPException)
    def _http_error(request: Request, exc: StarletteHTTPException):
        reason = {404: "not found", 405: "method not allowed"}.get(exc.status_code,
                                                                   str(exc.detail))
        return _error(exc.status_code, reason)

    @app.exception_handler(RequestValidationError)
    def _bad_request(request: Request, exc: RequestValidationError):
        return _error(422, _validation_reason(exc.errors()))


def _add_page_routes(app: FastAPI) -> None:
    """The page, its style and the board renderer, read once and served under fixed names.
    The renderer is the HTML replay's too, so it stays with the render layer's templates."""
    page = static("play.html")
    play_css = static("play.css")
    board_js = template("board.js")

    @app.get("/", response_class=HTMLResponse)
    def index():
        return HTMLResponse(page, headers={"cache-control": "no-cache"})

    @app.get("/board.js")
    def renderer():
        return Response(board_js, media_type="text/javascript; charset=utf-8",
                        headers={"cache-control": "no-cache"})

    @app.get("/play.css")
    def style():
        return Response(play_css, media_type="text/css; charset=utf-8",
                        headers={"cache-control": "no-cache"})


def _add_game_routes(app: FastAPI, live: Live) -> None:
    """The agents, the list of games, and playing: a new game, a game, a move, its events."""
    store = live.games.store

    # the payloads are plain JSON data already: JSONResponse skips FastAPI's
    # jsonable_encoder, which costs more than the move itself
    @app.get("/api/agents")
    def agents():
        offer, pool = available_agents(), live.pool_status()
        for a in offer:  # (an instant agent plays in the server: it is always ready)
            a["ready"] = pool["ready"] or all(is_instant(x) for x in a["examples"])
        return JSONResponse({"agents": offer, "levels": offered_levels(offer),
                             "thinking": pool})

    @app.get("/api/games")
    def list_games():
        return JSONResponse({"games": store.list()})

    @app.post("/api/games", status_code=201)
    async def new_game(request: Request):
        body = await read_body(request, NewGame)
        config = check_config(body.players, body.opponents, body.seat, body.seed)
        return JSONResponse(await live.create(config), status_code=201)

    @app.get("/api/games/{game_id}")
    async def get_game(game_id: str):
        # (built and encoded in a thread: a finished game's body is about 100 kB)
        return Response(await live.body_json(game_id), media_type="application/json")

    @app.post("/api/games/{game_id}/actions")
    async def act(game_id: str, request: Request):
        body = await read_body(request, Move)
        return JSONResponse(await live.act(game_id, body.action, body.step))

    @app.get("/api/games/{game_id}/events")
    async def events(game_id: str):
        if live.stopping:  # (Live.end_streams: the page reconnects to the next server)
            raise WebError(503, "the server is stopping; the page reconnects when it is back")
        g = await live.game(game_id)
        return EventStream(live.events(g), media_type="text/event-stream",
                           headers={"cache-control": "no-cache", "x-accel-buffering": "no"})


class EventStream(StreamingResponse):
    """A streaming response that ends as soon as the client goes away (starlette listens for
    the disconnect only for older ASGI servers; otherwise an idle stream would notice it at
    its next keep-alive only, and keep its subscriber until then)."""

    async def __call__(self, scope, receive, send):
        async with anyio.create_task_group() as tg:
            async def run_then_stop(work):
                await work()
                tg.cancel_scope.cancel()
            tg.start_soon(run_then_stop, partial(self.stream_response, send))
            await run_then_stop(partial(self.listen_for_disconnect, receive))


def _add_record_routes(app: FastAPI, games: Games) -> None:
    """A finished game's record and HTML replay (refused while it runs)."""

    def finished(game_id: str) -> LiveGame:
        g = games.get(game_id)
        if not g.finished:
            raise WebError(409, "the game is still running: its record would lift the "
                           "opponents' screens; finish it first")
        return g

    @app.get("/api/games/{game_id}/record")
    def record(game_id: str):
        g = finished(game_id)
        text = json.dumps(g.record().to_dict(), separators=(",", ":"))
        return Response(text, media_type="application/json", headers={
            "content-disposition": f'attachment; filename="meduris-{g.id}.json"'})

    @app.get("/games/{game_id}/replay", response_class=HTMLResponse)
    def replay(game_id: str):
        g = finished(game_id)
        rec = g.record()
        page = html_replay(rec, title=f"Meduris game {g.id}: " + ", ".join(g.labels))
        return HTMLResponse(page)
