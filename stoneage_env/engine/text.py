"""The position in words, for terminals, logs and ``str(state)``: the round, the display, the
stacks, the herd, each seat's goods, tools, cards and buildings, the placements and the node
being decided. ``seat`` given: as that seat knows it (the others' face-down cards counted, not
named, rules section 3); None: everything (tools and tests)."""

from __future__ import annotations

from .components import BUILDING_IDS, CARD_IDS, bonus_text, building_name, card_name
from .constants import GOODS, LOCATION_NAMES, MODE_NAMES, RESOURCES


def _cards_line(st, q: int, seat: int | None) -> str:
    names = []
    for c, k in enumerate(st.cards[q].tolist()):
        hidden = int(st.secret[q, c]) if seat is not None and seat != q else 0
        names += [CARD_IDS[c]] * (k - hidden)
    secret = int(st.secret[q].sum())
    if seat is not None and seat != q and secret:
        names.append(f"+{secret} face down")
    return ", ".join(names) or "none"


def _seat_lines(st, q: int, seat: int | None) -> list[str]:
    g = st.goods[q]
    goods = ", ".join(f"{int(g[i])} {name}" for i, name in enumerate(GOODS))
    pairs = zip(st.tiles[q], st.tile_used[q], strict=True)
    tiles = "/".join(f"{int(v)}{'*' if u else ''}" for v, u in pairs if v) or "none"
    extra = []
    for v in range(4):
        extra += [f"OUT {v + 1}"] * int(st.one_use[q, v])
    extra += ["ANY2"] * int(st.any_unclaimed[q])
    built = [BUILDING_IDS[b] for b, k in enumerate(st.built[q].tolist()) for _ in range(k)]
    placed = [f"{int(st.placed[loc, q])} {LOCATION_NAMES[loc]}" for loc in range(16)
              if st.placed[loc, q]]
    mark = " (you)" if seat == q else ""
    return [f"seat {q}{mark}: {int(st.score[q])} VP; {goods}; figures {int(st.figures[q])}, "
            f"agriculture {int(st.agriculture[q])}, tools {tiles}"
            + (f", {', '.join(extra)}" if extra else ""),
            f"  cards: {_cards_line(st, q, seat)}; buildings: {', '.join(built) or 'none'}"
            + (f"; Mammoth tiles {int(st.tiles_won[q])}" if st.mammoth else ""),
            f"  placed: {', '.join(placed) or 'nothing'} ({int(st.unplaced[q])} unplaced)"]


def render_text(st, seat: int | None = None) -> str:
    n = st.game.num_players
    lines = [f"Stone Age, {n} players, round {st.round}, start player seat {st.start_player}; "
             f"{MODE_NAMES[st.mode]}" + (f" (seat {st.to_move} to decide)"
                                         if st.to_move >= 0 else "")]
    display = [f"{k + 1}: {card_name(c) if c >= 0 else '-'}" for k, c in enumerate(st.display)]
    lines.append("display " + " | ".join(display) + f"; deck {int(st.deck.sum())}")
    stacks = [f"{j + 1}: {building_name(b) if b >= 0 else '-'} ({int(st.stack_size[j])} left)"
              for j, b in enumerate(st.stack_top[:n])]
    lines.append("stacks " + " | ".join(stacks))
    if st.mammoth:
        if st.tile_now >= 0:
            row = st.game.tile_table[st.tile_now]
            lines.append(f"herd on the {LOCATION_NAMES[st.herd]}: tile {st.tile_now + 1}, "
                         f"'1' {bonus_text(*map(int, row[1:4]))}, 'all' "
                         f"{bonus_text(*map(int, row[4:7]))}")
        if st.back > 0:
            lines.append(f"next Mammoth back: {RESOURCES[st.back - 1]}")
    for q in range(n):
        lines += _seat_lines(st, q, seat)
    return "\n".join(lines)
