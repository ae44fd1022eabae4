"""The log of ``meduris serve`` in a player's words: one sentence per event (issue 30).

A log entry (an action: yours, an opponent's or chance's) is told by the sentences of the
events it caused (:meth:`meduris_env.engine.events.Event.describe`), never by the action's
text beside them ("seat 1 (greedy): offer second" over "seat 1 offers the second material
..." said it twice). :func:`entry_lines` builds them from the engine's events:

* the action's own event first (the hut built before the materials paid for it, the offering
  before its payment), then the others in the order they happened;
* the same sentence happening several times in a row once, with how often ("seat 0 exchanges
  wood+wood+wood for 1 copper (made by the engine to pay) twice (R15)");
* your seat as "you" ("you build a hut ...", "your temple on field 3 scores ...", "... from
  you"), the verb after it in your person wherever "seat N <verb>" stands in the sentence
  ("interim scoring: you have ...") (:data:`VERBS`; a verb not listed keeps the engine's words
  with "(you)": never wrong grammar);
* the acting opponent named by its agent on the entry's first line ("seat 1 (greedy) builds");
* the action's text only when the action caused no event at all.

An entry also says **where** it happened (:func:`entry_targets`): the places on the board the
action changed, named as the page names its targets (``board.js``'s ``data-target``:
``field:12``, ``plain:1``, ``supply:1``), which the page rings for the opponents' moves (never
read from the sentences: the druid walking from a field, or a settlement counted through your
hut, changes nothing there). The view's status line says "you" too (:func:`with_your_status`:
"Your move: place worker (turn 5, die wool)").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from meduris_env.engine.actions import decode_action
from meduris_env.engine.events import Event

# the verbs the engine's sentences (meduris_env.engine.events.SENTENCES) start with after
# "seat N", in the second person (tests/test_web_words.py checks every sentence against it)
VERBS = {"starts": "start", "places": "place", "rolls": "roll", "gets": "get",
         "takes": "take", "returns": "return", "has": "have", "exchanges": "exchange",
         "moves": "move", "pays": "pay", "builds": "build", "offers": "offer",
         "scores": "score"}

# per kind of player action: the kinds of the event that is the action itself
OWN_EVENT = {"place": ("worker_placed",), "take": ("take", "take_nothing"),
             "return": ("return", "return_nothing"), "move": ("move_worker",),
             "hut": ("build_hut",), "temple": ("build_temple",), "offer": ("offering",),
             "exchange": ("exchange",)}

RULE = re.compile(r"( \(R\d+\))$")

# per kind of action (a chance outcome's too): the places on the board it changed, as the
# page's target keys. A moved worker is rung where it now stands; a returned material at the
# supply it went back to (an opponent's own materials are behind its screen); an offering, a
# roll of the die or the start player change no place on the board.
PLACES = {"place": ("plain:{plain}",), "take": ("supply:{material}",),
          "return": ("supply:{material}",), "move": ("plain:{to}",),
          "hut": ("field:{field}",), "temple": ("field:{field}",), "chip": ("field:{field}",)}


def in_your_words(sentence: str, you: int) -> str:
    """``sentence`` with seat ``you`` as "you" (its verb in the second person, "your" for
    "seat N's"); a verb not in :data:`VERBS` keeps the engine's words ("seat 0 (you) ...")."""
    seat = rf"\bseat {you}"

    def subject(m: re.Match) -> str:
        verb = m.group(1)
        return f"you {VERBS[verb]}" if verb in VERBS else f"seat {you} (you) {verb}"

    out = re.sub(seat + r"'s\b", "your", sentence)
    out = re.sub(seat + r" ([a-z]+)\b", subject, out)
    return re.sub(seat + r"\b(?! \(you\))", "you", out)


def repeated(sentences: Sequence[str]) -> list[str]:
    """The sentences with a run of equal ones told once, with how often."""
    out: list[str] = []
    counts: list[int] = []
    for s in sentences:
        if out and out[-1] == s:
            counts[-1] += 1
        else:
            out.append(s)
            counts.append(1)
    return [s if n == 1 else times(s, "twice" if n == 2 else f"{n} times")
            for s, n in zip(out, counts, strict=True)]


def times(sentence: str, how_often: str) -> str:
    """``sentence`` said to happen ``how_often``: before its rule number, if it ends with one."""
    if RULE.search(sentence):
        return RULE.sub(lambda m: f" {how_often}{m.group(1)}", sentence, count=1)
    return f"{sentence} ({how_often})"


def entry_lines(events: Sequence[Event], kind: str | None, seat: int, you: int,
                label: str | None, text: str) -> list[str]:
    """The sentences of one log entry: the ``events`` of an action of kind ``kind`` (a
    :func:`meduris_env.engine.actions.decode_action` kind; None: chance) played by ``seat``
    (-1: chance) in a game where the human sits at ``you``; ``label``: the acting opponent's
    agent name (None for you and chance); ``text``: the action's text, said only when it
    caused no event."""
    if not events:
        who = "you" if seat == you else "chance" if seat < 0 else f"seat {seat} ({label})"
        return [f"{who}: {text}"]
    own = OWN_EVENT.get(kind or "", ())
    at = next((k for k, e in enumerate(events) if e.kind in own), 0)
    ordered = [events[at], *events[:at], *events[at + 1:]]
    lines = repeated([e.describe() for e in ordered])
    if label and seat >= 0 and seat != you:
        lines[0] = re.sub(rf"^seat {seat}\b", f"seat {seat} ({label})", lines[0])
    return [in_your_words(s, you) for s in lines]


def entry_targets(action: int) -> list[str]:
    """The target keys of the places the action ``action`` (a player action or a chance
    outcome) changed (:data:`PLACES`; an exchange: the supplies of the materials it gave and
    took)."""
    act = decode_action(action)
    if act.kind == "exchange":
        return [f"supply:{m}" for m in sorted({*act.give, act.material})]
    return [key.format(**act._asdict()) for key in PLACES.get(act.kind, ())]


def with_your_status(view: dict, you: int) -> dict:
    """``view`` with the human's seat ``you`` as "you" in its status line: "Your move: place
    worker (turn 5, die wool)" at your decision (the engine's line says "turn 5, die wool:
    seat 0 (human) to decide: place worker"), "won by you" at the end. Changed in place."""
    label = view["seats"][you]["label"]
    name = f"seat {you}" if label == f"seat {you}" else f"seat {you} ({label})"
    head, _, rest = view["status"].partition(": ")
    due = f"{name} to decide: "
    if rest.startswith(due):
        view["status"] = f"Your move: {rest[len(due):]} ({head})"
    else:
        view["status"] = re.sub(rf"{re.escape(name)}(?!\d)", "you", view["status"])
    return view


NOTHING_FREE = "offer nothing (0 VP, you have none to lose, R19)"


def with_offer_words(view: dict) -> dict:
    """``view`` with the offering choice "nothing" saying what it costs: -1 VP, or nothing
    when the viewer has no VP (R19: never below 0). Changed in place and returned."""
    viewer = view.get("viewer")
    if viewer is None or view["seats"][viewer]["vp"] > 0:
        return view
    for a in view.get("legal") or ():
        if a["kind"] == "offer" and a.get("choice") == 0:
            a["words"] = NOTHING_FREE
    return view
