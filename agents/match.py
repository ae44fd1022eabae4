"""Playing one game between agents, reproducibly from a seed."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

import numpy as np

from meduris_env import IllegalActionError, MedurisGame
from meduris_env.chance import sample_chance
from meduris_env.constants import END_NAMES
from meduris_env.observation import observe_state

from .base import Agent


def derive_seed(*parts: int) -> int:
    """A 31-bit seed from integers (stable across runs and platforms)."""
    return int(np.random.SeedSequence([int(p) for p in parts]).generate_state(1)[0] >> 1)


@dataclass
class GameResult:
    seed: int
    agents: list[str]  # agent label per seat
    vp: list[int]
    winners: list[int]  # seats (R26; several on a shared win)
    ranks: list[int]  # per seat, 1 = best by R26 (VP, buildings, materials); ties share
    turns: int
    decisions: int
    end_reason: str
    seconds_per_seat: list[float] = field(default_factory=list)
    decisions_per_seat: list[int] = field(default_factory=list)
    max_seconds_per_decision: list[float] = field(default_factory=list)
    history: list[int] | None = None


def play_game(game: MedurisGame, agents: list[Agent], seed: int, labels: list[str] | None = None,
              keep_history: bool = False) -> GameResult:
    """Play one game: chance from ``random.Random(seed)``, each agent reset with a seed derived
    from ``seed`` and its seat. An illegal action from an agent raises IllegalActionError
    naming the agent."""
    n = game.num_players
    if len(agents) != n:
        raise ValueError(f"{n} players need {n} agents, got {len(agents)}")
    rng = random.Random(seed)
    for seat, agent in enumerate(agents):
        agent.reset(derive_seed(seed, seat + 1))
    state = game.new_initial_state()
    spent = [0.0] * n
    longest = [0.0] * n
    made = [0] * n
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
            continue
        seat = state.current_player()
        agent = agents[seat]
        obs = observe_state(state, seat) if agent.uses_observation else None
        t0 = time.perf_counter()
        action = agent.act(obs, state)
        took = time.perf_counter() - t0
        spent[seat] += took
        longest[seat] = max(longest[seat], took)
        made[seat] += 1
        try:
            state.apply_action(action, seat)
        except IllegalActionError as err:
            raise IllegalActionError(f"agent {agent.name} at seat {seat}: {err}") from None
        decisions += 1
    keys = [(int(state.vp[s]), int(state.buildings_built()[s]), int(state.materials[s].sum()))
            for s in range(n)]
    ranks = [1 + sum(other > mine for other in keys) for mine in keys]
    return GameResult(seed=seed, agents=labels or [a.name for a in agents],
                      vp=state.scores().tolist(), winners=state.winners(), ranks=ranks,
                      turns=state.turn,
                      decisions=decisions, end_reason=END_NAMES[state.end_reason],
                      seconds_per_seat=spent, decisions_per_seat=made,
                      max_seconds_per_decision=longest,
                      history=state.history() if keep_history else None)
