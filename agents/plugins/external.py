"""Agents in any language: ``cmd:<command>`` runs a program that plays over JSON lines.

:class:`SubprocessAgent` starts ``command`` (split like a shell would, :func:`shlex.split`, but
run without a shell) as a child process and speaks **protocol 1** with it on its stdin and
stdout: one JSON object per line, UTF-8, each line ended by ``\\n``, in both directions. The
child's stderr is its own: it is appended to a log file (below). Like UCI engines under
cutechess, the bot is a plain loop: read a line, and answer the lines that ask a question.

The bot plays any game of the table of games (``"meduris"``, ``"druids"``, ...),
named by the ``game`` field of ``hello`` and ``new_game``. A child plays one game: an agent asked to
play another game than its child's starts a new child (with a new handshake). A bot that only picks
among the ``legal`` ids plays every game. Messages to the bot (``type`` says which) and the
answers it must give:

* ``{"type": "hello", "protocol": 1, "game": "meduris"}``: sent once after the start. Answer
  ``{"type": "hello", "name": "<your bot's name>", "protocol": 1}`` within the handshake time
  (the move time, at least 10 s).
* ``{"type": "new_game", "game": "meduris", "seat": 0, "players": 2, "seed": 123, "exchange":
  "auto", "max_turns": 1000, "board": "2-3 players", "move_time": 10.0, "game_time": null}``: a
  game starts; ``seat`` is the bot's (0 moves first, R6), ``seed`` a seed for its random choices
  (derived from the game's seed and the seat: the same tournament gives the same seed), the
  limits in seconds (``null``: none). In Druids ``{"type": "new_game", "game": "druids", "seat",
  "players", "seed", "max_turns" (``null``: none), "circles" (per scoring card, D12),
  "move_time", "game_time"}`` (:func:`new_game_message`). No answer.
* ``{"type": "decide", "seat": 0, "turn": 3, "decision": {"kind": "place worker", ...},
  "legal": [[0, "place worker on wood"], ...], "observation": {"observation": [...],
  "action_mask": [...]}, "state": {...}, "time_left": null}``: the bot must choose. ``legal``
  lists the legal action ids with their text in the game's words (the engine's
  ``action_to_string``); ``observation`` is the seat's observation as lists (the 1470 numbers
  of :mod:`meduris_env.envs.observation` and the 241-entry mask); ``state`` is
  ``State.to_json()`` parsed (``MedurisGame.state_from_json`` reads it back); ``decision`` is
  ``State.pending_decision()``; ``time_left`` is the game time left in seconds (``null``:
  no game limit). Answer ``{"action": <one of the legal ids>}`` within the move time.
  In Druids (:func:`decide_message`) every field is only what the seat knows (D14): ``legal``
  with Druids' action texts (they name the seat's own cards), ``observation`` the 857 numbers of
  ``druids_env.observation_tensor`` and the mask over Druids' action ids, ``decision`` the phase
  (``{"kind": "play (D8)", "seat": 0}``), and ``state``
  :func:`druids_env.engine.information.seat_state`, not ``DruidsState.to_json()``: never
  another hand, a face-down card of another seat or a deck.
* ``{"type": "game_over", "seat": 0, "vp": [..], "ranks": [..], "winners": [..],
  "end_reason": "...", "forfeit": "", "forfeit_seat": null}``: the game has ended (the ranks
  and winners as scored, a forfeit included). No answer; the next ``new_game`` may follow.
* ``{"type": "quit"}``: exit now (the bot is killed after 1 s otherwise).

An example exchange (``>`` to the bot, ``<`` from it; ``...`` shortens)::

    > {"type": "hello", "protocol": 1, "game": "meduris"}
    < {"type": "hello", "name": "firstbot", "protocol": 1}
    > {"type": "new_game", "game": "meduris", "seat": 1, "players": 2, "seed": ..., ...}
    > {"type": "decide", "seat": 1, "turn": 0, "legal": [[0, "place worker on wood"], ...], ...}
    < {"action": 0}
    ...
    > {"type": "game_over", "seat": 1, "vp": [96, 5], "ranks": [1, 2], "winners": [0], ...}
    > {"type": "quit"}

The same, with every field explained, is docs/bring_your_own_agent.md ("The protocol of cmd:
agents").

**Forfeits.** A bot that breaks the protocol forfeits the game in progress
(:class:`~meduris_rl.agents.base.Forfeit`, scored by :func:`meduris_rl.agents.arena.match.play_game`
as a loss); the reason starts with one of these words: ``crashed`` (it exited or closed its stdout:
exit code or signal given; also when it died while the other seats moved: said so, with the turn of
its last answer), ``timeout`` (no answer within the move time, or the game time used up),
``malformed`` (a line that is not a strict JSON object with an integer ``action``: a key given
twice is refused; a line over 1 MiB; a line sent before its question was asked), ``illegal`` (an
id not among ``legal``), ``handshake`` (a wrong or missing hello, a protocol other than the
integer 1), ``start`` (the program could not be started: missing, not executable, a ``#!`` line
naming an interpreter that is not there), in every game. The child is then killed, and started
again (with a new handshake) when the next game needs it: **between games only**, never in the
middle of one (a bot that is not alive when its game needs it forfeits that game).

**Lifetime.** Before a run's first game every ``cmd:`` agent is started once and must answer the
handshake (:meth:`SubprocessAgent.preflight`: a run with a bot that cannot start stops in one
line). In the games the child is started lazily, at the agent's first decision, and kept for the
games after (one child per agent object, so one per tournament worker). The program runs under a
keeper (:mod:`.reaper`, a child subreaper): whatever the bot starts, even a grandchild that leaves
its session with ``setsid`` or one a launcher script leaves behind, ends with it. It is closed
(``quit``, then SIGTERM to the keeper, then killed) by :meth:`SubprocessAgent.close`, and every
child still running is killed when the process exits (atexit), when a worker exits (its
finalizer) or is terminated (SIGTERM, e.g. after Ctrl-C), and by the kernel if its parent dies
(Linux ``PR_SET_PDEATHSIG``, for children started on the main thread).

**Logs.** The child's stderr goes to ``<log_dir>/<command as a file name>-<pid>.log``,
appended, with a ``# meduris:`` line at each start, forfeit and game (headed with the game's number
and seed as the run's games.csv has them), at most :data:`LOG_CAP` bytes per file (the cut is
marked); ``log_dir`` is the tournament's ``--out``/logs, or a private folder made for the run
(:func:`default_log_dir`) when none is given.

**Limits.** ``move_time`` (default :data:`DEFAULT_MOVE_TIME` s) per decision, ``game_time``
(default none) for all of one game's decisions, measured from sending ``decide`` to reading the
answer; set per agent or with :func:`set_limits` for a list of agents (the tournament's
``--move-time`` and ``--game-time``). Each is a finite number of seconds above 0 and at most
:data:`MAX_SECONDS` (one day), checked by :func:`check_seconds` (a ValueCheckError otherwise).
"""

