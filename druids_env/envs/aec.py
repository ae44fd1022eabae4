"""Druids as a PettingZoo AEC environment (turn-based, with action masks).

>>> from druids_env.envs import env
>>> e = env(num_players=3)
>>> e.reset(seed=7)
>>> for agent in e.agent_iter():
...     obs, reward, terminated, truncated, info = e.last()
...     done = terminated or truncated
...     e.step(None if done else e.action_space(agent).sample(obs["action_mask"]))

**Agents** ``player_0`` .. ``player_{n-1}``: the seats (D2; seat 0 starts, D3 ruling).
``agent_selection`` is whoever must decide next (collect, play, discard, draw: D4-D10); the
engine takes decisions with a single legal action itself.

**Actions** ``Discrete(424)``, the engine's player actions (docs/druids.md). Illegal actions
raise :class:`~druids_env.engine.errors.IllegalActionError` and change nothing (or, with
``illegal_action="terminate"``, end the game with -1 for the offender). ``sample()`` without a
mask draws a legal action (:class:`meduris_rl.kit.envs.spaces.LegalActionSpace`).

**Observations** ``Dict(observation=Box(0, high, (857,), float32), action_mask=Box(0, 1, (424,),
int8))``: what that agent knows (D14, :func:`druids_env.engine.observation_tensor`), never
another hand or a face-down card it did not play. The mask is zero for agents not to move.

**Rewards** at the end only: the engine's ``returns()`` (D13: winners share +1, the others
-1). **Termination** when the game ends by the rules (D11, D12); **truncation** at
``max_turns`` (default 500): ``truncation_reward="none"`` pays nothing then, ``"standings"`` the
returns on the standings. ``max_cycles=k``: each agent makes at most k decisions, after which
it is truncated and the environment plays its seat (random legal actions from the seeded
stream), as PettingZoo's ``max_cycles_test`` expects.

Chance (deals, draws, places revealed) is sampled inside the environment from
``reset(seed=...)``: the same seed and actions give the same game. ``reset(options={"state":
s})`` starts from a :class:`~druids_env.engine.state.DruidsState` of the same game.
``render_mode="ansi"`` returns, ``"human"`` prints, the view of the agent to move (or
``render_seat``): its own hand only.
"""

from __future__ import annotations

from pettingzoo import AECEnv

from meduris_rl.kit.envs.simple import SimpleAEC, aec_metadata
from meduris_rl.kit.envs.turn_based import agent_name, wrap_aec

from .common import VIEWS

__all__ = ["agent_name", "env", "raw_env"]


class raw_env(SimpleAEC):
    """Druids, unwrapped (see the module docstring)."""

    metadata = aec_metadata("druids")
    views = VIEWS


def env(illegal_action: str = "raise", **kwargs) -> AECEnv:
    """The Druids AEC environment wrapped like PettingZoo's classic ones (keyword arguments:
    :class:`raw_env`'s; ``illegal_action="terminate"`` adds ``TerminateIllegalWrapper``)."""
    return wrap_aec(raw_env, illegal_action, **kwargs)
