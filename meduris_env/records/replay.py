"""A Meduris game record as one self-contained HTML page (Meduris's row names it as its
``html_replay`` part): the board of every frame drawn in the browser, a slider.

The frames are every game's (:mod:`meduris_rl.kit.replay`: frame ``k`` is the position after
action ``k - 1``, with that action and the events it caused; R-numbers are in the event names'
rules: offerings R18, rune stones R12, ...); the record is replayed first, so a record that
does not reproduce its result is refused before anything is written.
"""

from __future__ import annotations

import html
import json
import string
from pathlib import Path

from meduris_rl.kit.atomic import atomic_write
from meduris_rl.kit.records import GameRecord
from meduris_rl.kit.replay import frames, summary

from ..render import template
from ..render.view import state_view, view_patch


# --- HTML ------------------------------------------------------------------------------------
def replay_data(record: GameRecord) -> dict:
    """What the HTML page replays: the first frame's JSON view (:func:`state_view`, screens
    lifted), then per step only what changed (:func:`view_patch`), the captions and the event
    lines. A 4-player game is about 150 kB of it."""
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