from __future__ import annotations

import atexit
import json
import os
import re
import selectors
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import weakref
from pathlib import Path

from meduris_rl.agents.base import CURRENT_GAME, Agent, Forfeit, UnknownAgentError
from meduris_rl.kit.errors import InputError
from meduris_rl.kit.games import game_spec, spec_of
from meduris_rl.kit.jsonfile import parse_json
from meduris_rl.kit.values import ValueCheckError, check_float, printable

PROTOCOL = 1  # Druids and the game field were added, nothing changed: protocol 1 bots play on
DEFAULT_MOVE_TIME = 10.0  # seconds per decision
MAX_SECONDS = 86_400.0  # the longest move or game time (one day): larger ones are refused
HANDSHAKE_TIME = 10.0  # seconds for the hello answer, at least (the move time if longer)
MAX_LINE = 1 << 20  # bytes in one answer line
QUIT_GRACE = 1.0  # seconds a bot has to exit after "quit" before it is killed
QUOTE = 60  # characters of a malformed answer quoted in the reason
LOG_CAP = 2 << 20  # bytes in one bot log file (one per bot and process: a few MB per run)
KEEPER_GRACE = 5.0  # seconds the bot's keeper has to kill what the bot started and exit
REAPER = Path(__file__).with_name("reaper.py")  # the keeper of a bot (run as a script)


