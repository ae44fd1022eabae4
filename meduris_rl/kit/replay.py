"""Viewing a game record of any game step by step in a terminal (``meduris replay``).

Frame 0 is the position before the first action; frame ``k`` is the position after action
``k - 1`` of the record, with that action and the events it caused, and the position in the
words of the game's row (``text``: Meduris draws its board, Druids shows every card). The
viewer replays the record first (:meth:`GameRecord.replay`), so a record that does not
reproduce its result is refused before anything is shown. A game's row may also name a page of
its own (the ``html_replay`` part: Meduris's draws its board in the browser).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TextIO

from meduris_rl.kit.records import GameRecord


@dataclass
class Frame:
    index: int
    state: Any
    caption: str  # the action that led here, and who chose it
    events: list[str]  # what it caused, one line each


def who(record: GameRecord, seat: int) -> str:
    return "chance" if seat < 0 else f"seat {seat} ({record.agents[seat]})"


def frames(record: GameRecord) -> list[Frame]:
    """Every frame of the record (replayed and checked first)."""
    record.replay()
    by_step: dict[int, list[Any]] = {}
    for e in record.events:
        by_step.setdefault(e.step, []).append(e)
    out = []
    total = len(record.actions)
    for k, state in enumerate(record.states()):
        if k == 0:
            caption = f"start: {record.game.num_players} players, " + ", ".join(
                who(record, s) for s in range(record.game.num_players))
            events = []
        else:
            a, seat = record.actions[k - 1], record.seats[k - 1]
            caption = f"step {k}/{total}: {who(record, seat)}: {record.text_of(a)}"
            events = [e.describe() for e in by_step.get(k - 1, [])]
        out.append(Frame(k, state, caption, events))
    return out


def summary(record: GameRecord) -> str:
    r = record.result
    unit = record.row.score_unit
    scores = ", ".join(f"{who(record, s)} {v} {unit}" for s, v in enumerate(r["scores"]))
    if not r["terminal"]:
        return f"unfinished after turn {r['turns']}: {scores}"
    won = " and ".join(who(record, s) for s in r["winners"])
    return f"game over ({r['end_reason']}) after turn {r['turns']}: {scores}; won by {won}"


def frame_text(frame: Frame, text=str) -> str:
    """A frame in words: its caption, events and the position (``text``: the game's row's)."""
    lines = [frame.caption, *(f"  - {e}" for e in frame.events), text(frame.state)]
    return "\n".join(lines)


# --- terminal ------------------------------------------------------------------------------
HELP = "Enter: next step, b: back, a number: go to that step, e: the end, q: quit, ?: this help"


def terminal_replay(record: GameRecord, out: TextIO, inp: TextIO | None = None) -> None:
    """Show the record in a terminal. With ``inp`` (a TTY or scripted input) it waits for a
    command after each frame (see HELP); without, it prints every frame in turn."""
    fs = frames(record)
    last = len(fs) - 1
    text = record.row.text
    if inp is None:
        for f in fs:
            out.write(frame_text(f, text) + "\n\n")
        out.write(summary(record) + " (replayed exactly)\n")
        return
    k = 0
    out.write(HELP + "\n")
    while True:
        out.write(frame_text(fs[k], text) + "\n")
        if k == last:
            out.write(summary(record) + " (replayed exactly)\n")
        while True:
            out.write(f"[{k}/{last}] > ")
            out.flush()
            line = inp.readline()
            if not line:  # end of input
                out.write("\n")
                return
            cmd = line.strip().lower()
            if cmd in ("", "n"):
                if k == last:
                    out.write("this is the last step (b: back, q: quit)\n")
                    continue
                k += 1
            elif cmd in ("b", "p"):
                if k == 0:
                    out.write("this is the first step\n")
                    continue
                k -= 1
            elif cmd == "e":
                k = last
            elif cmd == "q":
                return
            elif cmd in ("?", "h", "help"):
                out.write(HELP + "\n")
                continue
            elif cmd.isdigit():
                if int(cmd) > last:
                    out.write(f"no step {cmd}: steps are 0..{last}\n")
                    continue
                k = int(cmd)
            else:
                out.write(f"unknown command {cmd!r}; {HELP}\n")
                continue
            break
