"""The live side of ``meduris serve``: game bodies, the drivers that play the opponents, and the
event streams (the API contract of issue 30; docs/web.md).

**A game's requests are serialised per game only**: every change to a game happens on the
event loop under that game's :class:`asyncio.Lock` (``LiveGame.alock``); no lock is shared by
all games. The human's move (:meth:`Live.act`), the moves of instant opponents and chance,
their SQLite commits and the replay of a game resumed from the store are done in a thread
(:func:`asyncio.to_thread`; the game's lock is held across it, so its moves stay in order); a
searching opponent's move in the thinking pool (:mod:`.thinking`). The game's lock is not held
while an opponent thinks, so a request meanwhile answers at once: ``GET`` with
``"thinking"``, a move with 409 and the game.

**No engine work on the event loop**: besides the moves, a game's body (:func:`game_body`: the
view, and for a finished game the score breakdown; a few milliseconds) is built in a thread
for every answer, stream message and 409 (under the game's lock where the game is read), the
whole body of ``GET`` and of a stream's ``sync`` encoded there too (:meth:`Live.body_json`),
and the state's JSON a thinking worker is sent (:meth:`State.to_json`) is written in a thread.
A published message is encoded once, whatever the number of subscribers.

**The driver** (:meth:`Live.drive`, one asyncio task per game whose opponents must move,
started by :meth:`Live.wake`): while an opponent (or chance) is due, it sets ``thinking``
(``{"seat", "agent", "since_ms"}``) and publishes a ``thinking`` message, awaits the decision,
then under the game's lock applies it with the chance outcomes and instant opponents that
follow, stores them (the SQLite commit comes before the announcement), and publishes a
``move`` message. A worker that dies (killed, out of memory: the pool is broken) has the
pool rebuilt and the decision asked again; if it dies again, or an opponent cannot move at
all, ``thinking`` is cleared and a ``failed`` message (``{"error", "thinking": null,
"step"}``) says why; the next request for the game tries again. A game stored while an
opponent had to move (the server killed mid-think) is woken when it is next asked for, and
goes on as it would have (the seeds depend on the steps only, :mod:`.store`).

**Event streams** (:meth:`Live.events`, Server-Sent Events): ``sync`` (the whole game body)
first, then ``move``, ``thinking`` and ``failed`` messages as they happen, a ``: keep-alive``
comment every :attr:`Live.keepalive` seconds, and the end after a finished game's last
``move``. Every subscriber of a game gets every message; each has a bounded queue
(:data:`QUEUE`): a client too slow to take them is dropped (its stream ends; EventSource
reconnects and gets a new ``sync``), never buffered without bound. A subscriber that
disconnects is removed.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from meduris_rl.cli.meduris.web.store import GameConfig, Games, LiveGame, WebError
from meduris_rl.cli.meduris.web.thinking import Thinkers
from meduris_rl.kit.jsonfile import clip

LOG = logging.getLogger("meduris.web")
QUEUE = 256  # messages a subscriber may have waiting before it is dropped
KEEPALIVE = 15.0  # seconds between keep-alive comments of an idle stream


def game_body(g: LiveGame, view: dict | None = None, moves: list | None = None
              ) -> dict[str, Any]:
    """A game as the API answers it: with its whole ``log``, or (``moves`` given) with the
    entries of the move just made instead."""
    out = {"id": g.id, "config": {"players": g.config.players, "seat": g.config.seat,
                                  "opponents": list(g.config.opponents),
                                  "seed": g.config.seed, "labels": g.labels},
           "step": g.steps, "status": "finished" if g.finished else "running",
           "view": view if view is not None else g.view(), "thinking": g.thinking}
    if moves is None:
        out["log"] = g.log
    else:
        out["moves"] = moves
    if g.finished:
        out["result"] = g.result()
        out["record_url"] = f"/api/games/{g.id}/record"
        out["replay_url"] = f"/games/{g.id}/replay"
    return out


def sse(event: str, data: Any) -> bytes:
    return f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()


def encode(body: dict[str, Any]) -> bytes:
    """``body`` as the app's JSON answers are encoded (starlette's JSONResponse, byte for byte),
    so that a big body (a finished game's log) can be encoded off the event loop."""
    return json.dumps(body, ensure_ascii=False, allow_nan=False, indent=None,
                      separators=(",", ":")).encode("utf-8")


def moved(games: Games, g: LiveGame, action: Any, step: Any) -> dict[str, Any]:
    """(In a thread.) The human's move (:meth:`Games.move`) and the body that answers it."""
    moves, view = games.move(g, action, step)
    return game_body(g, view, moves)


class Subscriber:
    """One event stream's queue; ``dropped`` once it fell :data:`QUEUE` messages behind."""

    def __init__(self):
        self.queue: asyncio.Queue = asyncio.Queue(QUEUE)
        self.dropped = False


class Live:
    """The games of a server as the routes play them (module docstring). ``make_pool``
    builds a thinking pool (blocking: run in a thread); ``pool``: the one built already, or
    None to build it when an opponent first thinks. A pool whose worker died is rebuilt."""

    def __init__(self, games: Games, make_pool: Callable[[], Thinkers],
                 pool: Thinkers | None = None, keepalive: float = KEEPALIVE):
        self.games = games
        self.make_pool = make_pool
        self.pool = pool
        self.broken: Thinkers | None = None  # the pool a worker of which died
        self.pool_lock = asyncio.Lock()  # one pool built at a time
        self.keepalive = keepalive
        self.closing = False
        self.stopping = False  # no new event stream (end_streams)
        self.stop = threading.Event()  # set by close: a pool still warming up gives up
        self.idle = threading.Event()  # clear while a pool is being built (in a thread)
        self.idle.set()
        self.warming: asyncio.Task | None = None  # the pool built in the background (warm)
        self.warm_error: str | None = None  # why the last pool could not be built

    def warm(self) -> None:
        """Build the pool in the background (``meduris serve``: the page answers at once, the
        searching opponents play once their workers have warmed up; :meth:`pool_status`)."""
        if self.warming is None and self.pool is None:
            self.warming = asyncio.get_running_loop().create_task(self._warm())

    async def _warm(self) -> None:
        try:
            await self.thinkers()
        except asyncio.CancelledError:
            pass
        except RuntimeError as err:  # (said by pool_status and by the first game needing it)
            LOG.error("%s; the opponents that search cannot play until a game asks again", err)

    def pool_status(self) -> dict[str, Any]:
        """``{"ready": bool, "warming": bool, "error": reason or None}`` of the thinking pool:
        what the page says of the opponents that think in it. Ready: no pool is being built
        and the last one did not fail (a pool built when first needed, for tests, is ready:
        nothing warms it)."""
        building = self.pool_lock.locked() or (self.warming is not None
                                                and not self.warming.done())
        error = None if building else self.warm_error
        return {"ready": not building and error is None, "warming": building, "error": error}

    def _build(self) -> Thinkers:
        """(In a thread.) A new pool; ``idle`` is clear while it is being built."""
        self.idle.clear()
        try:
            if self.stop.is_set():  # (the server stopped before this thread started)
                raise RuntimeError("the thinking workers did not start (the server stopped)")
            return self.make_pool()
        finally:
            self.idle.set()

    async def thinkers(self) -> Thinkers:
        """The pool: built (in a thread) when there is none or it broke."""
        if self.pool is None or self.pool is self.broken:
            async with self.pool_lock:
                if self.pool is None or self.pool is self.broken:
                    old, self.pool = self.pool, None
                    if old is not None:
                        await asyncio.to_thread(old.close)
                    try:
                        pool = await asyncio.to_thread(self._build)
                    except RuntimeError as err:  # a worker's warm-up failed, or too slow
                        if self.closing:
                            raise asyncio.CancelledError from None
                        self.warm_error = str(err)
                        raise
                    if self.closing:  # the server stopped meanwhile: no worker outlives it
                        await asyncio.to_thread(pool.close)
                        raise asyncio.CancelledError
                    self.pool, self.warm_error = pool, None
        return self.pool

    async def decide(self, g: LiveGame, seat: int) -> int:
        """The decision of the opponent at ``seat``, made in the pool. A worker that died (the
        pool broken: killed, out of memory) has the pool rebuilt and the decision asked once
        more; a second death is the error."""
        state_json = await asyncio.to_thread(g.state.to_json)  # (about a millisecond)
        for attempt in (1, 2):
            pool = await self.thinkers()
            try:
                return await pool.decide(g.labels[seat], g.config.players, state_json,
                                         seat, g.decision_seed(seat, g.steps))
            except BrokenProcessPool:
                if self.closing:  # stopped on purpose: nothing to rebuild
                    raise asyncio.CancelledError from None
                if not pool.closed:  # (closed: another game's rebuild replaced it already)
                    self.broken = pool
                if attempt == 2:
                    raise
                LOG.warning("game %s: a thinking worker died while %s (seat %d) was "
                            "thinking; the pool is rebuilt and asked again", g.id,
                            g.labels[seat], seat)
        raise AssertionError("unreachable")

    def end_streams(self) -> None:
        """End every open event stream now (the server is stopping: each ends cleanly instead
        of being cancelled when the grace period is over); a stream asked for from now on is
        refused (503): the page reconnects to the next server."""
        self.stopping = True
        for g in list(self.games.live_games()):
            for sub in list(g.subscribers):
                drop(g, sub)

    def close(self) -> None:
        """Stop the drivers and the pool (no process outlives the server)."""
        self.closing = True
        self.stop.set()
        if self.warming is not None and not self.warming.done():
            try:
                self.warming.cancel()
            except RuntimeError:  # (its event loop is closed already: so is the task)
                pass
        # a pool half built ends its workers as it sees ``stop`` (within 50 ms): wait for
        # that here, as the process may end right after this (uvicorn raises the signal
        # again), and a worker still importing has no parent-death signal yet
        self.idle.wait(timeout=10)
        for g in list(self.games.live_games()):
            if g.driver is not None:
                g.driver.cancel()
        self.end_streams()
        if self.pool is not None:
            self.pool.close()

    # -- playing --------------------------------------------------------------------------
    async def game(self, game_id: str) -> LiveGame:
        """The game (resumed from the store in a thread if it is not in memory: replaying it
        is engine work), its driver woken if it has moves to make."""
        g = self.games.held(game_id) or await asyncio.to_thread(self.games.get, game_id)
        if g.alock is None:
            g.alock = asyncio.Lock()
        self.wake(g)
        return g

    async def body_json(self, game_id: str) -> bytes:
        """The game as the API answers it, encoded (:func:`encode`), built and encoded in a
        thread under its lock: never half of a move that a thread is applying (the step of one
        position with the view of the next)."""
        g = await self.game(game_id)
        async with g.alock:
            return await asyncio.to_thread(lambda: encode(game_body(g)))

    async def create(self, config: GameConfig) -> dict[str, Any]:
        g, _ = await asyncio.to_thread(self.games.create, config)
        g.alock = g.alock or asyncio.Lock()
        self.wake(g)
        async with g.alock:  # (the driver just woken may be applying a move meanwhile)
            return await asyncio.to_thread(game_body, g)

    async def act(self, game_id: str, action: Any, step: Any) -> dict[str, Any]:
        """The human's move, answered at once (opponents who must think answer later, on the
        stream); a 409 carries the game (:class:`Refusal`)."""
        g = await self.game(game_id)
        async with g.alock:
            if g.thinking is not None or g.due() is not None:
                raise Refusal(409, f"out of turn: {g.labels[g.thinking['seat']]} (seat "
                              f"{g.thinking['seat']}) is thinking" if g.thinking else
                              "out of turn: the opponents are moving",
                              await asyncio.to_thread(game_body, g))
            try:
                body = await asyncio.to_thread(moved, self.games, g, action, step)
            except WebError as err:
                if err.status == 409:
                    raise Refusal(409, err.reason, await asyncio.to_thread(game_body, g)
                                  ) from None
                raise
            self.wake(g)
            body["thinking"] = g.thinking  # (the opponent the move woke, if one thinks)
            self.publish(g, "move", move_message(body))
            return body

    def wake(self, g: LiveGame) -> None:
        """Start the game's driver if an opponent or chance is due and none runs."""
        if self.closing or g.due() is None or (g.driver is not None and not g.driver.done()):
            return
        seat = g.due()
        if seat >= 0 and not g.instant(seat):
            g.thinking = thinking(g, seat)
        g.driver = asyncio.get_running_loop().create_task(self.drive(g))

    async def drive(self, g: LiveGame) -> None:
        """Play the opponents and chance while they are due (module docstring). If one cannot
        move, ``thinking`` is cleared and a ``failed`` message says why; the next request
        for the game wakes a new driver."""
        seat = -1
        try:
            while (seat := g.due()) is not None:
                action = None
                if not g.instant(seat):
                    g.check_thinker(seat)
                    g.thinking = g.thinking or thinking(g, seat)
                    self.publish(g, "thinking", {"thinking": g.thinking, "step": g.steps})
                    action = await self.decide(g, seat)
                async with g.alock:
                    # the SQLite commit and the engine work in a thread, under the game's
                    # lock: the game's moves stay in order, the loop stays free
                    body = await asyncio.to_thread(advanced, g, seat, action)
                    nxt = g.due()
                    g.thinking = thinking(g, nxt) if nxt is not None and not g.instant(nxt) \
                        else None
                    body["thinking"] = g.thinking
                    self.publish(g, "move", move_message(body))
        except asyncio.CancelledError:
            raise
        except Exception as err:  # an opponent that cannot play, a worker gone twice
            LOG.exception("game %s: the opponents' moves failed", g.id)
            g.thinking = None
            self.publish(g, "failed", {"error": failure(g, seat, err), "thinking": None,
                                       "step": g.steps})
        finally:
            g.thinking = None if g.due() is None or self.closing else g.thinking
            g.driver = None

    # -- the event stream -----------------------------------------------------------------
    def publish(self, g: LiveGame, event: str, data: dict[str, Any]) -> None:
        """Queue a message for every subscriber, encoded once: (event, its bytes, whether it
        ends the stream: a finished game's last ``move``)."""
        if not g.subscribers:
            return
        message = (event, sse(event, data), event == "move" and data["status"] == "finished")
        for sub in list(g.subscribers):
            try:
                sub.queue.put_nowait(message)
            except asyncio.QueueFull:
                drop(g, sub)

    async def events(self, g: LiveGame) -> AsyncIterator[bytes]:
        """The game's event stream (module docstring)."""
        sub = Subscriber()
        g.subscribers.add(sub)
        g.alock = g.alock or asyncio.Lock()
        try:
            async with g.alock:  # (a whole position, as Live.body_json)
                sync = await asyncio.to_thread(lambda: sse("sync", game_body(g)))
            yield sync
            if g.finished:
                return
            while not sub.dropped:
                try:
                    event, payload, last = await asyncio.wait_for(sub.queue.get(),
                                                                  self.keepalive)
                except TimeoutError:
                    yield b": keep-alive\n\n"
                    continue
                if event is None:
                    return
                yield payload
                if last:
                    return
        finally:
            g.subscribers.discard(sub)


def drop(g: LiveGame, sub: Subscriber) -> None:
    """End a subscriber's stream: removed at once, its generator told by a last message."""
    sub.dropped = True
    g.subscribers.discard(sub)
    try:
        sub.queue.put_nowait((None, b"", True))
    except asyncio.QueueFull:
        pass  # its generator sees ``dropped`` when it next takes a message


def advance(g: LiveGame, seat: int, action: int | None) -> tuple[list, dict[str, Any]]:
    """(In a thread.) Apply the decision ``action`` of ``seat`` (None: an instant seat or
    chance, played by :meth:`LiveGame.run`) with the chance outcomes and instant opponents
    that follow, store them and make them the game's; the new entries and the human's view."""
    state, log, moves = g.state.clone(), [], []
    if action is not None:
        g.apply(state, seat, action, log, moves)
    before = g.rng
    try:
        g.run(state, log, moves)
        g.commit(state, log, moves)
    except BaseException:
        g.rng = before
        raise
    return log, g.view()


def advanced(g: LiveGame, seat: int, action: int | None) -> dict[str, Any]:
    """(In a thread.) :func:`advance`, and the body of the ``move`` message it makes."""
    log, view = advance(g, seat, action)
    return game_body(g, view, log)


def failure(g: LiveGame, seat: int, err: Exception) -> str:
    """Why the opponent at ``seat`` could not move, in one line for the page."""
    who = "chance" if seat < 0 else f"{g.labels[seat]} (seat {seat})"
    if isinstance(err, BrokenProcessPool):
        why = "its thinking worker stopped twice"
    elif isinstance(err, WebError):
        why = err.reason
    else:
        why = f"{type(err).__name__}: {clip(str(err), 160)}"
    return f"{who} could not move ({why}); reload the page to try again"


def thinking(g: LiveGame, seat: int) -> dict[str, Any]:
    return {"seat": seat, "agent": g.labels[seat], "since_ms": int(time.time() * 1000)}


def move_message(body: dict[str, Any]) -> dict[str, Any]:
    """A ``move`` message: the new entries and where the game is (a finished game's with its
    result and the addresses of its record and replay, whoever made the last move)."""
    keys = ("moves", "view", "step", "status", "thinking", "result", "record_url", "replay_url")
    return {k: body[k] for k in keys if k in body}


class Refusal(WebError):
    """A 409 that carries the game's body (the page refreshes its position from it)."""

    def __init__(self, status: int, reason: str, game: dict[str, Any]):
        super().__init__(status, reason)
        self.game = game
