"""A position as text (``str(state)``): the board ring, druid, stacks, supply and players.

Each field of the ring is one cell, ``12SCb:h1*d@``: the field's number, its two materials
(W wood, L wool, C copper, S stone), its rune area (a..i), then what stands on it and what lies
under it. :data:`LEGEND` explains every mark (``render_text(state, legend=True)`` appends it;
``help`` in ``meduris play`` shows it).
"""

from __future__ import annotations

from .constants import (
    CHANCE,
    CHIP_KEYS,
    DECISION_NAMES,
    DRUID_STONE_FIELDS,
    EMPTY,
    END_NAMES,
    FACE_NAMES,
    HUT,
    MATERIALS,
    NUM_MATERIALS,
    PH_QUEUE,
    PHASE_NAMES,
    TERMINAL,
)

_MAT = "WLCS"  # wood, wooL, copper, stone
_AREA = "abcdefghi"  # the nine rune areas

LEGEND = """\
legend: a cell is <field><materials><rune area>:<what is on it>
  field      0.. clockwise from the great river (which lies before field 0)
  materials  the two the field shows: W wood, L wool, C copper, S stone (R3)
  rune area  a..i, the area whose rune stone a hut here takes (R12)
  .          empty field
  h2 / T2    a hut / a temple of seat 2
  *v *f *d   a bonus chip: +2 VP, free hut, druid offering (R4, R13; *d stays under a hut)
  @          the druid stands here (before he reaches the ring: his stone fields, R5, R17)
  workers    each high plain's stack, bottom to top, by seat (R6, R11)
  rune stones  the seat holding each area's stone, - while it lies on the board"""


def _to_move(state) -> str:
    cur = state.current_player()
    if cur == TERMINAL:
        return f"nobody: the game is over ({END_NAMES[state.end_reason]})"
    if cur == CHANCE:
        return f"chance ({PHASE_NAMES[state.phase]})"
    kind = DECISION_NAMES[state.queue[state.queue_head][0]] if state.phase == PH_QUEUE else ""
    return f"seat {cur} ({kind})"


def render_text(state, viewer: int | None = None, legend: bool = False) -> str:
    """The position as text. With ``viewer`` (a seat), the other players' materials are shown
    as a total only: they are behind their screens (rulebook, "Screens/materials"). With
    ``legend``, :data:`LEGEND` follows."""
    game = state.game
    n = game.num_fields
    fm = game.board.field_materials
    fa = game.board.field_area
    lines = [f"Meduris, {game.num_players} players, turn {state.turn}; to move: "
             f"{_to_move(state)}"]
    if state.die_face >= 0:
        lines.append(f"die: {FACE_NAMES[state.die_face]}")
    druid = state.druid_field
    where = (f"field {druid}" if druid >= 0
             else f"stone field {state.druid_stone} of {DRUID_STONE_FIELDS}")
    lines.append(f"druid: {where}")
    cells = []
    for f in range(n):
        occ = state.board_occupant[f]
        own = state.board_owner[f]
        mark = "." if occ == EMPTY else ("h" if occ == HUT else "T") + str(own)
        chip = state.bonus_chip[f]
        if chip:
            mark += "*" + CHIP_KEYS[chip][0]
        if f == druid:
            mark += "@"
        cells.append(f"{f:>2}{_MAT[fm[f, 0]]}{_MAT[fm[f, 1]]}{_AREA[fa[f]]}:{mark:<5}")
    for i in range(0, n, 8):
        lines.append(" ".join(cells[i:i + 8]))
    holders = " ".join(f"{_AREA[r]}:{'-' if h < 0 else h}"
                       for r, h in enumerate(state.rune_holder.tolist()))
    lines.append(f"rune stones: {holders}")
    for p, name in enumerate(MATERIALS):
        stack = [str(s) for s in state.stacks[p] if s >= 0]
        lines.append(f"plain {name:<6} supply {state.supply[p]:>2}  workers (bottom->top): "
                     f"{' '.join(stack) or '-'}")
    for s in range(game.num_players):
        if viewer is None or s == viewer:
            mats = " ".join(f"{MATERIALS[m]}={state.materials[s, m]}"
                            for m in range(NUM_MATERIALS))
        else:
            mats = f"{int(state.materials[s].sum()):>2} materials behind the screen"
        runes = int((state.rune_holder == s).sum())
        lines.append(f"seat {s}: VP {state.vp[s]:>3}  {mats}  huts left {state.huts_left[s]}"
                     f"  temples left {state.temples_left[s]}  rune stones {runes}")
    if legend:
        lines.append(LEGEND)
    return "\n".join(lines)
