"""The ``meduris`` command: one subcommand per module of :mod:`meduris_rl.cli.commands`, in the
order of its ``COMMANDS``, then each game's own commands (its row's ``commands`` part, e.g.
Meduris's trainers, :mod:`meduris_rl.cli.meduris`).

Errors the user can fix (unknown agent, impossible player count, unwritable folder) are
:class:`~meduris_env.engine.errors.InputError`; :func:`main` catches them in one place and
prints one line, ``meduris: error: ...``, with exit status 2 (argparse's own usage errors look
the same, :class:`~meduris_rl.cli.checks.ArgumentParser`). Ctrl-C exits with 130.
"""

from __future__ import annotations

import functools
import importlib
import sys

from meduris_rl.cli.checks import ArgumentParser, HelpFormatter, short_message
from meduris_rl.cli.commands import COMMANDS
from meduris_rl.kit.errors import InputError
from meduris_rl.kit.games import games


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("meduris-rl")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "unknown (not installed)"


def build_parser() -> ArgumentParser:
    """The ``meduris`` parser with every subcommand (tests read its flags from here)."""
    parser = ArgumentParser(prog="meduris", description="meduris-rl: tournaments, duels, a rating "
                            "ladder, play, replays and training for every game of the table "
                            "(meduris games lists them; Meduris is the default)",
                            formatter_class=HelpFormatter)
    parser.add_argument("--version", action="version", version=f"meduris {_version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser = functools.partial(sub.add_parser, formatter_class=HelpFormatter)
    for name in COMMANDS:
        importlib.import_module(f"{__package__}.commands.{name}").add_parser(sub)
    for row in games().values():
        if row.has_part("commands"):
            row.part("commands")(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (InputError, OSError) as err:  # the one place errors of input are printed
        print(f"meduris: error: {short_message(err)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("meduris: interrupted; nothing was written", file=sys.stderr)
        return 130
