"""Viewing a game record: step by step in a terminal, or as one self-contained HTML page.

Frame 0 is the position before the first action; frame ``k`` is the position after action
``k - 1`` of the record, with that action and the events it caused (R-numbers are in the event
names' rules: offerings R18, rune stones R12, ...). Both viewers replay the record first
(:meth:`GameRecord.replay`), so a record that does not reproduce its result is refused before
anything is shown.
"""

from __future__ import annotations

import html
import json
import string
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from ..engine.events import Event
from ..engine.state import State
from ..engine.text import render_text
from ..render import template
from ..render.view import state_view, view_patch
from .atomic import atomic_write
from .record import GameRecord, RecordError, codec_of


@dataclass
class Frame:
    index: int
    state: State
    caption: str  # the action that led here, and who chose it
    events: list[str]  # what it caused, one line each


def who(record: GameRecord, seat: int) -> str:
    return "chance" if seat < 0 else f"seat {seat} ({record.agents[seat]})"


def frames(record: GameRecord) -> list[Frame]:
    """Every frame of the record (replayed and checked first)."""
    record.replay()
    by_step: dict[int, list[Event]] = {}
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
    unit = getattr(codec_of(record.game), "score_unit", "VP")  # (a codec may name its unit)
    scores = ", ".join(f"{who(record, s)} {v} {unit}" for s, v in enumerate(r["scores"]))
    if not r["terminal"]:
        return f"unfinished after turn {r['turns']}: {scores}"
    won = " and ".join(who(record, s) for s in r["winners"])
    return f"game over ({r['end_reason']}) after turn {r['turns']}: {scores}; won by {won}"


def frame_text(frame: Frame) -> str:
    """A frame in words: its caption, events and the position (a game other than Meduris, a
    registered one, draws its position by its state's ``str``: every card shown)."""
    board = (render_text(frame.state) if isinstance(frame.state, State)
             else str(frame.state))
    lines = [frame.caption, *(f"  - {e}" for e in frame.events), board]
    return "\n".join(lines)


# --- terminal ------------------------------------------------------------------------------
HELP = "Enter: next step, b: back, a number: go to that step, e: the end, q: quit, ?: this help"


def terminal_replay(record: GameRecord, out: TextIO, inp: TextIO | None = None) -> None:
    """Show the record in a terminal. With ``inp`` (a TTY or scripted input) it waits for a
    command after each frame (see HELP); without, it prints every frame in turn."""
    fs = frames(record)
    last = len(fs) - 1
    if inp is None:
        for f in fs:
            out.write(frame_text(f) + "\n\n")
        out.write(summary(record) + " (replayed exactly)\n")
        return
    k = 0
    out.write(HELP + "\n")
    while True:
        out.write(frame_text(fs[k]) + "\n")
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


# --- HTML ------------------------------------------------------------------------------------
def replay_data(record: GameRecord) -> dict:
    """What the HTML page replays: the first frame's JSON view (:func:`state_view`, screens
    lifted), then per step only what changed (:func:`view_patch`), the captions and the event
    lines. A 4-player game is about 150 kB of it. The board is Meduris's: a record of another
    game is refused (RecordError, one line; its steps replay in words in the terminal)."""
    if record.game_name != "meduris":
        raise RecordError(f"the HTML replay draws Meduris boards; this is a {record.game_name} "
                          "record: meduris replay RECORD --all prints its steps in words")
    fs = frames(record)
    views = [state_view(f.state, labels=record.agents) for f in fs]
    return {"base": views[0],
            "patches": [view_patch(a, b) for a, b in zip(views, views[1:], strict=False)],
            "captions": [f.caption for f in fs],
            "events": [f.events for f in fs]}


def html_replay(record: GameRecord, title: str | None = None) -> str:
    """One self-contained page (no external files or network): the record's frames as JSON
    views and the board renderer (``templates/board.js``, the one the web game draws with,
    SVG), a slider, play/step buttons, and each step's action and events."""
    data = replay_data(record)
    # "</" inside the JSON would end the <script> element early
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    title = title or f"Meduris replay: {', '.join(record.agents)}" + (
        f", seed {record.seed}" if record.seed is not None else "")
    seats = "".join(f"<tr><td>{s}</td><td>{html.escape(a)}</td><td>{v}</td></tr>"
                    for s, (a, v) in enumerate(zip(record.agents, record.result["scores"],
                                                   strict=True)))
    page = string.Template(template("replay.html"))
    return page.substitute(title=html.escape(title), summary=html.escape(summary(record)),
                           seats=seats, last=len(data["captions"]) - 1, data=payload,
                           renderer=template("board.js"))


def write_html(record: GameRecord, path: str | Path, title: str | None = None) -> Path:
    path = Path(path)
    atomic_write(path, html_replay(record, title))
    return path
