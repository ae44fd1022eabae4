"""What a newcomer reads: the text board explains every mark it uses (a legend), says who is
to move in words, and shows the rune areas and who holds their stones."""

import random
import re

from helpers import random_position

from meduris_env.engine.text import LEGEND, render_text
from meduris_rl.kit.loop import resolve_chance


def test_every_mark_of_the_text_board_is_in_the_legend():
    marks = set()
    for seed in range(6):
        text = render_text(random_position(3, seed, 150))
        for cell in re.findall(r"\d+[WLCS]{2}[a-i]:(\S+)", text):
            marks |= {"." if cell == "." else cell[0]} | set(re.findall(r"\*[vfd]|@", cell))
    assert marks >= {".", "h", "T", "@"}  # the games show them
    for mark in marks:
        assert (f"  {mark} " in LEGEND or f"{mark}2" in LEGEND or mark in LEGEND.split()), mark
    for letter, material in zip("WLCS", ("wood", "wool", "copper", "stone"), strict=True):
        assert f"{letter} {material}" in LEGEND
    assert "rune area" in LEGEND and "a..i" in LEGEND


def test_the_board_says_who_moves_in_words_and_shows_the_rune_stones():
    st = random_position(3, 1, 150)
    text = render_text(st, legend=True)
    first = text.splitlines()[0]
    assert re.search(r"to move: seat \d \(", first) and "-4" not in first and "-1" not in first
    assert re.search(r"^rune stones: a:[-\d] b:[-\d]", text, flags=re.M)
    assert text.endswith(LEGEND)
    while not st.is_terminal():
        st.apply_action(st.legal_actions()[0])
        resolve_chance(st, random.Random(0))
    assert "to move: nobody: the game is over" in str(st)
