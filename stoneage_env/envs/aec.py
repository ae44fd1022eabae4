"""Stone Age as a PettingZoo AEC environment (turn-based, with action masks).

>>> from stoneage_env.envs import env
>>> e = env(num_players=3, mammoth_herd=True)
>>> e.reset(seed=7)
>>> for agent in e.agent_iter():
...     obs, reward, terminated, truncated, info = e.last()
...     done = terminated or truncated
...     e.step(None if done else e.action_space(agent).sample(obs["action_mask"]))

**Agents** ``player_0`` .. ``player_{n-1}``: the seats (S1; seat 0 starts, S7).
``agent_selection`` is whoever must decide next (a placement, a location to resolve, tools, a
payment, a die to pick, a Mammoth move ...: C1-C11); the engine takes decisions with a single
legal action itself, and chance (dice, cards, buildings, Mammoth tiles) is sampled inside.

**Actions** ``Discrete(100)``, the engine's player actions (docs/stone_age.md, "Action
space"). Illegal actions raise :class:`~stoneage_env.engine.errors.IllegalActionError` and
change nothing (or, with ``illegal_action="terminate"``, end the game with -1 for the
offender). ``sample()`` without a mask draws a legal action.

**Observations** ``Dict(observation=Box((OBS_SIZE,), float32), action_mask=Box(0, 1, (100,),
int8))``: what that agent knows (rules section 3: never another seat's face-down card). The
mask is zero for agents not to move.

**Rewards** at the end only: the engine's ``returns()`` (winners share +1, the others -1).
**Termination** when the game ends by a rule (S30); **truncation** at ``max_rounds`` (X20,
default 100): ``truncation_reward="none"`` pays nothing then, ``"standings"`` the returns on
the scores. ``max_cycles=k``: each agent makes at most k decisions, after which it is truncated
and the environment plays its seat (random legal actions from the seeded stream).

The same ``reset(seed=...)`` and actions give the same game. ``reset(options={"state": s})``
starts from a :class:`~stoneage_env.engine.state.StoneAgeState` of the same game.
``render_mode="ansi"`` returns, ``"human"`` prints, the view of the agent to move (or
``render_seat``).
"""

from __future__ import annotations

from pettingzoo import AECEnv

from meduris_rl.kit.envs.simple import SimpleAEC, aec_metadata
from meduris_rl.kit.envs.turn_based import agent_name, wrap_aec

from .common import VIEWS

__all__ = ["agent_name", "env", "raw_env"]


class raw_env(SimpleAEC):
    """Stone Age, unwrapped (see the module docstring)."""

    metadata = aec_metadata("stone_age")
    views = VIEWS


def env(illegal_action: str = "raise", **kwargs) -> AECEnv:
    """The Stone Age AEC environment wrapped like PettingZoo's classic ones (keyword
    arguments: :class:`raw_env`'s; ``illegal_action="terminate"`` adds
    ``TerminateIllegalWrapper``)."""
    return wrap_aec(raw_env, illegal_action, **kwargs)
