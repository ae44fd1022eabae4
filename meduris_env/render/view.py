"""A position as JSON: everything the browser board (``templates/board.js``) draws.

:func:`state_view` turns a :class:`~meduris_env.engine.state.State` into plain JSON data (ints,
strings, lists, dicts; ``json.dumps`` takes it as it is). One renderer, ``board.js``, draws it as
SVG, both in the web game (``meduris serve``) and in the HTML replay (``meduris replay --html``),
so the two always show the same board.

The view holds the board (fields, their materials and rune areas, the great river), what stands
on it (huts, temples, bonus chips, the druid), the high plains (worker stacks, supply), the die,
the decision due, and per seat VP, materials, pieces left and rune stones. With ``viewer`` (a
seat) the other seats' materials are behind their screens: only their totals are in the view
(rulebook, "Screens/materials"), and the view lists the viewer's legal actions, each with its
words and what to click for it:

=============  ===========================  ==================================================
kind           target (``data-target``)     what is clicked
=============  ===========================  ==================================================
``place``      ``plain:P``                  the high plain P (R6)
``take``       ``supply:M``                 the supply of material M (R9)
``return``     ``mat:M``                    your own material M (R10)
``move``       ``worker:P:L``               your worker on plain P, level L (R11); ``to``
``hut``        ``field:F``                  building field F (R12)
``temple``     ``field:F``                  building field F (R14)
``offer``      ``offer:C``                  offering choice C (R19, R20)
``exchange``   ``exchange``                 manual exchange (R15): a list, not on the board
=============  ===========================  ==================================================

:func:`view_patch` is the difference of two views as ``{"a.b.3": value}`` (the HTML replay
stores its first view and then one patch per step; ``board.js`` applies them).
"""

from __future__ import annotations

from typing import Any

from ..engine.actions import action_to_string, decode_action
from ..engine.constants import (
    CHANCE,
    CHIP_NAMES,
    END_NAMES,
    EXCHANGE_GIVES,
    FACE_NAMES,
    MATERIALS,
    NUM_ACTIONS,
    PH_QUEUE,
    PHASE_NAMES,
    TERMINAL,
)

VIEW_VERSION = 1

_OFFER_WORDS = ("nothing (-1 VP, R19)", "{a} only (+1 VP, R19)", "{b} only (+1 VP, R19)",
                "both {a} and {b} (+{size} VP: the settlement's size, R19)",
                "the druid chip (+{size} VP: it counts as both, R20)")


def board_view(game) -> dict[str, Any]:
    """The static part: the board's fields, their materials and rune areas."""
    board = game.board
    n = board.num_fields
    river = board.source.get("great_river_between", [n - 1, 0]) if isinstance(
        board.source, dict) else [n - 1, 0]
    return {"name": board.name, "reconstructed": board.reconstructed, "fields": n,
            "materials": [[int(m) for m in row] for row in board.field_materials],
            "areas": [int(a) for a in board.field_area],
            "area_names": list(board.rune_areas),
            "river": [int(f) for f in river]}


def describe_action(state, action: int) -> str:
    """An action in the game's words, with what an offering gives in this position, which
    materials a field shows and the exchanges the engine would pay it with (R15)."""
    return plain_words(state, action) + exchange_words(auto_exchanges(state, action))


def plain_words(state, action: int) -> str:
    """:func:`describe_action` without the exchanges."""
    act = decode_action(action)
    if act.kind == "offer":
        d = state.pending_decision()
        if d["field"] >= 0:
            a, b = (MATERIALS[m] for m in state.game.board.field_materials[d["field"]])
            return "offer " + _OFFER_WORDS[act.choice].format(a=a, b=b, size=d["size"])
    text = action_to_string(act.id)
    if act.kind in ("hut", "temple") and act.field < state.game.num_fields:
        a, b = (MATERIALS[m] for m in state.game.board.field_materials[act.field])
        text += f" ({a}/{b})"
    return text


def exchange_words(trades: list[str]) -> str:
    """", first exchanging copper+stone+stone for 1 wool (R15)" for the exchanges ``trades``
    (:func:`auto_exchanges`); "" for none."""
    return ", first exchanging " + " and ".join(trades) + " (R15)" if trades else ""


