"""The games of ``meduris serve``: SQLite storage and the live games played through the engine.

**Storage** (:class:`Store`, stdlib ``sqlite3`` in WAL mode). Table ``games`` holds one row per
game: its id, its config as JSON (players, your seat, the opponents, the seed), the number of
actions played, ``running``/``finished`` and the result. Table ``moves`` holds every action of
every game (chance outcomes, your actions and the opponents'), one row each: ``(game, step,
seat, action)``. A move is one transaction: your action with the chance outcomes and instant
opponents' moves that follow it; then each searching opponent's decision with what follows it
(:meth:`LiveGame.commit`, called by the drivers of :mod:`.live`); each time the game's step count
is moved on (only if it still is what the move started from) before anything is announced.
With ``synchronous=NORMAL`` a committed move survives the server being killed or restarted; a
power cut may lose the last moves of a game.

**Recognition.** A games database is marked (``PRAGMA application_id`` :data:`APPLICATION_ID`,
``PRAGMA user_version`` :data:`SCHEMA_VERSION`). :func:`database_problem` inspects a file before
anything is written to it (read-only): a missing or empty file, a marked one of this schema
version, or an unmarked one whose tables are exactly this schema's (written before the mark
existed: adopted, i.e. marked) are used; anything else (not SQLite, another application's mark,
a newer schema version, other tables or columns) is refused by :class:`Store` with
:class:`DatabaseRefused`, the file left byte-identical.

**Stored rows are input.** What a game's rows hold is checked when the game is read
(:meth:`Store.load`: the config through the bounded JSON reader
:func:`meduris_rl.kit.jsonfile.parse_json` and the strict checkers of
:mod:`meduris_rl.kit.values`, the moves numbered 0..n-1, then replayed with each seat
checked); a game whose rows were tampered with is refused with :class:`DamagedGame` (409, the
reason) and the other games keep working. Opponent names read back are checked as a request's
are (:func:`check_opponent`) before an agent is built, so no stored name reaches a file.

**Running games are bounded**: :meth:`Store.create` refuses a new running game (503) when
``max_running`` are running already (finished games do not count), counted in the transaction
that stores it.

**Resuming** is replaying: :meth:`Games.get` rebuilds a game that is not in memory by applying
its stored actions to a fresh state, each checked for the seat recorded. Everything a game does
is determined by its seed: the chance outcomes that follow an action at step ``k`` (history
length ``k`` before them) are drawn from ``random.Random(derive_seed(seed, 0, k))``, and the
opponent at ``seat`` is reset with ``derive_seed(seed, seat + 1, k)`` before it decides at step
``k`` (the paths of :mod:`meduris_rl.kit.seeding`, with the step added). Nothing depends on
what the server held in memory, so a game resumed after a restart goes on exactly as it would
have.

**Opponents** are the built-in agents and shipped models only: a name is read by the one
agent-name parser, :meth:`meduris_rl.agents.registry.AgentSpec.parse` (:func:`opponent_spec`), after
its kind was found among Meduris's rows of the agent table whose ``web`` flag is
set (so no file or module named by a request is ever imported), with at most a whole-number budget
(``mcts:200``); a parameter naming a file (``ppo:<path>``) is refused. Nothing is built to
check a name: the server process builds the instant opponents only (when they first move);
the others, models and all, exist only in the thinking workers.

**Playing in steps.** :meth:`LiveGame.run` plays chance (from the game's chance stream
:attr:`LiveGame.rng`, restarted at ``derive_seed(seed, 0, k)`` after each human action at step
``k - 1``) and the instant opponents (:func:`.thinking.is_instant`) until the human or a
searching opponent must decide, and the human's forced moves (a decision with one legal action,
e.g. an offering when nothing but "nothing" can be paid: played for the human, stored as
theirs, logged ``"forced": true``); the searching opponents' decisions are made in the thinking
pool (:mod:`.thinking`) by the game's driver (:mod:`.live`) and applied with
:meth:`LiveGame.apply`. Resuming rebuilds the chance stream by drawing again for the chance
outcomes stored since the human's last action, so a game stored mid-way through its opponents'
moves goes on exactly as it would have.

**Threads.** The engine is thread-safe (its scratch buffers are per thread, its kernels release
the GIL). A game is changed under its asyncio lock (:mod:`.live`), its engine work and its
SQLite commit done in a thread on a clone of its state; :attr:`LiveGame.lock` guards the
reads made from other threads (views, records), and resuming a game from the store (in a
thread too) holds a lock for its id (:meth:`Games.get`); no lock is shared by all games except
the store's, held for one SQLite statement or transaction.

**Words.** A log entry carries ``lines``: the entry in the player's words, one sentence per
event, "you" for the human's seat, and ``targets``: the places on the board its action
changed, as the page's target keys (:mod:`.words`); the view's status line says "Your move"
at the human's decision, and its offering "nothing" says it costs nothing when the human has
no VP (R19).
"""

from __future__ import annotations