def check_seconds(name: str, value: object, optional: bool = False) -> float | None:
    """``value`` as a float if it is a finite number of seconds in (0, :data:`MAX_SECONDS`]
    (``optional``: None too, no limit), else a one-line ValueCheckError naming ``name``."""
    if value is None and optional:
        return None
    seconds = check_float(name, value, 0.0, MAX_SECONDS)
    if seconds <= 0:
        raise ValueCheckError(f"{name} must be above 0 seconds (at most {MAX_SECONDS:g}), "
                              f"got {value!r}")
    return seconds


def parse_command(command: str, name: str) -> list[str]:
    """The argv of a ``cmd:`` agent's command, its program found (on PATH or as a path), or
    an UnknownAgentError naming the problem."""
    try:
        argv = shlex.split(command)
    except ValueError as err:
        raise UnknownAgentError(f"agent {name!r}: cannot split the command ({err})") from None
    if not argv:
        raise UnknownAgentError(f"agent {name!r}: write cmd:<command>, e.g. "
                                "cmd:python examples/random_bot.py")
    program = shutil.which(argv[0])
    if program is None:
        why = ("is not executable" if os.path.isfile(argv[0]) else "is not found") if (
            os.sep in argv[0]) else "is not found on PATH"
        raise UnknownAgentError(f"agent {name!r}: the program {argv[0]!r} {why}")
    return argv


class LineChannel:
    """Lines to and from a child's pipes, every wait bounded by a deadline (monotonic
    seconds); problems raise :class:`Forfeit` with the reason."""

    def __init__(self, proc: subprocess.Popen):
        self.proc = proc
        self.buffer = bytearray()
        os.set_blocking(proc.stdin.fileno(), False)
        os.set_blocking(proc.stdout.fileno(), False)

    def refuse_unasked(self) -> None:
        """A Forfeit if the bot has sent a line since its last answer: an answer comes after
        its question only (one sent ahead would answer a question the bot had not seen)."""
        try:
            while b"\n" not in self.buffer and len(self.buffer) <= MAX_LINE:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                if not chunk:
                    break  # (closed: the crash shows when it is asked)
                self.buffer += chunk
        except BlockingIOError:
            pass
        if b"\n" in self.buffer or len(self.buffer) > MAX_LINE:
            text = bytes(self.buffer[:QUOTE]).decode("utf-8", errors="replace")
            raise Forfeit(f"malformed: it sent {text!r} before it was asked (an answer "
                          "follows its decide message)")

    def send(self, message: dict | str, deadline: float, what: str) -> None:
        """Write ``message`` (a dict, or its JSON text) as one line."""
        text = message if isinstance(message, str) else json.dumps(message, separators=(",", ":"))
        data = (text + "\n").encode()
        fd = self.proc.stdin.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_WRITE)
            while data:
                try:
                    data = data[os.write(fd, data):]
                    continue
                except BlockingIOError:
                    pass
                except (BrokenPipeError, ConnectionResetError):
                    raise Forfeit(self.crash()) from None
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    raise Forfeit(f"timeout: it read no input within {what}")

    def receive(self, deadline: float, what: str) -> bytes:
        """The next line (without its newline)."""
        fd = self.proc.stdout.fileno()
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            while True:
                end = self.buffer.find(b"\n")
                if end >= 0:
                    line = bytes(self.buffer[:end])
                    del self.buffer[:end + 1]
                    return line
                if len(self.buffer) > MAX_LINE:
                    raise Forfeit(f"malformed: an answer line over {MAX_LINE} bytes")
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    raise Forfeit(f"timeout: no answer within {what}")
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                if not chunk:
                    raise Forfeit(self.crash())
                self.buffer += chunk

    def crash(self) -> str:
        """The reason of a child that stopped reading or writing: how it exited."""
        return exit_reason(self.proc)


