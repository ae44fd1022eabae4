"""Playing one game between agents, reproducibly from a seed.

A game ends at the end of the rules (R24, R25), when an agent quits
(:class:`~meduris_rl.agents.base.GameAbandoned`: ``end_reason`` "abandoned") or when an agent
forfeits (:class:`~meduris_rl.agents.base.Forfeit`, e.g. a subprocess bot that crashed, hung or
answered an illegal action: ``end_reason`` "forfeit"). A forfeit is scored as a loss for the
forfeiting seat: it ranks last (rank = the number of players, alone), the other seats keep their R26
order of the position where the game stopped (ranked among themselves: 1 = best), and the seats of
rank 1 win. ``GameResult.forfeit`` holds the reason ("" if none) and ``forfeit_seat`` the seat
(None). The VP are the position's. Every agent is told the result afterwards (``Agent.game_over``).

Any game of the table of games (:mod:`meduris_rl.kit.games`) is played the same way: its row says
how an agent observes a state and how its end reasons read; ``vp`` is then the game's score
(Druids' amulets) and ``ranks`` its ranking (D13).
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from meduris_rl.agents.base import CURRENT_GAME, Agent, Forfeit, GameAbandoned
from meduris_rl.kit.games import spec_of
from meduris_rl.kit.loop import Observer, play
from meduris_rl.kit.protocol import Game, State
from meduris_rl.kit.records import GameRecord, record_labels
from meduris_rl.kit.seeding import agent_seeds


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
    forfeit: str = ""  # why an agent forfeited the game ("" if none): see the module docstring
    forfeit_seat: int | None = None  # the seat that forfeited


def forfeit_ranks(ranks: list[int], seat: int) -> list[int]:
    """The ranks of a game that ``seat`` forfeited: it is last (alone), the others keep their
    order in ``ranks`` (R26), ranked among themselves (1 = best, ties share)."""
    n = len(ranks)
    return [n if s == seat else 1 + sum(1 for t, q in enumerate(ranks) if t != seat and q < r)
            for s, r in enumerate(ranks)]


def play_game(game: Game, agents: list[Agent], seed: int, labels: list[str] | None = None,
              keep_history: bool = False, keep_record: bool = False,
              observer: Observer | None = None, meta: dict | None = None,
              seeds: tuple[int, ...] | None = None) -> GameResult:
    """Play one game: chance from ``random.Random(seed)``, the agent at seat ``s`` reset with
    ``seeds[s]``: an arena run passes :func:`~meduris_rl.kit.seeding.agent_seeds` of its own seed,
    which do not lead to ``seed`` (fair against bots); None: ``agent_seeds(seed, -1, n)``, a
    one-way function of the game's seed (reproducible, but a bot able to search every 31-bit
    seed could find the game's). An illegal action from an agent raises IllegalActionError
    naming the agent. An agent raising :class:`~meduris_rl.agents.base.GameAbandoned` ends the game
    where it stands (``end_reason`` "abandoned"; the record, if kept, is of the unfinished game);
    one raising :class:`~meduris_rl.agents.base.Forfeit` ends it and loses it (``end_reason``
    "forfeit", see the module docstring; a kept record names the forfeit in its ``meta``)."""
    n = game.num_players
    if len(agents) != n:
        raise ValueError(f"{n} players need {n} agents, got {len(agents)}")
    labels = labels or [a.name for a in agents]
    if keep_record:  # a label a record cannot keep is refused now, not after the game
        record_labels(labels)
    if seeds is None:
        seeds = agent_seeds(seed, -1, n)
    elif len(seeds) != n:
        raise ValueError(f"{n} players need {n} agent seeds, got {len(seeds)}")
    told = CURRENT_GAME.set({"seed": seed, "game": (meta or {}).get("tournament_game")})
    try:
        return played(game, agents, seed, seeds, labels, keep_history, keep_record, observer,
                      meta)
    finally:
        CURRENT_GAME.reset(told)


def played(game: Game, agents: list[Agent], seed: int, seeds: tuple[int, ...],
           labels: list[str], keep_history: bool, keep_record: bool, observer: Observer | None,
           meta: dict | None) -> GameResult:
    """:func:`play_game` once its arguments are checked."""
    n = game.num_players
    spec = spec_of(game)
    rng = random.Random(seed)
    for seat, agent in enumerate(agents):
        agent.reset(seeds[seat])
    state = game.new_initial_state()
    spent = [0.0] * n
    longest = [0.0] * n
    made = [0] * n
    asked = [0]  # the seat last asked to decide

    def decide(state: State, seat: int) -> int:
        agent = agents[seat]
        asked[0] = seat
        obs = spec.observe(state, seat) if agent.uses_observation else None
        t0 = time.perf_counter()
        action = agent.act(obs, state)
        took = time.perf_counter() - t0
        spent[seat] += took
        longest[seat] = max(longest[seat], took)
        made[seat] += 1
        return action

    end_reason, forfeit, forfeit_seat = "", "", None
    try:
        play(state, decide, rng, observer=observer,
             who=lambda seat: f"agent {agents[seat].name} at seat {seat}")
    except Forfeit as err:
        end_reason, forfeit, forfeit_seat = "forfeit", err.reason, asked[0]
    except GameAbandoned:
        end_reason = "abandoned"
    ranks = [int(r) for r in state.ranks()]
    if forfeit_seat is not None:
        ranks = forfeit_ranks(ranks, forfeit_seat)
        meta = {**(meta or {}), "forfeit": forfeit, "forfeit_seat": forfeit_seat}
    record = GameRecord.from_state(state, labels, seed, meta).to_dict() if keep_record else None
    result = GameResult(seed=seed, agents=labels, vp=[int(v) for v in state.scores()],
                        winners=[s for s in range(n) if ranks[s] == 1], ranks=ranks,
                        turns=int(state.turn), decisions=sum(made),
                        end_reason=end_reason or spec.end_name(state),
                        seconds_per_seat=spent, decisions_per_seat=made,
                        max_seconds_per_decision=longest,
                        history=state.history() if keep_history else None, record=record,
                        forfeit=forfeit, forfeit_seat=forfeit_seat)
    for agent in agents:
        told = getattr(agent, "game_over", None)  # (any object with act and reset may play)
        if told is not None:
            told(result)
    return result