import json
import math
import random
import re
import secrets
import sqlite3
import threading
import time
from collections import OrderedDict
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from meduris_env import MedurisGame, score_breakdown
from meduris_env.engine.actions import action_to_string, decode_action
from meduris_env.engine.chance import sample_chance
from meduris_env.engine.constants import CHANCE, NUM_ACTIONS, TERMINAL
from meduris_env.engine.game import PlayerCountError
from meduris_env.engine.state import IllegalActionError, State
from meduris_env.envs.observation import observe_state
from meduris_env.render.view import state_view
from meduris_env.row import ROW
from meduris_rl.agents import Agent, UnknownAgentError, make_agent
from meduris_rl.agents.registry import AgentSpec
from meduris_rl.cli.checks import DatabaseRefused
from meduris_rl.cli.meduris.web.thinking import is_instant
from meduris_rl.cli.meduris.web.words import (
    entry_lines,
    entry_targets,
    with_offer_words,
    with_your_status,
)
from meduris_rl.kit.errors import InputError
from meduris_rl.kit.jsonfile import clip, parse_json
from meduris_rl.kit.records import GameRecord
from meduris_rl.kit.seeding import derive_seed
from meduris_rl.kit.values import SEED_MAX, ValueCheckError, check_int, excerpt

MAX_BUDGET = 2000  # the largest mcts/az/openspiel-mcts budget a request may ask for
OFFERED_BUDGETS = (50, 200, 800)  # the budgets the page offers for a kind that has one
ID_PATTERN = re.compile(r"[0-9a-f]{16}")
MAX_RUNNING = 1000  # running games a server stores by default (meduris serve --max-running)
APPLICATION_ID = 0x4D445253  # PRAGMA application_id of a games database ("MDRS")
SCHEMA_VERSION = 1  # PRAGMA user_version of the schema below
MAX_CONFIG = 4096  # characters of a stored config (one is about 100)
SQLITE_HEADER = b"SQLite format 3\x00"

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    config TEXT NOT NULL,
    steps INTEGER NOT NULL,
    status TEXT NOT NULL,
    result TEXT,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS moves (
    game TEXT NOT NULL REFERENCES games(id),
    step INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    action INTEGER NOT NULL,
    PRIMARY KEY (game, step)
) WITHOUT ROWID;
"""


class WebError(InputError):
    """A request the server refuses: an HTTP status (4xx) and the reason, in words."""

    def __init__(self, status: int, reason: str):
        super().__init__(reason)
        self.status = status
        self.reason = reason


class DamagedGame(WebError):
    """A stored game whose rows were changed outside the server: it cannot be replayed (409)."""

    def __init__(self, game_id: str, reason: str):
        super().__init__(409, f"game {game_id} is damaged in the store and cannot be shown or "
                         f"played: {reason}")


class StoredDataError(InputError, ValueError):
    """A stored value that does not read back (the message names it); becomes a DamagedGame."""


# --- configs and opponents ------------------------------------------------------------------
@dataclass(frozen=True)
class GameConfig:
    players: int
    seat: int  # the human's seat
    opponents: tuple[str, ...]  # agent name per opponent seat, in seat order
    seed: int

    def labels(self) -> list[str]:
        """A label per seat: the opponents' agent names and "human"."""
        opp = list(self.opponents)
        return opp[:self.seat] + ["human"] + opp[self.seat:]

    def to_json(self) -> str:
        return json.dumps(asdict(self), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: Any) -> GameConfig:
        """The config stored as ``text``, every field checked; else a StoredDataError."""
        d = parse_json(text, StoredDataError, "its config", max_bytes=MAX_CONFIG, max_depth=4)
        keys = {"players", "seat", "opponents", "seed"}
        if not isinstance(d, dict) or set(d) != keys:
            raise StoredDataError("its config is not an object with players, seat, opponents "
                                  "and seed")
        try:
            players = ROW.check_players(d["players"], "its config's players", StoredDataError)
            seat = check_int("its config's seat", d["seat"], 0, players - 1)
            seed = check_int("its config's seed", d["seed"], 0, SEED_MAX)
        except ValueCheckError as err:
            raise StoredDataError(str(err)) from None
        opponents = d["opponents"]
        if (not isinstance(opponents, list) or len(opponents) != players - 1
                or not all(isinstance(n, str) and 0 < len(n) <= 40 for n in opponents)):
            raise StoredDataError(f"its config's opponents are not {players - 1} agent names: "
                                  f"{excerpt(opponents)}")
        return cls(players=players, seat=seat, opponents=tuple(opponents), seed=seed)