def exit_reason(proc: subprocess.Popen) -> str:
    """How a child ended: ``crashed: exit code 3``, ``crashed: killed by SIGKILL``."""
    try:
        code = proc.wait(timeout=1.0)
    except subprocess.TimeoutExpired:
        return "crashed: it closed its stdin or stdout"
    return f"crashed: {exit_words(code)}"


def exit_words(code: int) -> str:
    """A process's exit status as Python reports it (a signal as minus its number) in words:
    ``exit code 3``, ``killed by SIGKILL``."""
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit code {code}"


def parse_line(text: str):
    """The JSON value of a bot's line, or None if it is not strict JSON (a key given twice,
    a number JSON does not allow, a line nested too deeply: :func:`~meduris_rl.kit.jsonfile.
    parse_json`'s checks)."""
    try:
        return parse_json(text, ValueError, "the line")
    except ValueError:
        return None


def start_failure(line: bytes) -> str:
    """Why the program could not be started, if ``line`` is the keeper's ``start_failed``
    (:mod:`.reaper`), else ""."""
    said = parse_line(line.decode("utf-8", errors="replace")) if line else None
    if isinstance(said, dict) and said.get("type") == "start_failed":
        return printable(str(said.get("error")), 300)
    return ""


def decode_answer(line: bytes, legal: list[int]) -> int:
    """The action id of an answer line, or a Forfeit saying what is wrong with it."""
    text = line.decode("utf-8", errors="replace").strip()
    answer = parse_line(text)
    action = answer.get("action") if isinstance(answer, dict) else None
    if not isinstance(action, int) or isinstance(action, bool):
        # (the bot's text is quoted, never a format string: a % in it is just a character)
        example = json.dumps({"action": legal[0]})
        raise Forfeit(f"malformed: {text[:QUOTE]!r} is not a JSON object with an integer "
                      f"action, e.g. {example}")
    if action not in legal:
        raise Forfeit(f"illegal: action {action} is not legal now ({len(legal)} legal ids "
                      "were sent)")
    return action


PASSED: set[tuple[str, str]] = set()  # (command, game) of the trial starts passed here
PRIVATE_LOG_DIR: list[Path] = []  # this process's own folder, made when first needed


def default_log_dir() -> Path:
    """Where a bot's stderr goes when no ``log_dir`` is given: a private folder of this
    process's (``tempfile.mkdtemp``: mode 0700, a fresh name, so neither a file nor another
    user's folder can be in the way), made the first time it is needed. An arena run makes
    it in the parent before its workers start (:func:`run_log_dir`), so all its bots' logs
    are in one folder."""
    if not PRIVATE_LOG_DIR:
        PRIVATE_LOG_DIR.append(Path(tempfile.mkdtemp(prefix="meduris-bots-")))
    return PRIVATE_LOG_DIR[0]


def run_log_dir(log_dir: str, names) -> str:
    """The log folder of a run with the agents ``names``: ``log_dir`` if given, else (when one
    of them is a ``cmd:`` bot) :func:`default_log_dir`; "" when there is nothing to log."""
    if log_dir or not any(str(n).strip().startswith("cmd:") for n in names):
        return log_dir
    return str(default_log_dir())


