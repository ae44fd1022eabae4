"""A picture of a position (``render_mode="rgb_array"``): the ring board, stacks and scores.

Drawn with Pillow. Left: the ring of building fields clockwise from the great river (top), each
field split into its two material colours with its rune area's letter outside; huts (squares)
and temples (triangles) in their owner's colour; bonus chips as a ring and a white badge ("+2",
"F", "D"; beside the hut when one stands on it); the druid as a black disc (on the ring, or on
one of his three stone fields in the centre). Right: the four high plains with their worker
stacks and supply, the score table and a legend of every mark.
"""

from __future__ import annotations

import math

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..engine.constants import DECISION_NAMES, FACE_NAMES, HUT, MATERIALS, PH_QUEUE, TEMPLE

WIDTH, HEIGHT = 920, 560
SEAT_COLOURS = ((214, 39, 40), (31, 119, 180), (230, 190, 20), (44, 160, 44))
MATERIAL_COLOURS = ((133, 94, 52), (238, 232, 213), (205, 120, 50), (150, 150, 150))
BACKGROUND = (246, 241, 228)
INK = (30, 30, 30)
CHIP_LABELS = ("", "+2", "F", "D")
CHIP_INK = (120, 40, 160)

_CX, _CY, _RING = 275, 290, 215


def _font(size: int):
    try:
        return ImageFont.load_default(size)
    except TypeError:  # Pillow without FreeType sizing
        return ImageFont.load_default()


def _field_xy(f: int, n: int, radius: float = _RING) -> tuple[float, float]:
    angle = 2 * math.pi * (f + 0.5) / n - math.pi / 2  # field 0 just right of the river at top
    return _CX + radius * math.cos(angle), _CY + radius * math.sin(angle)


def _draw_board(d: ImageDraw.ImageDraw, state, small, tiny) -> None:
    game = state.game
    n = game.num_fields
    fm, fa = game.board.field_materials, game.board.field_area
    r = min(22, int(math.pi * _RING / n) - 2)
    d.line([(_CX, _CY - _RING - 40), (_CX, _CY - _RING + 40)], fill=(70, 130, 200), width=6)
    for f in range(n):
        x, y = _field_xy(f, n)
        box = [x - r, y - r, x + r, y + r]
        d.pieslice(box, 90, 270, fill=MATERIAL_COLOURS[fm[f, 0]], outline=INK)
        d.pieslice(box, 270, 90, fill=MATERIAL_COLOURS[fm[f, 1]], outline=INK)
        chip = int(state.bonus_chip[f])
        if chip:
            d.ellipse([x - r - 3, y - r - 3, x + r + 3, y + r + 3], outline=CHIP_INK, width=3)
        occ, owner = int(state.board_occupant[f]), int(state.board_owner[f])
        s = r * 0.55
        if occ == HUT:
            d.rectangle([x - s, y - s, x + s, y + s], fill=SEAT_COLOURS[owner], outline=INK)
        elif occ == TEMPLE:
            d.polygon([(x, y - s * 1.3), (x - s * 1.2, y + s), (x + s * 1.2, y + s)],
                      fill=SEAT_COLOURS[owner], outline=INK)
        if chip:  # a white badge reads on every field colour; beside a hut it stood on
            bx, by = (x, y) if occ == 0 else (x - r * 0.75, y + r * 0.75)
            _chip_badge(d, bx, by, chip, tiny)
        ox, oy = _field_xy(f, n, _RING + r + 12)
        d.text((ox, oy), f"{f}", fill=INK, font=tiny, anchor="mm")
        ix, iy = _field_xy(f, n, _RING - r - 10)
        d.text((ix, iy), chr(ord("a") + int(fa[f])), fill=(110, 110, 110), font=tiny, anchor="mm")
        if f == state.druid_field:
            d.ellipse([x + r * 0.3, y - r, x + r, y - r * 0.3], fill=INK)
    for k in range(3):  # the druid's stone fields (R5), in the centre
        x, y = _CX - 40 + 40 * k, _CY
        d.rectangle([x - 14, y - 14, x + 14, y + 14], outline=INK, fill=(200, 200, 200))
        if state.druid_field < 0 and state.druid_stone == k + 1:
            d.ellipse([x - 9, y - 9, x + 9, y + 9], fill=INK)
    if state.druid_field < 0 and state.druid_stone == 0:
        d.ellipse([_CX - 9, _CY - 45, _CX + 9, _CY - 27], fill=INK)
    d.text((_CX, _CY + 35), "druid stones", fill=INK, font=tiny, anchor="mm")


def _chip_badge(d: ImageDraw.ImageDraw, x: float, y: float, chip: int, font) -> None:
    d.ellipse([x - 9, y - 9, x + 9, y + 9], fill=(255, 255, 255), outline=CHIP_INK, width=2)
    d.text((x, y), CHIP_LABELS[chip], fill=CHIP_INK, font=font, anchor="mm")


