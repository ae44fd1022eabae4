"""What every game's environments share beyond the turn-based cores: the render modes and the
text view, the reward at the end of a truncated game, the seed check, and the simple opponents
a single-agent environment takes (``"random"``, an object with ``act(observation, state)``, a
callable ``f(obs, mask)``). A game's ``envs/common.py`` binds them to its own observation
(Druids' and Stone Age's do)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from meduris_rl.kit.envs.opponents import OpponentError
from meduris_rl.kit.values import SEED_MAX, check_choice, check_int, excerpt

RENDER_MODES = ("human", "ansi")
TRUNCATION_REWARDS = ("none", "standings")

OpponentSpec = Any  # "random", an object with act(observation, state), a callable f(obs, mask)


def check_render_mode(mode: str | None) -> str | None:
    if mode is not None:
        check_choice("render_mode", mode, RENDER_MODES, " or None")
    return mode


def render_text(text: str | None, mode: str | None) -> str | None:
    """A seat's view in words: returned for ``"ansi"``, printed for ``"human"``."""
    if mode is None or text is None:
        return None
    if mode == "human":
        print(text)
        return None
    return text


def check_truncation_reward(value: str) -> str:
    return check_choice("truncation_reward", value, TRUNCATION_REWARDS)


def final_rewards(state, truncation_reward: str) -> list[float]:
    """The terminal reward per seat: the engine's ``returns()``, or zeros at a cut by the
    game's limit unless ``truncation_reward == "standings"``."""
    if state.is_truncated() and truncation_reward == "none":
        return [0.0] * state.game.num_players
    return [float(r) for r in state.returns()]


def check_seed(seed) -> int | None:
    return None if seed is None else check_int("seed", seed, 0, SEED_MAX)


def check_simple_opponent(spec: Any, game: str) -> Any:
    """``spec`` if a single-agent env can use it: ``"random"``, an object with
    ``act(observation, state)`` or a callable ``f(obs, mask) -> action``; ``game`` names the
    game in the hint for agent names."""
    if isinstance(spec, str):
        if spec == "random":
            return spec
        raise OpponentError(f"opponent {excerpt(spec)}: an environment takes 'random', an object "
                            "with act(observation, state) or a callable f(obs, mask), not "
                            "names; build agents with the agents layer "
                            f"(make_agent({excerpt(spec)}, {game!r}))")
    if callable(getattr(spec, "act", None)) or callable(spec):
        return spec
    raise OpponentError("an opponent is 'random', an object with act(observation, state) or a "
                        f"callable f(obs, mask) -> action; got {excerpt(spec)}")


def simple_opponent_decision(spec: Any, state, seat: int, pick: Callable[[list[int]], int],
                             observe: Callable[[Any, int], dict]) -> int:
    """The action of opponent ``spec`` at ``seat`` (``pick`` chooses among the legal actions
    for ``"random"``; ``observe(state, seat)`` is the game's observation)."""
    if isinstance(spec, str):
        return pick(state.legal_actions())
    view = observe(state, seat)
    if callable(getattr(spec, "act", None)):
        return spec.act(view, state)
    return spec(view["observation"], view["action_mask"])


def simple_opponent_label(spec: Any) -> str:
    if isinstance(spec, str):
        return spec
    return str(getattr(spec, "name", type(spec).__name__))