class BotLog:
    """A bot's log file: its stderr (read from a pipe by a thread, :meth:`pump`) and our
    ``# meduris:`` lines, at most :data:`LOG_CAP` bytes per file; what comes after is counted,
    not kept, and the cut is marked (a bot printing 50 MB per game cannot fill the disk)."""

    def __init__(self, path: Path):
        self.path = path
        self.file = open(path, "ab", buffering=0)  # noqa: SIM115 (closed by close)
        self.size = path.stat().st_size
        self.dropped = 0
        self.lock = threading.Lock()

    def write(self, data: bytes) -> None:
        with self.lock:
            if self.file.closed:
                return
            room = LOG_CAP - self.size
            if room < len(data):
                if self.dropped == 0 and room > 0:
                    self.file.write(data[:room])
                    self.size += room
                self.dropped += len(data) - max(room, 0)
                return
            self.file.write(data)
            self.size += len(data)

    def pump(self, pipe) -> None:
        """Copy ``pipe`` (the bot's stderr) into the log until it closes (a daemon thread)."""
        fd = pipe.fileno()
        try:
            while chunk := os.read(fd, 65536):
                self.write(chunk)
        except OSError:
            pass
        finally:
            pipe.close()

    def close(self) -> None:
        with self.lock:
            if self.file.closed:
                return
            if self.dropped:
                self.file.write(f"\n# meduris: the log is cut here: it reached {LOG_CAP} "
                                f"bytes, {self.dropped} bytes more were dropped\n".encode())
                self.dropped = 0
            self.file.close()


def kill_group(pid: int) -> None:
    """SIGKILL to the process group ``pid`` leads (a bot and whatever it started), if any."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:  # (gone already, or not ours)
        pass


# --- the children still running, killed when this process goes ---------------------------------
LIVE: weakref.WeakSet = weakref.WeakSet()  # agents with a running child
CLEANUP = {"installed": False}


def close_all(grace: float = 0.0) -> None:
    """Close every running child of this process (``grace``: seconds each may take to quit)."""
    for agent in list(LIVE):
        agent.close(grace)


def on_sigterm(signum, frame) -> None:
    """SIGTERM (e.g. ``Pool.terminate``): kill the children, then die of SIGTERM as before."""
    close_all()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)


def install_cleanup() -> None:
    """Once per process: a multiprocessing finalizer (a worker that exits runs no atexit) and
    a SIGTERM handler when SIGTERM would kill this process silently (main thread only)."""
    if CLEANUP["installed"]:
        return
    CLEANUP["installed"] = True
    import multiprocessing.util
    multiprocessing.util.Finalize(None, close_all, exitpriority=100)
    if threading.current_thread() is threading.main_thread() and (
            signal.getsignal(signal.SIGTERM) == signal.SIG_DFL):
        signal.signal(signal.SIGTERM, on_sigterm)


atexit.register(close_all)


def die_with_parent_function():
    """A preexec function that asks the kernel to SIGKILL the child when its parent thread
    ends (Linux), or None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up before the fork
    except (OSError, AttributeError):
        return None

    def die_with_parent() -> None:
        prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    return die_with_parent