def available_agents() -> list[dict[str, Any]]:
    """The opponents a game may ask for: the kinds of Meduris (the page's game,
    :func:`meduris_rl.agents.registry.kinds`) the server may offer (not rllib: it needs a
    checkpoint file), those needing a model only for the player counts with a shipped one,
    openspiel-mcts only with OpenSpiel installed. Each with ``examples``: the names the page
    offers (a kind with a budget at each of :data:`OFFERED_BUDGETS`), which the thinking workers
    are warmed up with."""
    from meduris_rl.agents.registry import kinds

    out = []
    for kind in kinds(ROW):
        players = [p for p in kind.players
                   if kind.shipped_model(p) is None or kind.shipped_model(p).is_file()]
        if not kind.web or not players:
            continue
        if "open_spiel" in kind.needs:
            try:
                import pyspiel  # noqa: F401
            except ImportError:
                continue
        budget = kind.budget is not None
        out.append({"name": kind.name, "about": kind.summary, "players": players,
                    "budget": budget, "examples": examples(kind)})
    return out


def examples(kind) -> list[str]:
    """The names the page offers of a kind: with a budget, at each of :data:`OFFERED_BUDGETS`,
    and by its bare name where its default is another (``search``: 430 iterations)."""
    if kind.budget is None:
        return [kind.name]
    bare = [] if kind.budget.default in OFFERED_BUDGETS else [kind.name]
    return bare + [f"{kind.name}:{n}" for n in OFFERED_BUDGETS]


