"""A position as text (``str(state)``): the board ring, druid, stacks, supply and players."""

from __future__ import annotations

from .constants import CHIP_KEYS, FACE_NAMES, HUT, MATERIALS, PHASE_NAMES

_MAT = "WLCS"  # wood, wooL, copper, stone


def render_text(state, viewer: int | None = None) -> str:
    """The position as text. With ``viewer`` (a seat), the other players' materials are shown
    as a total only: they are behind their screens (rulebook, "Screens/materials")."""
    game = state.game
    n = game.num_fields
    fm = game.board.field_materials
    lines = [f"Meduris, {game.num_players} players, turn {state.turn}, "
             f"{PHASE_NAMES[state.phase]}, to move: {state.current_player()}"]
    if state.die_face >= 0:
        lines.append(f"die: {FACE_NAMES[state.die_face]}")
    druid = state.druid_field
    where = f"field {druid}" if druid >= 0 else f"stone field {state.druid_stone} (of 3)"
    lines.append(f"druid: {where}")
    cells = []
    for f in range(n):
        occ = state.board_occupant[f]
        own = state.board_owner[f]
        mark = "." if occ == 0 else ("h" if occ == HUT else "T") + str(own)
        chip = state.bonus_chip[f]
        if chip:
            mark += "*" + CHIP_KEYS[chip][0]
        if f == druid:
            mark += "@"
        cells.append(f"{f:>2}{_MAT[fm[f, 0]]}{_MAT[fm[f, 1]]}:{mark:<5}")
    for i in range(0, n, 8):
        lines.append(" ".join(cells[i:i + 8]))
    for p, name in enumerate(MATERIALS):
        stack = [str(s) for s in state.stacks[p] if s >= 0]
        lines.append(f"plain {name:<6} supply {state.supply[p]:>2}  workers (bottom->top): "
                     f"{' '.join(stack) or '-'}")
    for s in range(game.num_players):
        if viewer is None or s == viewer:
            mats = " ".join(f"{MATERIALS[m]}={state.materials[s, m]}" for m in range(4))
        else:
            mats = f"{int(state.materials[s].sum()):>2} materials behind the screen"
        runes = int((state.rune_holder == s).sum())
        lines.append(f"seat {s}: VP {state.vp[s]:>3}  {mats}  huts left {state.huts_left[s]}"
                     f"  temples left {state.temples_left[s]}  rune stones {runes}")
    return "\n".join(lines)
