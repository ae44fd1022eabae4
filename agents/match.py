"""Playing one game between agents, reproducibly from a seed."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from meduris_env import MedurisGame
from meduris_env.engine.constants import END_NAMES
from meduris_env.engine.loop import Observer, play
from meduris_env.engine.seeding import derive_seed
from meduris_env.engine.state import State
from meduris_env.envs.observation import observe_state
from meduris_env.records.record import GameRecord

from .base import Agent, GameAbandoned


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

    def decide(state: State, seat: int) -> int:
        agent = agents[seat]
        obs = observe_state(state, seat) if agent.uses_observation else None
        t0 = time.perf_counter()
        action = agent.act(obs, state)
        took = time.perf_counter() - t0
        spent[seat] += took
        longest[seat] = max(longest[seat], took)
        made[seat] += 1
        return action

    abandoned = False
    try:
        play(state, decide, rng, observer=observer,
             who=lambda seat: f"agent {agents[seat].name} at seat {seat}")
    except GameAbandoned:
        abandoned = True
    labels = labels or [a.name for a in agents]
    record = GameRecord.from_state(state, labels, seed, meta).to_dict() if keep_record else None
    return GameResult(seed=seed, agents=labels,
                      vp=state.scores().tolist(), winners=state.winners(),
                      ranks=state.ranks().tolist(), turns=state.turn, decisions=sum(made),
                      end_reason="abandoned" if abandoned else END_NAMES[state.end_reason],
                      seconds_per_seat=spent, decisions_per_seat=made,
                      max_seconds_per_decision=longest,
                      history=state.history() if keep_history else None, record=record)