def log_file_name(command: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", command).strip("_.")[:60] or "bot"


class SubprocessAgent(Agent):
    """A bot in its own process speaking the JSON-lines protocol of this module."""

    uses_observation = True

    def __init__(self, name: str, command: str, move_time: float = DEFAULT_MOVE_TIME,
                 game_time: float | None = None, log_dir: str | Path | None = None):
        super().__init__(name)
        self.command = command
        self.argv = parse_command(command, name)
        self.move_time = check_seconds("move_time", move_time)
        self.game_time = check_seconds("game_time", game_time, optional=True)
        self.log_dir = Path(log_dir) if log_dir else None  # None: default_log_dir(), at start
        self.log_path: Path | None = None
        self.proc: subprocess.Popen | None = None
        self.channel: LineChannel | None = None
        self.log: BotLog | None = None
        self.pump: threading.Thread | None = None  # copies its stderr into the log
        self.bot_name = ""  # what the bot called itself in its hello
        self.game = ""  # the game its child was started for (its hello said so)
        self.seed: int | None = None
        self.seat: int | None = None  # the seat of the game in progress (new_game sent)
        self.used = 0.0  # seconds of the game in progress
        self.last_turn: int | None = None  # the turn of its last answer in the game

    def set_limits(self, move_time: float | None = None, game_time: float | None = None,
                   log_dir: str | Path | None = None) -> None:
        """Change the time limits (seconds, checked by :func:`check_seconds`; a None leaves
        it) and the log folder."""
        if move_time is not None:
            self.move_time = check_seconds("move_time", move_time)
        if game_time is not None:
            self.game_time = check_seconds("game_time", game_time)
        if log_dir is not None:
            self.log_dir = Path(log_dir)

    # --- a game --------------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        self.seed, self.seat, self.used, self.last_turn = seed, None, 0.0, None

    def act(self, observation, state) -> int:
        seat = state.current_player()
        game = spec_of(state.game)
        try:
            alive = self.proc is not None and self.proc.poll() is None  # (asked once: it
            # may die between two looks, and a game in progress is never restarted)
            if self.seat is not None and not alive:
                raise Forfeit(f"{self.crash_reason()}, while the other seats moved (after "
                              f"its answer at turn {self.last_turn})")
            if not alive or self.game != game.name:
                self.start(game.name)
            if self.seat is None:
                self.begin_game(state, seat)
            self.channel.refuse_unasked()
            legal = state.legal_actions()
            obs = observation if observation is not None else game.observe(state, seat)
            limit, what = self.limit()
            text = decide_message(state, seat, legal, obs, None if self.game_time is None else
                                  max(0.0, self.game_time - self.used))
            t0 = time.monotonic()
            try:
                self.channel.send(text, t0 + limit, what)
                line = self.channel.receive(t0 + limit, what)
            finally:
                self.used += time.monotonic() - t0
            action = decode_answer(line, legal)
            self.last_turn = state.turn
            return action
        except Forfeit as err:
            self.note(f"forfeit: {err.reason}")
            self.close(0.0)
            raise

    def crash_reason(self) -> str:
        """How the child ended (``crashed: exit code 3``), for a forfeit."""
        return "crashed: it was closed" if self.proc is None else exit_reason(self.proc)

    def limit(self) -> tuple[float, str]:
        """Seconds this decision may take, and how a timeout reason names the limit."""
        if self.game_time is not None and self.game_time - self.used < self.move_time:
            left = self.game_time - self.used
            if left <= 0:
                raise Forfeit(f"timeout: its game time of {self.game_time:g} s is used up")
            return left, f"the game time of {self.game_time:g} s"
        return self.move_time, f"{self.move_time:g} s (the move time)"

    def begin_game(self, state, seat: int) -> None:
        game = CURRENT_GAME.get() or {}
        number = "" if game.get("game") is None else f" {game['game']}"
        self.note(f"{self.game} game{number} (seed {game.get('seed')}, the run's games.csv), "
                  f"seat {seat}; the bot's seed {self.seed}")
        self.channel.send(new_game_message(state.game, seat, self.seed, self.move_time,
                                           self.game_time),
                          time.monotonic() + self.move_time, f"{self.move_time:g} s")
        self.seat = seat

    def game_over(self, result) -> None:
        """Pass the result on (no answer awaited); a bot that cannot take it is restarted
        when it is next needed."""
        if self.seat is None or self.channel is None:
            return
        seat, self.seat = self.seat, None
        try:
            self.channel.send({"type": "game_over", "seat": seat, "vp": result.vp,
                               "ranks": result.ranks, "winners": result.winners,
                               "end_reason": result.end_reason, "forfeit": result.forfeit,
                               "forfeit_seat": result.forfeit_seat},
                              time.monotonic() + self.move_time, "the move time")
        except Forfeit as err:
            self.note(f"after the game: {err.reason}")
            self.close(0.0)

    # --- the child -----------------------------------------------------------------------------
    def start(self, game: str | None = None) -> None:
        """Start the child and shake hands for ``game`` (a name of the table of games; None:
        the default game); a Forfeit if either fails."""
        game = game_spec(game).name
        self.close(0.0)
        self.game = game
        install_cleanup()
        self.log_dir = self.log_dir or default_log_dir()
        self.log_path = self.log_dir / f"{log_file_name(self.command)}-{os.getpid()}.log"
        try:
            self.log_dir.mkdir(parents=True, exist_ok=True)
            self.log = BotLog(self.log_path)
        except OSError as err:  # (the run's folder, not the bot: the run stops in one line)
            raise InputError(f"cannot write the log of agent {self.name!r} at "
                             f"{self.log_path} ({err.strerror or err})") from None
        self.note(f"starting {shlex.join(self.argv)}")
        main = threading.current_thread() is threading.main_thread()
        try:
            # through its keeper (reaper.py: whatever the bot starts ends with it), in its own
            # session; stderr through a pipe into the capped log
            self.proc = subprocess.Popen(
                [sys.executable, "-I", str(REAPER), *self.argv], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.PIPE, bufsize=0, close_fds=True,
                start_new_session=True, preexec_fn=die_with_parent_function() if main else None)
        except OSError as err:
            self.close(0.0)
            raise Forfeit(f"start: cannot run {self.argv[0]!r} ({err.strerror or err})") from None
        self.pump = threading.Thread(target=self.log.pump, args=(self.proc.stderr,),
                                     daemon=True, name="meduris-bot-log")
        self.pump.start()
        LIVE.add(self)
        self.channel = LineChannel(self.proc)
        limit = max(self.move_time, HANDSHAKE_TIME)
        deadline = time.monotonic() + limit
        line = b""
        try:
            # (the keeper's first line says when the program could not be started; it is
            # read even if the keeper has exited before the hello could be written)
            try:
                self.channel.send({"type": "hello", "protocol": PROTOCOL, "game": game},
                                  deadline, f"{limit:g} s (the handshake)")
            finally:
                line = self.channel.receive(deadline, f"{limit:g} s (the handshake)")
        except Forfeit as err:
            if not start_failure(line):
                hint = (" (a bot flushes its output after each line: print(..., flush=True) "
                        "in Python, fflush(stdout) in C)") if err.reason.startswith(
                            "timeout") else ""
                raise Forfeit(f"handshake: {err.reason}{hint}") from None
        failure = start_failure(line)
        if failure:
            raise Forfeit(f"start: {failure}")
        self.bot_name = check_hello(line)

    def preflight(self, game: str | None = None) -> None:
        """Start the bot, shake hands for ``game`` and close it: the check a run makes before
        its first game (a program that cannot start, a bot that never says hello). An
        UnknownAgentError naming the agent, the reason and its log if that fails."""
        key = (self.command, game_spec(game).name)
        if key in PASSED:
            return  # (a run checks its agents once: a second check in it starts nothing)
        try:
            self.start(game)
            PASSED.add(key)
        except Forfeit as err:
            raise UnknownAgentError(f"agent {self.name!r} failed its trial start: {err.reason} "
                                    f"(its stderr: {self.log_path})") from None
        finally:
            self.close()

    def note(self, text: str) -> None:
        """A line of ours in the bot's log."""
        if self.log is not None:
            try:
                self.log.write(f"# meduris: {time.strftime('%H:%M:%S')} {text}\n".encode())
            except OSError:
                pass

    def close(self, grace: float = QUIT_GRACE) -> None:
        """Ask the child to quit, kill it after ``grace`` seconds, and reap it."""
        proc, self.proc, self.channel, self.seat = self.proc, None, None, None
        LIVE.discard(self)
        if proc is not None:
            if proc.poll() is None and grace > 0:
                try:
                    os.write(proc.stdin.fileno(), b'{"type":"quit"}\n')
                    proc.wait(timeout=grace)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            if proc.poll() is None:
                proc.terminate()  # (the keeper kills the bot and all it started, then exits)
                try:
                    proc.wait(timeout=KEEPER_GRACE)
                except subprocess.TimeoutExpired:
                    proc.kill()
            kill_group(proc.pid)  # (before the wait: an unreaped leader keeps its group id)
            proc.wait()
            for pipe in (proc.stdin, proc.stdout):
                try:
                    pipe.close()
                except OSError:
                    pass
        if self.pump is not None:
            self.pump.join(1.0)  # (the bot's last words, its traceback say, are kept)
            self.pump = None
        if self.log is not None:
            self.log.close()
            self.log = None

    def __del__(self):
        if getattr(self, "proc", None) is not None:
            self.close(0.0)


# --- the messages of a game ---------------------------------------------------------------------
def new_game_message(game, seat: int, seed: int | None, move_time: float,
                     game_time: float | None) -> dict:
    """The ``new_game`` message of ``game`` (its row's ``game_fields`` say what is its own)."""
    spec = spec_of(game)
    return {"type": "new_game", "game": spec.name, "seat": seat, "players": game.num_players,
            "seed": seed, **spec.game_fields(game), "move_time": move_time,
            "game_time": game_time}


def decide_message(state, seat: int, legal: list[int], observation: dict,
                   time_left: float | None) -> str:
    """The ``decide`` line (without its newline) asking ``seat`` to choose among ``legal``;
    ``observation`` is the game's observation dict of ``seat``. In Druids every field is what
    ``seat`` knows (D14): the observation, the legal ids' texts (its own cards) and
    :func:`druids_env.engine.information.seat_state`."""
    message = {"type": "decide", "seat": seat, "turn": state.turn,
               "decision": state.pending_decision(),
               "legal": [[a, state.action_to_string(a)] for a in legal],
               "observation": {key: value.tolist() for key, value in observation.items()},
               "time_left": time_left}
    view = spec_of(state.game).seat_view(state, seat)
    return json.dumps(message, separators=(",", ":"))[:-1] + ',"state":' + view + "}"


def check_hello(line: bytes) -> str:
    """The bot's name from its hello line, or a Forfeit (reason ``handshake: ...``)."""
    text = line.decode("utf-8", errors="replace").strip()
    hello = parse_line(text)
    if not isinstance(hello, dict) or hello.get("type") != "hello":
        raise Forfeit(f"handshake: {text[:QUOTE]!r} is not a hello, e.g. "
                      '{"type": "hello", "name": "mybot", "protocol": 1}')
    if type(hello.get("protocol")) is not int or hello["protocol"] != PROTOCOL:  # (true != 1)
        raise Forfeit(f"handshake: protocol {hello.get('protocol')!r}; this side speaks "
                      f"protocol {PROTOCOL}")
    return printable(str(hello.get("name", "")), QUOTE)


def close_agents(agents, grace: float = QUIT_GRACE) -> None:
    """Close the children of the subprocess agents among ``agents`` (a tournament played in
    this process does at its end: no bot outlives the tournament)."""
    for agent in agents:
        if isinstance(agent, SubprocessAgent):
            agent.close(grace)


def set_limits(agents, move_time: float | None = None, game_time: float | None = None,
               log_dir: str | Path | None = None) -> None:
    """Set the limits and log folder of the subprocess agents among ``agents`` (others are left
    as they are): what a tournament, ladder or duel does with its ``--move-time``. The limits
    are checked (:func:`check_seconds`) even when no agent is a subprocess one."""
    if move_time is not None:
        check_seconds("move_time", move_time)
    if game_time is not None:
        check_seconds("game_time", game_time)
    for agent in agents:
        if isinstance(agent, SubprocessAgent):
            agent.set_limits(move_time, game_time, log_dir)
