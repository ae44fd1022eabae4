"""The greedy agent of Druids (kind ``greedy`` for ``game="druids"``): a documented heuristic
that reads only what its seat knows (D14), never another hand or a face-down card it did not
play.

**The estimate of a place.** For a place in the row it simulates the sharing out (D5, D6) as
the seat sees it: its own gems on the place count at their value when of the place's colour
(0 otherwise), every other face-down gem counts :data:`UNKNOWN_GEM` amulets (its expected worth);
its own servants count at their value, every other servant at :data:`UNKNOWN_SERVANT`; servants
take lowest value first (ties in play order), each its value, the last all that remain. The
place's worth to the seat is its own servants' take minus the best opponent's take.

**Its choices.**

* Collect (D4): the collectable place of the highest worth, if that worth is positive (else
  nothing): it collects where its servants take the most.
* Play (D8): the card whose play raises the worth of its place the most (the worth after minus
  the worth before). So it plays gems of a place's colour where its servants sit (and lead),
  keeps them away from places its opponents lead, and puts a servant, high values first, under
  the place where a servant of its own would take the most; a servant costs
  :data:`SERVANT_COST` (it is away from the hand until that place is collected), an off-colour gem
  is worth nothing anywhere.
* Discard (D9): the lowest gem whose colour is that of no place in the row (it cannot score
  now); nothing when every gem can.
* Draw (D10): a balance: a servant while it holds fewer than :data:`SERVANTS_WANTED` servants
  (and its set has one), else a gem.

Ties are broken from the agent's seed, so the same seed gives the same game.
"""

from __future__ import annotations

from druids_env.engine import actions as A
from druids_env.engine import rules
from druids_env.engine.cards import (
    ROW_SIZE,
    gem_colour,
    gem_value,
    is_gem,
    place_colour,
    servant,
    servant_owner,
    servant_value,
)
from meduris_rl.agents.base import Agent

UNKNOWN_GEM = 2.0  # expected amulets of a face-down gem of another player
UNKNOWN_SERVANT = 3.5  # expected value of another player's servant
SERVANT_COST = 1.0  # what a servant on the table costs its owner's hand
SERVANTS_WANTED = 2  # servants it keeps in hand when drawing


def place_worth(st, seat: int, slot: int, gem: int | None = None,
                servant: int | None = None) -> float:
    """The seat's take minus the best opponent's take of the place at ``slot`` if it were
    shared out now, as the seat knows it (with ``gem`` or ``servant`` of its hand added)."""
    colour = place_colour(st.row[slot])
    amulets = 0.0
    for card, owner in st.above[slot]:
        if owner == seat:
            amulets += gem_value(card) if gem_colour(card) == colour else 0
        else:
            amulets += UNKNOWN_GEM
    if gem is not None and gem_colour(gem) == colour:
        amulets += gem_value(gem)
    servants = [(servant_value(c) if servant_owner(c) == seat else UNKNOWN_SERVANT, i,
                 servant_owner(c)) for i, c in enumerate(st.under[slot])]
    if servant is not None:
        servants.append((servant_value(servant), len(servants), seat))
    take = [0.0] * st.game.num_players
    servants.sort()
    for k, (value, _, owner) in enumerate(servants):
        got = amulets if k == len(servants) - 1 else min(value, amulets)
        take[owner] += got
        amulets -= got
    best_other = max((t for s, t in enumerate(take) if s != seat), default=0.0)
    return take[seat] - best_other


