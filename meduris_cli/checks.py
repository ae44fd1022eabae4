"""Checks every command makes before it starts working: numbers in their ranges, output paths
that may be written (not a folder where a file is meant, not one of the command's inputs, no
earlier results replaced without ``--force``), so that a mistake costs a one-line message, not
an hour of work or an earlier result."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from meduris_rl.kit.atomic import (
    earlier_results,
    output_file_problem,
    output_folder_problem,
    remove_results,
)
from meduris_rl.kit.errors import InputError
from meduris_rl.kit.values import SEED_MAX, ValueCheckError, excerpt, parse_float

MAX_GAMES = 1_000_000


class UsageError(InputError, ValueError):
    """A command that cannot run as asked; the message names the fix."""


WHOLE = re.compile(r"[+-]?[0-9]{1,30}")


def int_in(low: int, high: int | None = None):
    """An argparse type: an int in low..high (argparse then prints its one-line usage error)."""
    def parse(text: str) -> int:
        if not WHOLE.fullmatch(text):  # (ASCII digits, at most 30: int() takes '1_0', '١',
            raise argparse.ArgumentTypeError(  # and 5,000 digits it refuses with a traceback)
                f"{excerpt(text, 40)} is not a whole number")
        value = int(text)
        if high is not None and not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is outside {low}..{high}")
        if value < low:
            raise argparse.ArgumentTypeError(f"{value} is too small: at least {low}")
        return value
    parse.__name__ = "int"
    return parse


SEED = int_in(0, SEED_MAX)  # the one seed range (meduris_rl.kit.values)


def seconds(text: str) -> float:
    """An argparse type: a number of seconds above 0 and at most
    :data:`meduris_rl.agents.plugins.external.MAX_SECONDS` (one day), written in digits
    (``--move-time 0.5``; ``1e308``, ``nan``, ``inf`` are refused), read by the shared checker
    (:func:`meduris_rl.kit.values.parse_float`, then
    :func:`meduris_rl.agents.plugins.external.check_seconds`)."""
    from meduris_rl.agents.plugins.external import MAX_SECONDS, check_seconds
    try:
        float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    try:
        return check_seconds("seconds", parse_float("seconds", text, 0.0, MAX_SECONDS))
    except ValueCheckError:
        raise argparse.ArgumentTypeError(
            f"{text} is not a positive number of seconds up to {MAX_SECONDS:g} (one day), "
            "written in digits (e.g. 0.5)") from None


def add_time_flags(parser) -> None:
    """``--move-time`` and ``--game-time``: the limits of ``cmd:`` agents
    (:mod:`meduris_rl.agents.plugins.external`), for every command that plays them."""
    from meduris_rl.agents.plugins.external import DEFAULT_MOVE_TIME, MAX_SECONDS
    parser.add_argument("--move-time", type=seconds, default=DEFAULT_MOVE_TIME,
                        metavar="SECONDS", help="a cmd: agent (a program speaking the JSON-lines "
                        "protocol) forfeits a game when one of its moves takes longer (default "
                        f"{DEFAULT_MOVE_TIME:g}; at most {MAX_SECONDS:g})")
    parser.add_argument("--game-time", type=seconds, default=None, metavar="SECONDS",
                        help="... or when its moves of one game take longer in all (default: "
                        "no limit)")


def output_file(path: str | Path, flag: str, force: bool, inputs: tuple[Path, ...] = ()) -> Path:
    """A file the command will write: its folder writable, not a folder itself, not one of the
    command's ``inputs``, and not an existing file unless ``force``."""
    problem = output_file_problem(path, flag, force, inputs)
    if problem:
        raise UsageError(problem)
    return Path(path)


def output_folder(path: str | Path, flag: str, force: bool, results: tuple[str, ...],
                  clear: bool = False) -> Path:
    """A folder the command fills with ``results`` (file or folder names): not a file, writable,
    and without an earlier run's results unless ``force``. The earlier results stay whole until
    the new ones are complete (the command replaces them then, so the folder never mixes two
    runs), unless ``clear`` removes them now (a run that writes as it goes)."""
    out = Path(path)
    earlier = earlier_results(out, results)
    problem = output_folder_problem(out, flag, force, earlier)
    if problem:
        raise UsageError(problem)
    if clear:
        remove_results(out, earlier)
    return out


LONG_WORD = 160  # an error message echoes at most this much of one word (a name, a number)


def short_message(message: object) -> str:
    """An error message as one line, each word (a run of non-blanks: an agent name, a number,
    a path) longer than :data:`LONG_WORD` cut to an excerpt naming its length, so that a
    5,000-character input is not echoed whole (once or twice)."""
    words = str(message).replace("\r", " ").replace("\n", " ").split(" ")
    return " ".join(w if len(w) <= LONG_WORD else f"{w[:100]}...({len(w):,} characters)"
                    for w in words)


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser, with its usage errors as one line ``meduris: error: ...`` (naming
    the subcommand when there is one; the words shortened by :func:`short_message`)."""

    def error(self, message: str):
        command = self.prog.partition(" ")[2]
        where = f"{command}: " if command else ""
        self.exit(2, f"meduris: error: {where}{short_message(message)}\n")


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows each option's default, unless its help already says it."""

    def _get_help_string(self, action):
        text = action.help or ""
        if "default" in text or action.default in (None, False, argparse.SUPPRESS):
            return text
        return super()._get_help_string(action)


# --- what ``meduris serve`` asks of a game's web page (its row's ``web`` part) ----------------
#: the names a web server answers to by default (``--allow-host`` adds more)
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")


class DatabaseRefused(InputError):
    """A database file that is not a games database of the game's web page (what its
    ``create_app`` raises for it; ``meduris serve`` says it in one line); ``problem`` says
    why."""

    def __init__(self, path: Path, problem: str):
        super().__init__(f"{str(path)!r} is not a games database ({problem})")
        self.path = path
        self.problem = problem
