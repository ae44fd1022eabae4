"""The ``meduris`` subcommands, one module per command.

Each module ``meduris_rl.cli.commands.<name>`` has ``add_parser(subparsers)``, which creates its
subparser and calls ``parser.set_defaults(func=run)``, and ``run(args) -> int``, the exit
status. :func:`meduris_rl.cli.main.build_parser` adds them in the order of :data:`COMMANDS` (the
order ``meduris --help`` lists them in); a new command is a new module and one name here.
A game's own commands (Meduris's trainers) are its row's ``commands`` part, added after these
(:mod:`meduris_rl.cli.meduris`).
"""

# module names (a command named with a hyphen, like rllib-train, lives in rllib_train.py)
COMMANDS = (
    "tournament",
    "duel",
    "ladder",
    "play",
    "replay",
    "train",
    "serve",
    "agents",
    "games",
)