def auto_exchanges(state, action: int) -> list[str]:
    """The exchanges the engine would make to pay for ``action`` (a building or an offering;
    R15 with ``exchange="auto"``), each as "copper+stone+stone for 1 wool"; [] when it pays
    from what the player holds (or is not legal now). Found by playing it on a copy."""
    if decode_action(action).kind not in ("hut", "temple", "offer") or state.current_player() < 0:
        return []
    trial = state.clone()
    try:
        trial.apply_action(int(action))
    except ValueError:
        return []
    return ["+".join(MATERIALS[m] for m in EXCHANGE_GIVES[e.data["give"]])
            + f" for 1 {MATERIALS[e.data['take']]}"
            for e in trial.last_events() if e.kind == "exchange" and e.data["automatic"]]


# per player-action kind: the click target (formatted with the action's fields) and the fields
# the view names beside it, in this order (board.js reads them)
_TARGETS = {"place": ("plain:{plain}", ("plain",)),
            "take": ("supply:{material}", ("material",)),
            "return": ("mat:{material}", ("material",)),
            "move": ("worker:{plain}:{level}", ("plain", "level", "to")),
            "hut": ("field:{field}", ("field",)),
            "temple": ("field:{field}", ("field",)),
            "offer": ("offer:{choice}", ("choice",)),
            "exchange": ("exchange", ())}


def action_target(action: int) -> dict[str, Any]:
    """What to click for a player action: ``kind``, ``target`` and the numbers it names."""
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"action {a} is not a player action (0..{NUM_ACTIONS - 1})")
    act = decode_action(a)
    target, names = _TARGETS[act.kind]
    return {"kind": act.kind, "target": target.format(**act._asdict()),
            **{name: getattr(act, name) for name in names}}


def legal_view(state, seat: int) -> list[dict[str, Any]]:
    """The legal actions of ``seat`` (empty unless it is that seat's decision), each with its
    id, canonical text (``action_to_string``), words and click target; a building or offering
    the engine pays for with automatic exchanges (R15) lists them as ``exchanges``."""
    if state.current_player() != seat or seat < 0:
        return []
    out = []
    for a in state.legal_actions():
        trades = auto_exchanges(state, a)  # (once: the words and the page's question)
        entry = {"id": a, "text": action_to_string(a),
                 "words": plain_words(state, a) + exchange_words(trades), **action_target(a)}
        if trades:  # (the page asks before playing it)
            entry["exchanges"] = trades
        out.append(entry)
    return out


def _seat_name(seat: int, labels: list[str]) -> str:
    label = labels[seat]
    return f"seat {seat}" if label == f"seat {seat}" else f"seat {seat} ({label})"


def status_line(state, labels: list[str]) -> str:
    """One line: turn, die, and what is due (or the result)."""
    head = f"turn {int(state.turn)}"
    if state.die_face >= 0:
        head += f", die {FACE_NAMES[state.die_face]}"
    cur = state.current_player()
    if cur == TERMINAL:
        won = " and ".join(_seat_name(s, labels) for s in state.winners())
        return f"{head}: game over ({END_NAMES[state.end_reason]}), won by {won}"
    if cur == CHANCE:
        return f"{head}: {PHASE_NAMES[state.phase]}"
    d = state.pending_decision()
    what = d["kind"]
    if what == "offering":
        what += f" for the hut on field {d['field']} (settlement of {d['size']})"
    return f"{head}: {_seat_name(cur, labels)} to decide: {what}"


