"""Positions of Stone Age built for the rules tests: a game dealt with chosen cards, buildings
and Mammoth tiles (chance outcomes applied by hand), actions by their names, dice by their
faces. Nothing here knows the engine's insides: it applies outcome and action ids through the
public API (``apply_action``, ``string_to_action``) and edits the documented views."""

from __future__ import annotations

import random

import stoneage_env as SA
from meduris_rl.kit.seeding import derive_seed
from stoneage_env.engine.components import BUILDING_IDS, CARD_IDS, RECONSTRUCTED_TILES
from stoneage_env.engine.constants import C_BACK, C_BUILDING, C_CARD, C_DIE, C_TILE, GOODS

DISPLAY = ("G1", "G3", "F3", "H1")  # slot 1 … 4: FOOD 7, FOOD 3, RES 1 stone, FOOD 4
TOPS = ("B01", "B10", "B14", "B22")


def card(cid: str) -> int:
    return CARD_IDS.index(cid)


def building(bid: str) -> int:
    return BUILDING_IDS.index(bid)


def tile_with_back(back: str, skip: int = 0) -> int:
    """The index of the (skip+1)-th shipped tile whose back shows ``back``."""
    found = [i for i, row in enumerate(RECONSTRUCTED_TILES.table) if GOODS[row[0]] == back]
    return found[skip]


def new(n: int = 2, display=DISPLAY, tops=TOPS, mammoth: bool = False, tile: int | None = None,
        next_back: str = "stone", **options):
    """A game of ``n`` players dealt ``display`` (slots 1-4) and ``tops`` (stacks 1-n); with
    ``mammoth`` the first tile is ``tile`` (default: M06, clay) and the next back
    ``next_back``. Returns the state at the first placement."""
    game = SA.StoneAgeGame(n, mammoth_herd=mammoth, **options)
    s = game.new_initial_state()
    for c in display:
        s.apply_action(C_CARD + card(c))
    for b in tops[:n]:
        s.apply_action(C_BUILDING + building(b))
    if mammoth:
        t = 5 if tile is None else tile
        back = int(game.tile_table[t, 0])
        s.apply_action(C_BACK + back - 1)
        s.apply_action(C_TILE + t)
        s.apply_action(C_BACK + GOODS.index(next_back) - 1)
    assert s.decision() == "placement"
    return s


def do(s, *names: str) -> None:
    for name in names:
        s.apply_action(SA.string_to_action(name))


def roll(s, *faces: int) -> None:
    for f in faces:
        assert s.is_chance_node(), s.decision()
        s.apply_action(C_DIE + f - 1)


def deal(s, cid: str) -> None:
    s.apply_action(C_CARD + card(cid))


def turn(s, bid: str) -> None:
    s.apply_action(C_BUILDING + building(bid))


def names(s) -> list[str]:
    return [SA.action_to_string(a) for a in s.legal_actions()]


def kinds(s) -> list[str]:
    """The events of the last step, by kind."""
    return [e.kind for e in s.last_events()]


def states_with_secrets(n: int, games: int, seed: int):
    """States of random games (with the expansion: its civ-card bonus draws face down too)
    where some seat holds a face-down card, one in two hundred taken."""
    game = SA.StoneAgeGame(n, mammoth_herd=True)
    out = []
    for g in range(games):
        rng = random.Random(derive_seed(seed, n, g))
        st = game.new_initial_state()
        while not st.is_terminal():
            st.apply_action(st.sample_chance(rng) if st.is_chance_node()
                            else rng.choice(st.legal_actions()))
            if st.secret.sum() and rng.random() < 0.005:
                out.append(st.clone())
    return out


def swap_secret(st, q: int):
    """A twin of ``st`` built by hand (not by resample_hidden): one of seat ``q``'s face-down
    cards exchanged with another card of the deck, in the position only; None if none can."""
    mine = [c for c, k in enumerate(st.secret[q].tolist()) if k]
    deck = [c for c, k in enumerate(st.deck.tolist()) if k and c not in mine]
    if not mine or not deck:
        return None
    twin = st.clone()
    old, new = mine[0], deck[0]
    for part in (twin.cards[q], twin.secret[q]):
        part[old] -= 1
        part[new] += 1
    twin.deck[new] -= 1
    twin.deck[old] += 1
    return twin
