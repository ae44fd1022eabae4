"""Sampling chance events (die, bonus chips, starting player) from a seeded ``random.Random``.

Environments resolve chance themselves (the agents only ever see decision nodes); this is the one
sampler they share, so the same seed gives the same dice in the AEC env, the single-agent wrapper
and tournaments. The distributions are those of :class:`~meduris_env.engine.state.State`.
"""

from __future__ import annotations

import random

from .constants import C_DIE, C_START, PH_CHIPS, PH_START


def sample_chance(state, rng: random.Random) -> int:
    """One outcome id of the chance node ``state``, drawn with the rules' probabilities."""
    phase = state.phase
    if phase == PH_CHIPS:
        outcomes = state.chance_outcomes()
        return rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0]
    if phase == PH_START:
        return C_START + rng.randrange(state.game.num_players)
    return C_DIE + rng.randrange(6)  # R7: six equally likely faces
