"""Playing one game between agents, reproducibly from a seed."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from meduris_env import IllegalActionError, MedurisGame
from meduris_env.chance import sample_chance
from meduris_env.constants import END_NAMES
from meduris_env.observation import observe_state
from meduris_env.record import GameRecord
from meduris_env.state import State

from .base import Agent, GameAbandoned


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
    record: dict | None = None  # GameRecord.to_dict(), when asked for


# called after every action: (state after it, seat that chose it or -1 for chance, action)
Observer = Callable[[State, int, int], None]


def play_game(game: MedurisGame, agents: list[Agent], seed: int, labels: list[str] | None = None,
              keep_history: bool = False, keep_record: bool = False,
              observer: Observer | None = None, meta: dict | None = None) -> GameResult:
    """Play one game: chance from ``random.Random(seed)``, each agent reset with a seed derived
    from ``seed`` and its seat. An illegal action from an agent raises IllegalActionError
    naming the agent. An agent raising :class:`~agents.base.GameAbandoned` ends the game where
    it stands (``end_reason`` "abandoned"; the record, if kept, is of the unfinished game)."""
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
    abandoned = False
    while not state.is_terminal():
        if state.is_chance_node():
            action = sample_chance(state, rng)
            state.apply_action(action)
            if observer is not None:
                observer(state, -1, action)
            continue
        seat = state.current_player()
        agent = agents[seat]
        obs = observe_state(state, seat) if agent.uses_observation else None
        t0 = time.perf_counter()
        try:
            action = agent.act(obs, state)
        except GameAbandoned:
            abandoned = True
            break
        took = time.perf_counter() - t0
        spent[seat] += took
        longest[seat] = max(longest[seat], took)
        made[seat] += 1
        try:
            state.apply_action(action, seat)
        except IllegalActionError as err:
            raise IllegalActionError(f"agent {agent.name} at seat {seat}: {err}") from None
        decisions += 1
        if observer is not None:
            observer(state, seat, action)
    keys = [(int(state.vp[s]), int(state.buildings_built()[s]), int(state.materials[s].sum()))
            for s in range(n)]
    ranks = [1 + sum(other > mine for other in keys) for mine in keys]
    labels = labels or [a.name for a in agents]
    record = GameRecord.from_state(state, labels, seed, meta).to_dict() if keep_record else None
    return GameResult(seed=seed, agents=labels,
                      vp=state.scores().tolist(), winners=state.winners(), ranks=ranks,
                      turns=state.turn,
                      decisions=decisions,
                      end_reason="abandoned" if abandoned else END_NAMES[state.end_reason],
                      seconds_per_seat=spent, decisions_per_seat=made,
                      max_seconds_per_decision=longest,
                      history=state.history() if keep_history else None, record=record)