def offered_levels(agents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The difficulty levels (:mod:`meduris_rl.agents.levels`) whose agent is among ``agents`` (what
    :func:`available_agents` offers), each with its rating on the shipped 2-player ladder."""
    from meduris_rl.agents.levels import as_dict, levels

    offered = {a["name"] for a in agents}
    return [as_dict(lv, ROW) for lv in levels(ROW) if lv.agent.partition(":")[0] in offered]


def opponent_spec(name: Any, players: int) -> AgentSpec:
    """The parsed name (:meth:`meduris_rl.agents.registry.AgentSpec.parse`, the one parser of agent
    names) if it names a kind the server offers (its row's ``web`` flag), with at most a
    whole-number budget of 1..:data:`MAX_BUDGET`, no file or parameter, and for a kind needing
    a model one shipped for ``players``; else a WebError (400) saying why. Nothing is built
    and no model loaded. The kind is looked up before the name is parsed: the parser imports
    a plug-in named by a file or module, and a request never names one."""
    from meduris_rl.agents.registry import kind_named

    if not isinstance(name, str) or not name.strip():
        raise WebError(400, "an opponent is an agent name such as 'greedy', got "
                       f"{excerpt(name)}")
    name = name.strip()
    if len(name) > 40:
        raise WebError(400, "an opponent name has at most 40 characters")
    kind = kind_named(name.split(":", 1)[0], ROW)
    if kind is None or not kind.web:
        raise unknown_opponent(name)
    try:
        spec = AgentSpec.parse(name, ROW)
    except UnknownAgentError:
        spec = None
    if kind.budget is not None and (spec is None or spec.parameter is not None
                                    or spec.unit == "seconds" or spec.budget > MAX_BUDGET):
        raise WebError(400, f"agent {name!r}: the budget is a whole number of "
                       f"{kind.budget.name}, 1..{MAX_BUDGET} (e.g. {kind.name}:200); files and "
                       "time budgets are not accepted")
    if spec is None or spec.parameter is not None:
        raise WebError(400, f"agent {name!r}: {kind.name} takes no parameter here (the server "
                       "plays built-in agents and shipped models only, never a file)")
    if players not in kind.players:
        raise WebError(400, f"agent {name!r} plays games of "
                       f"{' or '.join(map(str, kind.players))} players, not {players}")
    model = kind.shipped_model(players)
    if model is not None and not model.is_file():
        raise WebError(400, f"agent {name!r}: its shipped {players}-player model "
                       f"(agents/models/{model.name}) is missing; choose greedy or mcts")
    return spec


def unknown_opponent(name: str) -> WebError:
    from difflib import get_close_matches

    offered = [a["name"] for a in available_agents()]
    close = get_close_matches(name.split(":", 1)[0], offered, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return WebError(400, f"unknown agent {name!r}{hint}; opponents are: " + ", ".join(offered))


def check_opponent(name: Any, players: int) -> str:
    """The canonical name of :func:`opponent_spec` (a WebError, 400, if it is not offered)."""
    return str(opponent_spec(name, players))


def check_config(players: Any, opponents: Any, seat: Any, seed: Any) -> GameConfig:
    """A valid GameConfig from request values, or a WebError (400) naming the problem."""
    try:
        players = ROW.check_players(players, error=PlayerCountError)
    except PlayerCountError as err:
        raise WebError(400, str(err)) from None
    if isinstance(opponents, str):
        opponents = [opponents] * (players - 1)
    if not isinstance(opponents, list):
        raise WebError(400, "opponents: one agent name, or a list with one per opponent")
    if len(opponents) != players - 1:
        raise WebError(400, f"{players} players means {players - 1} opponents, got "
                       f"{len(opponents)}")
    names = tuple(check_opponent(n, players) for n in opponents)
    if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < players:
        raise WebError(400, f"seat {excerpt(seat)}: seats are 0..{players - 1} (seat 0 starts, R6)")
    if seed is None:
        seed = random.SystemRandom().randrange(2**31)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= SEED_MAX:
        raise WebError(400, f"seed {excerpt(seed)}: a whole number 0..{SEED_MAX}, or null")
    return GameConfig(players=players, seat=seat, opponents=names, seed=seed)


def game_result(state: State) -> dict[str, Any]:
    """The result as the API shows it; a finished game's has the ``breakdown`` of each seat's
    VP by source (:func:`meduris_env.score_breakdown`; its ``total`` is the seat's score)."""
    done = state.is_terminal()
    out = {"terminal": done, "turns": int(state.turn),
           "scores": [int(v) for v in state.scores()],
           "winners": state.winners() if done else []}
    if done:
        out["breakdown"] = score_breakdown(state)
    return out


# --- a game in play ---------------------------------------------------------------------------
def forced_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """A log entry of the human's only choice, played for them: marked and said so."""
    entry["forced"] = True
    entry["lines"][0] += " (your only choice: played for you)"
    return entry


class LiveGame:
    """One game in memory: its state, its opponents and its log. Changed only under ``lock``."""

    def __init__(self, game_id: str, config: GameConfig):
        self.id = game_id
        self.config = config
        self.game = MedurisGame(config.players)
        self.state: State = self.game.new_initial_state()
        self.labels = config.labels()
        self.steps = 0  # actions applied (len(state.history()))
        self.log: list[dict[str, Any]] = []
        self.lock = threading.RLock()
        self._agents: dict[int, Agent] = {}
        # the chance stream of the current stretch of opponents' moves (from the step after
        # the human's last action, or 0): rebuilt by Games._resume from the stored moves
        self.rng = random.Random(derive_seed(config.seed, 0, 0))
        # the live side (meduris_rl.cli.meduris.web.live): who is thinking, the game's asyncio
        # lock, its event stream's subscribers and its driver task; used on the event loop only
        self.thinking: dict[str, Any] | None = None
        self.alock: Any = None
        self.subscribers: set = set()
        self.driver: Any = None

    # -- the log -------------------------------------------------------------------------------
    def who(self, seat: int) -> str:
        if seat == CHANCE:
            return "chance"
        if seat == self.config.seat:
            return "you"
        return f"seat {seat} ({self.labels[seat]})"

    def _entry(self, state: State, step: int, seat: int, action: int) -> dict[str, Any]:
        """A log entry: who, the action's text, its events (the engine's sentences),
        ``lines``: the entry in the player's words, one sentence per event, and ``targets``:
        the places on the board the action changed (:mod:`.words`)."""
        events = state.last_events()
        text = action_to_string(action)
        kind = decode_action(action).kind if seat >= 0 else None
        label = self.labels[seat] if seat >= 0 and seat != self.config.seat else None
        return {"step": step, "seat": seat, "who": self.who(seat), "text": text,
                "events": [e.describe() for e in events],
                "lines": entry_lines(events, kind, seat, self.config.seat, label, text),
                "targets": entry_targets(action)}

    # -- playing -------------------------------------------------------------------------------
    def agent(self, seat: int) -> Agent:
        if seat not in self._agents:
            name = self.labels[seat]
            try:  # checked as a request's name is: a stored name may have been tampered with
                self._agents[seat] = make_agent(opponent_spec(name, self.config.players))
            except WebError as err:
                raise WebError(409, f"the opponent at seat {seat} cannot play: "
                               f"{err.reason}") from None
            except UnknownAgentError as err:  # e.g. a model removed since the game began
                raise WebError(409, f"the opponent at seat {seat} cannot play: {err}") from None
        return self._agents[seat]

    def instant(self, seat: int) -> bool:
        """Whether the next action at ``seat`` is played at once in-process: chance, or an
        instant opponent (:data:`.thinking.INSTANT`); the others think in the pool."""
        return seat == CHANCE or is_instant(self.labels[seat])

    def due(self, state: State | None = None) -> int | None:
        """Who acts next in ``state`` (default the game's) before the human: an opponent's
        seat or CHANCE; None when the human must decide or the game is over."""
        cur = (self.state if state is None else state).current_player()
        return None if cur in (TERMINAL, self.config.seat) else cur

    def decision_seed(self, seat: int, step: int) -> int:
        """The seed the opponent at ``seat`` is reset with before deciding at ``step``."""
        return derive_seed(self.config.seed, seat + 1, step)

    def apply(self, state: State, seat: int, action: int, log: list, moves: list) -> None:
        """Apply ``action`` of ``seat`` (an opponent's or chance's) to ``state``, at step
        ``self.steps + len(moves)``, logging it."""
        step = self.steps + len(moves)
        try:
            state.apply_action(action, None if seat == CHANCE else seat)
        except IllegalActionError as err:
            raise IllegalActionError(f"the opponent {self.labels[seat]} at seat {seat}: "
                                     f"{err}") from None
        log.append(self._entry(state, step, seat, action))
        moves.append((action, seat))

    def forced(self, state: State) -> int | None:
        """The human's only legal action in ``state``, when the human is to decide and has
        exactly one (e.g. "offer nothing" at the final circuit, R23): None otherwise."""
        if state.current_player() != self.config.seat:
            return None
        legal = state.legal_actions()
        return legal[0] if len(legal) == 1 else None

    def play_forced(self, state: State, action: int, log: list, moves: list) -> None:
        """Play the human's only choice for them, as the human's own move (stored with their
        seat, so the chance stream restarts after it as after any human action) and logged
        ``"forced": true`` (the page says it was played for you)."""
        step = self.steps + len(moves)
        state.apply_action(action, self.config.seat)
        log.append(forced_entry(self._entry(state, step, self.config.seat, action)))
        moves.append((action, self.config.seat))
        self.rng = random.Random(derive_seed(self.config.seed, 0, step + 1))

    def run(self, state: State, log: list, moves: list) -> None:
        """Play chance (from :attr:`rng`), the instant opponents and the human's forced moves
        (:meth:`forced`) on ``state`` (the game's state after ``moves``) until the human has a
        choice, a thinking opponent must decide or the game is over. Deterministic given the
        seed and the steps (module docstring)."""
        while True:
            seat = self.due(state)
            if seat is None and (only := self.forced(state)) is not None:
                self.play_forced(state, only, log, moves)
                continue
            if seat is None or not self.instant(seat):
                break
            if seat == CHANCE:
                action = sample_chance(state, self.rng)
            else:
                bot = self.agent(seat)
                bot.reset(self.decision_seed(seat, self.steps + len(moves)))
                obs = observe_state(state, seat) if bot.uses_observation else None
                action = bot.act(obs, state)
            self.apply(state, seat, action, log, moves)
        if seat is not None:  # a thinking opponent is due: its name must be one we offer
            self.check_thinker(seat)

    def check_thinker(self, seat: int) -> None:
        """A WebError (409) if the opponent at ``seat`` cannot play: its (stored) name is not
        one the server offers (checked as a request's is, so no stored name reaches a file
        or a worker)."""
        try:
            check_opponent(self.labels[seat], self.config.players)
        except WebError as err:
            raise WebError(409, f"the opponent at seat {seat} cannot play: "
                           f"{err.reason}") from None

    def commit(self, state: State, log: list, moves: list) -> None:
        """Store ``moves`` (one transaction), then make ``state`` the game's."""
        if moves:
            self.store_append(self.id, self.steps, moves,
                              "finished" if state.is_terminal() else "running",
                              game_result(state))
        with self.lock:
            self.state = state
            self.steps += len(moves)
            self.log.extend(log)

    store_append: Any = None  # Store.append of the game's store (set by Games)

    def view(self) -> dict[str, Any]:
        """The human's view, in the human's words; the screens are lifted at the end."""
        with self.lock:
            viewer = None if self.state.is_terminal() else self.config.seat
            view = state_view(self.state, viewer, self.labels)
        view["you"] = self.config.seat  # (board.js names it "you" after the end too)
        return with_your_status(with_offer_words(view), self.config.seat)

    @property
    def finished(self) -> bool:
        return self.state.is_terminal()

    def result(self) -> dict[str, Any]:
        with self.lock:
            return game_result(self.state)

    def record(self) -> GameRecord:
        with self.lock:
            return GameRecord.from_state(
                self.state, self.labels, self.config.seed,
                meta={"command": "serve", "game": self.id, "human_seat": self.config.seat,
                      "seeds": "chance drawn from step k on: random.Random(derive_seed(seed, "
                               "0, k)); seat s deciding at step k: reset(derive_seed(seed, "
                               "s + 1, k))"})


# --- storage ----------------------------------------------------------------------------------
def schema_shape(db: sqlite3.Connection) -> tuple:
    """What a database holds, comparable with another's: its objects (type, name, table) and
    each table's columns (name, type, not null, default, primary key)."""
    objects = sorted(db.execute("SELECT type, name, tbl_name FROM sqlite_master").fetchall())
    columns = {name: [tuple(r[1:]) for r in db.execute("SELECT * FROM pragma_table_info(?)",
                                                       (name,))]
               for kind, name, _ in objects if kind == "table"}
    return objects, columns


def our_shape() -> tuple:
    """:func:`schema_shape` of a database holding :data:`SCHEMA` only."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(SCHEMA)
        return schema_shape(db)
    finally:
        db.close()


def shape_difference(found: tuple, wanted: tuple) -> str:
    """In words, how the tables ``found`` differ from ours (``wanted``)."""
    tables = sorted(found[1])
    for name in wanted[1]:
        if name in found[1] and found[1][name] != wanted[1][name]:
            cols = ", ".join(str(c[0]) for c in found[1][name])
            return f"its table {name!r} has other columns: {clip(cols, 120)}"
    if set(tables) != set(wanted[1]):
        return clip(f"its tables are {', '.join(map(repr, tables))}", 160) + \
            ", not 'games' and 'moves'"
    return "it holds other indexes, views or triggers than a games database"


def database_problem(path: str | Path) -> str | None:
    """Why the file at ``path`` cannot be the games database, or None: it is missing or empty,
    or marked as ours with a schema version this code knows, or unmarked with exactly our
    tables (then it is adopted). Reads the file only (read-only SQLite), never writes it."""
    path = Path(path)
    if not path.exists() or (path.is_file() and path.stat().st_size == 0):
        return None
    try:
        with path.open("rb") as f:
            head = f.read(len(SQLITE_HEADER))
    except OSError as err:
        return f"cannot read it: {err.strerror or err}"
    if head != SQLITE_HEADER:
        return "not an SQLite database"
    # read-only; without a write-ahead log beside it, as immutable, so that no -wal or -shm
    # file is left beside another application's database
    wal = path.with_name(path.name + "-wal").exists()
    try:
        db = sqlite3.connect(f"{path.resolve().as_uri()}?{'mode=ro' if wal else 'immutable=1'}",
                             uri=True)
        try:
            app_id = db.execute("PRAGMA application_id").fetchone()[0]
            version = db.execute("PRAGMA user_version").fetchone()[0]
            found = schema_shape(db)
        finally:
            db.close()
    except sqlite3.Error as err:
        return f"SQLite cannot read it: {clip(str(err), 120)}"
    if app_id not in (0, APPLICATION_ID):
        return f"it belongs to another application: application_id {app_id:#x}"
    if app_id == APPLICATION_ID and version > SCHEMA_VERSION:
        return (f"its schema version {version} is newer than version {SCHEMA_VERSION}, the "
                "newest this meduris-rl knows; upgrade meduris-rl")
    if app_id == 0 and version != 0:
        return f"it is another application's: user_version {version}"
    if not found[0]:
        return None
    wanted = our_shape()
    return None if found == wanted else shape_difference(found, wanted)


def plain_scalar(value: Any) -> bool:
    """Whether a value read from SQLite is one JSON writes as it is (not bytes, not inf)."""
    if isinstance(value, float):
        return math.isfinite(value)
    return value is None or isinstance(value, (str, int))


def too_many_running(running: int, limit: int) -> WebError:
    return WebError(503, f"{running} games are running, the most this server holds "
                    f"(--max-running {limit}); finish some, or restart the server with a larger "
                    "--max-running")


class Store:
    """The SQLite file (WAL mode). One connection, used under a lock. A file that is not a
    games database is refused before it is written (:class:`DatabaseRefused`)."""

    def __init__(self, path: str | Path):
        self.path = Path(path)
        problem = database_problem(self.path)
        if problem:
            raise DatabaseRefused(self.path, problem)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(str(self.path), check_same_thread=False,
                                   isolation_level=None, timeout=10.0)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(SCHEMA + f"PRAGMA application_id = {APPLICATION_ID};\n"
                               f"PRAGMA user_version = {SCHEMA_VERSION};\n")

    def journal_mode(self) -> str:
        with self._lock:
            return self._db.execute("PRAGMA journal_mode").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def running(self) -> int:
        """The number of running games stored."""
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM games WHERE status = 'running'"
                                    ).fetchone()[0]

    def create(self, game_id: str, config: GameConfig, moves: list[tuple[int, int]],
               status: str, result: dict, max_running: int | None = None) -> None:
        """Store a new game; a WebError (503) if it is running and ``max_running`` games are
        running already (counted in the same transaction)."""
        now = time.time()
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                if status == "running" and max_running is not None:
                    running = db.execute("SELECT COUNT(*) FROM games WHERE status = 'running'"
                                         ).fetchone()[0]
                    if running >= max_running:
                        raise too_many_running(running, max_running)
                db.execute("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?)",
                           (game_id, config.to_json(), len(moves), status, json.dumps(result),
                            now, now))
                db.executemany("INSERT INTO moves VALUES (?, ?, ?, ?)",
                               [(game_id, k, s, a) for k, (a, s) in enumerate(moves)])
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

    def append(self, game_id: str, start: int, moves: list[tuple[int, int]], status: str,
               result: dict) -> None:
        """Add ``moves`` after step ``start``, in one transaction; a WebError (409) if the game
        is no longer at ``start`` (another server process moved it)."""
        with self._lock:
            db = self._db
            db.execute("BEGIN IMMEDIATE")
            try:
                cur = db.execute("UPDATE games SET steps = ?, status = ?, result = ?, updated = ? "
                                 "WHERE id = ? AND steps = ?",
                                 (start + len(moves), status, json.dumps(result), time.time(),
                                  game_id, start))
                if cur.rowcount != 1:
                    raise WebError(409, "the game was changed elsewhere; reload it")
                db.executemany("INSERT INTO moves VALUES (?, ?, ?, ?)",
                               [(game_id, start + k, s, a) for k, (a, s) in enumerate(moves)])
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise

    def load(self, game_id: str) -> tuple[GameConfig, list[tuple[int, int]]] | None:
        """A stored game's config and moves ``(action, seat)``, None if there is none; a
        DamagedGame if its rows do not read back (the moves are replayed by the caller)."""
        with self._lock:
            row = self._db.execute("SELECT config, steps FROM games WHERE id = ?",
                                   (game_id,)).fetchone()
            if row is None:
                return None
            moves = self._db.execute("SELECT step, action, seat FROM moves WHERE game = ? "
                                     "ORDER BY step", (game_id,)).fetchall()
        try:
            config = GameConfig.from_json(row[0])
        except StoredDataError as err:
            raise DamagedGame(game_id, str(err)) from None
        if row[1] != len(moves):
            raise DamagedGame(game_id, f"{len(moves)} moves stored, {excerpt(row[1])} counted")
        for k, (step, action, seat) in enumerate(moves):
            if not (step == k and all(isinstance(v, int) and not isinstance(v, bool)
                                      and -2**31 <= v < 2**31 for v in (action, seat))):
                raise DamagedGame(game_id, f"its move {k} is not (step {k}, an action id, a "
                                  f"seat): {excerpt((step, action, seat))}")
        return config, [(a, s) for _, a, s in moves]

    def list(self, limit: int = 50) -> list[dict[str, Any]]:
        """The latest ``limit`` games; a game whose config or result does not read back is
        listed with ``damaged``: the reason (its config and result null)."""
        with self._lock:
            rows = self._db.execute("SELECT id, config, steps, status, result, created, updated "
                                    "FROM games ORDER BY updated DESC LIMIT ?",
                                    (limit,)).fetchall()
        out = []
        for gid, config, steps, status, result, created, updated in rows:
            entry = {"id": gid, "config": None, "steps": steps, "status": status,
                     "result": None, "created": created, "updated": updated}
            odd = [k for k, v in entry.items() if not plain_scalar(v)]
            try:
                if odd:
                    for k in odd:
                        entry[k] = None
                    raise StoredDataError(f"its {', '.join(odd)} not a number or text")
                entry["config"] = asdict(GameConfig.from_json(config))
                entry["result"] = (parse_json(result, StoredDataError, "its result",
                                              max_bytes=MAX_CONFIG, max_depth=4)
                                   if result else None)
            except StoredDataError as err:
                entry["config"] = entry["result"] = None
                entry["damaged"] = str(err)
            out.append(entry)
        return out

    def ids(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT id FROM games ORDER BY created")]


class Games:
    """The games of one server: the store plus the games in memory (the most recently used
    ``keep`` of them; others are resumed from the store when asked for)."""

    def __init__(self, store: Store, keep: int = 256, max_running: int = MAX_RUNNING):
        self.store = store
        self.keep = keep
        self.max_running = max_running  # running games stored at most (a new one is refused)
        self._live: OrderedDict[str, LiveGame] = OrderedDict()
        self._lock = threading.Lock()  # for _live and _loading only, never for engine work
        self._loading: dict[str, threading.Lock] = {}  # game id -> held while it is resumed

    def create(self, config: GameConfig) -> tuple[LiveGame, list[dict[str, Any]]]:
        """A new game, played up to the human's first decision and stored; a WebError (503)
        if ``max_running`` games are running already."""
        running = self.store.running()
        if running >= self.max_running:  # before any work (counted again when it is stored)
            raise too_many_running(running, self.max_running)
        game_id = secrets.token_hex(8)
        # the opponents' names were checked (check_config); none is built here: the instant
        # ones when they first move, the others only ever in the thinking workers
        g = self._new(game_id, config)
        log: list[dict[str, Any]] = []
        moves: list[tuple[int, int]] = []
        state = g.state.clone()
        g.run(state, log, moves)  # chance and instant opponents; a thinking one waits
        self.store.create(game_id, config, moves,
                          "finished" if state.is_terminal() else "running", game_result(state),
                          max_running=self.max_running)
        g.state, g.steps, g.log = state, len(moves), log
        self._remember(g)
        return g, log

    def _new(self, game_id: str, config: GameConfig) -> LiveGame:
        g = LiveGame(game_id, config)
        g.store_append = self.store.append
        return g

    def held(self, game_id: str) -> LiveGame | None:
        """The game if it is in memory (nothing read or replayed: for the event loop), else
        None (:meth:`get` resumes it)."""
        with self._lock:
            g = self._live.get(game_id) if isinstance(game_id, str) else None
            if g is not None:
                self._live.move_to_end(game_id)
            return g

    def get(self, game_id: str) -> LiveGame:
        """The game, from memory or resumed from the store; WebError 404 if there is none."""
        if not isinstance(game_id, str) or not ID_PATTERN.fullmatch(game_id):
            raise WebError(404, f"no game {excerpt(game_id)} (a game id is 16 hex digits)")
        with self._lock:
            g = self._live.get(game_id)
            if g is not None:
                self._live.move_to_end(game_id)
                return g
            loading = self._loading.setdefault(game_id, threading.Lock())
        # Resuming replays the game and may let an opponent finish a stored half-move: done
        # under this game's loading lock only, so other games go on meanwhile, and a second
        # request for this game waits for the first to resume it instead of resuming it twice.
        with loading:
            try:
                with self._lock:
                    g = self._live.get(game_id)
                if g is None:
                    loaded = self.store.load(game_id)
                    if loaded is None:
                        raise WebError(404, f"no game {excerpt(game_id)}")
                    g = self._resume(game_id, *loaded)
                    self._remember(g)
                return g
            finally:
                with self._lock:
                    self._loading.pop(game_id, None)

    def _resume(self, game_id: str, config: GameConfig, moves: list[tuple[int, int]]
                ) -> LiveGame:
        g = self._new(game_id, config)
        # the stored actions, replayed as a game record's are (each checked for its seat)
        with g.lock:
            try:
                record = GameRecord(game=g.game, actions=[a for a, _ in moves],
                                    seats=[s for _, s in moves], agents=g.labels,
                                    seed=config.seed)
                states = list(record.states())
            except InputError as err:  # RecordError: an illegal move, a wrong seat, ...
                raise DamagedGame(game_id, f"its moves do not replay: "
                                  f"{clip(str(err), 200)}") from None
            g.state = states[-1]
            g.log = [g._entry(st, k, s, a) for k, (st, (a, s)) in
                     enumerate(zip(states[1:], moves, strict=True))]
            for k, (_, s) in enumerate(moves):  # the human's forced moves, said so again
                if s == config.seat and g.forced(states[k]) is not None:
                    forced_entry(g.log[k])
            g.steps = len(moves)
            # the chance stream where it was: drawn again for the chance outcomes stored since
            # the human's last action (a game stored while an opponent had to move goes on
            # as it would have; its driver (meduris_rl.cli.meduris.web.live) plays the rest)
            mine = [k for k, (_, s) in enumerate(moves) if s == config.seat]
            start = mine[-1] + 1 if mine else 0
            g.rng = random.Random(derive_seed(config.seed, 0, start))
            for k in range(start, len(moves)):
                if moves[k][1] == CHANCE:
                    sample_chance(states[k], g.rng)
        return g

    def live_games(self) -> list[LiveGame]:
        """The games held in memory."""
        with self._lock:
            return list(self._live.values())

    def _remember(self, g: LiveGame) -> None:
        with self._lock:
            self._live[g.id] = g
            self._trim()

    def _trim(self) -> None:
        """Forget the least recently used games beyond ``keep``, but never one whose
        opponents are moving or that has subscribers (it would be resumed twice)."""
        for gid in list(self._live):
            if len(self._live) <= self.keep:
                break
            g = self._live[gid]
            if g.thinking is None and g.driver is None and not g.subscribers:
                del self._live[gid]

    def move(self, g: LiveGame, action: Any, step: Any
             ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """The human's action in game ``g``: checked, applied with the opponents' answers,
        stored, and returned as the new log entries and the new view. Any refusal (WebError)
        leaves the game unchanged."""
        if isinstance(action, bool) or not isinstance(action, int):
            raise WebError(422, f"action must be an action id (an integer), got {excerpt(action)}")
        if step is None:  # (without it, a move sent twice, a retry, would be played twice)
            raise WebError(422, "step is required: the game's step count the move was made at "
                           "(the game's \"step\"), so that a move sent twice is played once")
        if isinstance(step, bool) or not isinstance(step, int):
            raise WebError(422, "step must be an integer (the game's step count), got "
                           f"{excerpt(step)}")
        with g.lock:
            seat = g.config.seat
            if g.finished:
                raise WebError(409, "the game is over; no more moves")
            if step != g.steps:
                raise WebError(409, f"out of turn: the game is at step {g.steps}, the move was "
                               f"made at step {step} (reload the game)")
            if not 0 <= action < NUM_ACTIONS:
                raise WebError(400, f"action {action} is not an action id (0..{NUM_ACTIONS - 1})")
            if g.state.current_player() != seat:  # an opponent is thinking
                raise WebError(409, f"out of turn: {g.who(g.state.current_player())} "
                               "is to move (thinking)")
            state = g.state.clone()
            try:
                state.apply_action(action, seat)
            except IllegalActionError as err:
                raise WebError(400, f"illegal action: {err}") from None
            log = [g._entry(state, g.steps, seat, action)]
            moves = [(action, seat)]
            before = g.rng
            g.rng = random.Random(derive_seed(g.config.seed, 0, g.steps + 1))
            try:
                g.run(state, log, moves)
                g.commit(state, log, moves)
            except BaseException:
                g.rng = before  # a refusal changes nothing
                raise
            return log, g.view()
