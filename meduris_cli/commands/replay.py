"""``meduris replay``: step through a game record of any game in the terminal, or write it as a
self-contained HTML page (a game whose row names an ``html_replay`` part: Meduris); the replay is
checked against the record (a record that does not replay exactly is a RecordError, one
line)."""

from __future__ import annotations

import sys
from pathlib import Path

from meduris_rl.cli.checks import UsageError, output_file


def add_parser(sub) -> None:
    p = sub.add_parser("replay", help="step through a game record, or write it as an HTML page",
                       description="Replay a game record exactly (the result is checked against "
                       "the record). In a terminal it waits for a key after each step; piped, "
                       "or with --all, it prints every step.")
    p.add_argument("record", help="a game record (.json) from play or tournament --save-records")
    p.add_argument("--html", metavar="OUT", help="write a self-contained HTML page (the board of "
                   "every step drawn in the browser, a slider), instead of stepping in the "
                   "terminal")
    p.add_argument("--force", action="store_true", help="replace an existing --html file")
    p.add_argument("--all", action="store_true", help="print every step without waiting")
    p.set_defaults(func=run)


def run(args) -> int:
    from meduris_rl.kit.records import GameRecord
    from meduris_rl.kit.replay import summary, terminal_replay
    out = None
    if args.html:  # before the work: the page may be written there
        if not Path(args.html).parent.is_dir():
            raise UsageError(f"cannot write {args.html!r}: folder "
                             f"{str(Path(args.html).parent)!r} does not exist")
        out = output_file(args.html, "--html", args.force, inputs=(Path(args.record),))
    record = GameRecord.load(args.record)
    if out is not None:
        row = record.row
        if not row.has_part("html_replay"):
            raise UsageError(f"--html: {row.title} has no page of its own (only Meduris draws "
                             "its board); meduris replay RECORD --all prints its steps in words")
        row.part("html_replay")(record, out)
        print(f"{summary(record)} (replayed exactly)\nwrote {out} "
              f"({len(record.actions) + 1} steps, {out.stat().st_size / 1e3:.0f} kB)")
        return 0
    interactive = not args.all and sys.stdin.isatty()
    terminal_replay(record, sys.stdout, sys.stdin if interactive else None)
    return 0