def _draw_legend(d: ImageDraw.ImageDraw, small, tiny) -> None:
    """What every mark means, under the score table."""
    x0, y0 = 560, 400
    d.text((x0, y0), "legend", fill=INK, font=small)
    y = y0 + 24
    for m, name in enumerate(MATERIALS):  # each field shows two materials (R3)
        x = x0 + m * 80
        d.rectangle([x, y, x + 16, y + 16], fill=MATERIAL_COLOURS[m], outline=INK)
        d.text((x + 22, y + 8), name, fill=INK, font=tiny, anchor="lm")
    y += 26
    d.rectangle([x0 + 2, y + 2, x0 + 14, y + 14], fill=(200, 200, 200), outline=INK)
    d.text((x0 + 22, y + 8), "hut", fill=INK, font=tiny, anchor="lm")
    d.polygon([(x0 + 88, y + 1), (x0 + 80, y + 15), (x0 + 96, y + 15)], fill=(200, 200, 200),
              outline=INK)
    d.text((x0 + 102, y + 8), "temple", fill=INK, font=tiny, anchor="lm")
    d.ellipse([x0 + 170, y + 2, x0 + 184, y + 16], fill=INK)
    d.text((x0 + 190, y + 8), "druid", fill=INK, font=tiny, anchor="lm")
    d.text((x0 + 240, y + 8), "letters a-i: rune areas", fill=INK, font=tiny, anchor="lm")
    y += 26
    for k, (chip, words) in enumerate(((1, "+2 VP"), (2, "free hut"), (3, "druid offering"))):
        x = x0 + 9 + k * 110
        _chip_badge(d, x, y + 9, chip, tiny)
        d.text((x + 14, y + 9), words, fill=INK, font=tiny, anchor="lm")
    y += 26
    d.text((x0, y), "colours: the seats (score table); numbers outside the ring: fields",
           fill=INK, font=tiny)


def _draw_stacks(d: ImageDraw.ImageDraw, state, small) -> None:
    x0, y0 = 560, 70
    d.text((x0, y0 - 30), "high plains (workers bottom to top)", fill=INK, font=small)
    for p, name in enumerate(MATERIALS):
        x = x0 + p * 80
        d.rectangle([x, y0, x + 60, y0 + 20], fill=MATERIAL_COLOURS[p], outline=INK)
        d.text((x + 30, y0 + 10), name, fill=INK, font=small, anchor="mm")
        for lv in range(3):
            owner = int(state.stacks[p, lv])
            top = y0 + 110 - 28 * lv
            if owner >= 0:
                d.ellipse([x + 16, top, x + 44, top + 26], fill=SEAT_COLOURS[owner], outline=INK)
        d.text((x + 30, y0 + 150), f"supply {state.supply[p]}", fill=INK, font=small,
               anchor="mm")


_SCORE_COLUMNS = (("seat", 34), ("VP", 72), ("wo", 106), ("wl", 134), ("co", 162), ("st", 190),
                  ("huts", 228), ("temples", 276), ("runes", 326))


def _draw_scores(d: ImageDraw.ImageDraw, state, small) -> None:
    x0, y0 = 560, 260
    for label, dx in _SCORE_COLUMNS:
        d.text((x0 + dx, y0), label, fill=INK, font=small, anchor="ma")
    # huts and temples are counted as the pieces a player has left to build (R1)
    d.text((x0 + 252, y0 - 17), "left to build", fill=INK, font=small, anchor="ma")
    for s in range(state.game.num_players):
        y = y0 + 26 + 26 * s
        d.rectangle([x0, y, x0 + 18, y + 18], fill=SEAT_COLOURS[s], outline=INK)
        values = (s, state.vp[s], *state.materials[s], state.huts_left[s], state.temples_left[s],
                  (state.rune_holder == s).sum())
        for (_, dx), v in zip(_SCORE_COLUMNS, values, strict=False):
            d.text((x0 + dx, y + 2), str(int(v)), fill=INK, font=small, anchor="ma")


def _caption(state) -> str:
    head = f"turn {state.turn}"
    if state.die_face >= 0:
        head += f", die {FACE_NAMES[state.die_face]}"
    if state.is_terminal():
        return head + ", game over"
    if state.phase == PH_QUEUE:
        kind = DECISION_NAMES[state.queue[state.queue_head, 0]]
        return head + f", seat {state.current_player()}: {kind}"
    return head


def render_rgb(state) -> np.ndarray:
    """An ``(560, 920, 3)`` uint8 picture of ``state``."""
    return np.asarray(render_image(state), dtype=np.uint8).copy()


def render_image(state) -> Image.Image:
    """The picture of ``state`` as a Pillow image (920 x 560)."""
    img = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    d = ImageDraw.Draw(img)
    small, tiny, big = _font(14), _font(11), _font(18)
    d.text((16, 12), f"Meduris, {state.game.num_players} players: {_caption(state)}", fill=INK,
           font=big)
    _draw_board(d, state, small, tiny)
    _draw_stacks(d, state, small)
    _draw_scores(d, state, small)
    _draw_legend(d, small, tiny)
    return img
