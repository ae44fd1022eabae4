"""Meduris's own parts of the ``meduris`` command, reached through its row (the game's
``web`` and ``commands`` parts, :mod:`meduris_rl.kit.games`), as ``agents/meduris`` and
``train/meduris`` are its players and trainers: the web page (:mod:`.web`, ``meduris serve``)
and the commands of its own trainers, ``value``, ``distill``, ``rllib-train`` and ``az-train``
(one module each, made as the shared commands are, :mod:`meduris_rl.cli.commands`)."""

from __future__ import annotations

import importlib

# module names, in the order ``meduris --help`` lists them after the shared commands
COMMANDS = ("value", "distill", "rllib_train", "az_train")


def add_parsers(sub) -> None:
    """Meduris's ``commands`` part: its commands' subparsers."""
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").add_parser(sub)