class DruidsGreedyAgent(Agent):
    """The documented Druids heuristic (see the module docstring)."""

    def act(self, observation, state) -> int:
        legal = state.legal_actions()
        phase = state.phase
        if phase == rules.P_COLLECT:
            return self.collect(state, legal)
        if phase == rules.P_PLAY:
            return self.play(state, legal)
        if phase == rules.P_DISCARD:
            return self.discard(state, legal)
        return self.draw(state, legal)

    def best(self, scored: list[tuple[float, int]]) -> int:
        """The action of the highest score, ties broken from the seed."""
        top = max(score for score, _ in scored)
        tied = [a for score, a in scored if score >= top - 1e-9]
        return tied[self.rng.randrange(len(tied))]

    def collect(self, st, legal: list[int]) -> int:
        seat = st.current_player()
        scored = [(place_worth(st, seat, a - A.A_COLLECT), a) for a in legal
                  if a != A.A_NO_COLLECT]
        if not scored or max(s for s, _ in scored) <= 0:
            return A.A_NO_COLLECT
        return self.best(scored)

    def play(self, st, legal: list[int]) -> int:
        return self.best(_play_gains(st, st.current_player(), legal))

    def discard(self, st, legal: list[int]) -> int:
        colours = {place_colour(p) for p in st.row if p >= 0}
        useless = [(gem_value(a - A.A_DISCARD), a) for a in legal
                   if a != A.A_NO_DISCARD and gem_colour(a - A.A_DISCARD) not in colours]
        return min(useless)[1] if useless else A.A_NO_DISCARD

    def draw(self, st, legal: list[int]) -> int:
        held = sum(1 for c in st.hands[st.current_player()] if not is_gem(c))
        if A.A_DRAW_SERVANT in legal and (held < SERVANTS_WANTED or A.A_DRAW_GEM not in legal):
            return A.A_DRAW_SERVANT
        return A.A_DRAW_GEM if A.A_DRAW_GEM in legal else legal[0]


# --- the heuristic as a value per action (the PPO network's greedy inputs) ----------------------
NO_COLLECT_EDGE = 1e-6  # collecting nothing wins ties at worth 0, as :meth:`collect` does


def action_values(st) -> dict[int, float]:
    """The heuristic's score of every legal action of the seat to move, on one scale per
    decision (amulets of place worth; for a discard or a draw, its order of preference): the
    action :class:`DruidsGreedyAgent` plays has the highest score (ties aside). Used as the
    residual policy's greedy inputs (:mod:`meduris_rl.agents.druids.features`)."""
    seat = st.current_player()
    legal = st.legal_actions()
    phase = st.phase
    if phase == rules.P_COLLECT:
        return {a: NO_COLLECT_EDGE if a == A.A_NO_COLLECT else place_worth(st, seat,
                                                                           a - A.A_COLLECT)
                for a in legal}
    if phase == rules.P_PLAY:
        return dict((a, gain) for gain, a in _play_gains(st, seat, legal))
    if phase == rules.P_DISCARD:
        colours = {place_colour(p) for p in st.row if p >= 0}
        values = {}
        for a in legal:
            if a == A.A_NO_DISCARD:
                values[a] = 0.0
            else:  # a useless gem, lowest first, beats keeping; a gem that can score does not
                g = a - A.A_DISCARD
                useless = gem_colour(g) not in colours
                values[a] = (1.0 if useless else -1.0) - 0.1 * gem_value(g)
        return values
    held = sum(1 for c in st.hands[seat] if not is_gem(c))
    wants_servant = held < SERVANTS_WANTED or A.A_DRAW_GEM not in legal
    return {a: (1.0 if (a == A.A_DRAW_SERVANT) == wants_servant else 0.0) for a in legal}


def _play_gains(st, seat: int, legal: list[int]) -> list[tuple[float, int]]:
    """(gain, action) of every card play (see :meth:`DruidsGreedyAgent.play`)."""
    before = [place_worth(st, seat, s) if st.row[s] >= 0 else 0.0 for s in range(ROW_SIZE)]
    scored = []
    for a in legal:
        is_a_gem, what, slot = A.decode_play(a)
        if is_a_gem:
            gain = place_worth(st, seat, slot, gem=what) - before[slot]
        else:
            gain = (place_worth(st, seat, slot, servant=servant(seat, what)) - before[slot]
                    - SERVANT_COST)
        scored.append((gain, a))
    return scored