def state_view(state, viewer: int | None = None, labels: list[str] | None = None
               ) -> dict[str, Any]:
    """The JSON view of ``state`` (see the module docstring).

    ``viewer``: the seat looking at the board; the other seats' materials are then totals only
    (``materials`` is ``null``), and ``legal`` lists the viewer's legal actions when it is the
    viewer's decision. ``None``: every screen is lifted and ``legal`` is empty.
    ``labels``: a name per seat (``"greedy"``, ``"human"``); default ``"seat N"``."""
    game = state.game
    n = game.num_players
    nf = game.num_fields
    if labels is None:
        labels = [f"seat {s}" for s in range(n)]
    labels = [str(x) for x in labels]
    if len(labels) != n:
        raise ValueError(f"{n} players need {n} labels, got {len(labels)}")
    if viewer is not None and not (isinstance(viewer, int) and 0 <= viewer < n):
        raise ValueError(f"viewer must be a seat 0..{n - 1} or None, got {viewer!r}")
    cur = state.current_player()
    terminal = cur == TERMINAL
    runes = [int(h) for h in state.rune_holder[: len(game.board.rune_areas)]]
    seats = []
    for s in range(n):
        mats = [int(m) for m in state.materials[s]]
        hidden = viewer is not None and s != viewer
        seats.append({"seat": s, "label": labels[s], "vp": int(state.vp[s]),
                      "materials": None if hidden else mats, "total": sum(mats),
                      "huts_left": int(state.huts_left[s]),
                      "temples_left": int(state.temples_left[s]),
                      "runes": runes.count(s)})
    decision = None
    if state.phase == PH_QUEUE and cur >= 0:
        decision = state.pending_decision()
    finale = None
    if state.finale_seat >= 0:
        finale = {"seat": int(state.finale_seat), "turns_left": int(state.finale_turns_left)}
    return {
        "version": VIEW_VERSION,
        "players": n,
        "board": board_view(game),
        "names": {"materials": list(MATERIALS), "chips": list(CHIP_NAMES)},
        "turn": int(state.turn),
        "phase": PHASE_NAMES[state.phase],
        "to_move": cur,
        "roller": int(state.roller),
        "die": FACE_NAMES[state.die_face] if state.die_face >= 0 else None,
        "decision": decision,
        "status": status_line(state, labels),
        "occupant": [int(x) for x in state.board_occupant[:nf]],
        "owner": [int(x) for x in state.board_owner[:nf]],
        "chip": [int(x) for x in state.bonus_chip[:nf]],
        "druid": {"field": int(state.druid_field), "stone": int(state.druid_stone)},
        "stacks": [[int(o) for o in row] for row in state.stacks],
        "supply": [int(x) for x in state.supply],
        "runes": runes,
        "seats": seats,
        "viewer": viewer,
        "finale": finale,
        "final_circuit": bool(state.final_circuit),
        "terminal": terminal,
        "end_reason": END_NAMES[state.end_reason] if terminal else None,
        "winners": state.winners() if terminal else [],
        "legal": legal_view(state, viewer) if viewer is not None else [],
    }


def view_patch(old: Any, new: Any) -> dict[str, Any]:
    """What changed from ``old`` to ``new`` (two views): ``{"dotted.path": new value}``.
    Dicts with the same keys and lists of the same length are compared item by item; anything
    else that differs is replaced whole (``board.js``'s ``applyPatch`` undoes this)."""
    out: dict[str, Any] = {}
    _diff(old, new, "", out)
    return out


def _diff(old: Any, new: Any, path: str, out: dict[str, Any]) -> None:
    if type(old) is type(new):
        if isinstance(new, dict) and old.keys() == new.keys():
            for k in new:
                _diff(old[k], new[k], f"{path}.{k}" if path else str(k), out)
            return
        if isinstance(new, list) and len(old) == len(new) and path:
            for i, (a, b) in enumerate(zip(old, new, strict=True)):
                _diff(a, b, f"{path}.{i}", out)
            return
        if old == new:
            return
    if not path:
        raise ValueError("view_patch: the two views differ at the top level")
    out[path] = new


def apply_patch(view: Any, patch: dict[str, Any]) -> Any:
    """``view`` with ``patch`` applied, in place (the Python twin of ``board.js``'s, for
    tests)."""
    for path, value in patch.items():
        keys = path.split(".")
        node = view
        for k in keys[:-1]:
            node = node[int(k)] if isinstance(node, list) else node[k]
        last = keys[-1]
        if isinstance(node, list):
            node[int(last)] = value
        else:
            node[last] = value
    return view
