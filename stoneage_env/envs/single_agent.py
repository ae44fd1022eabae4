"""One learning seat of Stone Age as a ``gymnasium.Env``, the other seats played by opponents.

>>> from stoneage_env.envs import StoneAgeSingleAgentEnv
>>> env = StoneAgeSingleAgentEnv(num_players=2, opponents="random", seat="random")
>>> obs, info = env.reset(seed=0)
>>> obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

For stable-baselines3 and sb3-contrib's ``MaskablePPO``: the **observation** is the learner's
vector (what it knows, rules section 3), the legal-action mask is ``action_masks()`` and
``info["action_mask"]``; the **action** space is ``Discrete(100)`` whose ``sample()`` plays a
legal action; the **reward** is the engine's ``returns()`` for the learner at the end;
``terminated`` when the game ends by a rule (S30), ``truncated`` at ``max_rounds`` (X20;
``truncation_reward`` as in the AEC env). ``illegal_action="raise"`` (default) raises
:class:`~stoneage_env.engine.errors.IllegalActionError` on an illegal action and changes
nothing; ``"terminate"`` ends the episode there with -1 for the learner (what gymnasium's
``check_env`` needs: its determinism check plays an action sampled in one game in another).

**Opponents**, one per other seat (a list in seat order from the learner on) or one for all:
``"random"``, an object with ``act(observation, state)`` (the seat's own ``{"observation",
"action_mask"}`` and the live engine state: read or ``clone()`` it, never change it) or a
callable ``f(obs, mask) -> action``. ``seat`` is the learner's seat or ``"random"``.
Registered as ``gymnasium.make("stoneage_env/StoneAge-v0", num_players=..., opponents=...)``.
"""

from __future__ import annotations

from meduris_rl.kit.envs.simple import SimpleSingleAgentEnv

from .common import VIEWS


class StoneAgeSingleAgentEnv(SimpleSingleAgentEnv):
    """Stone Age for one learner against fixed opponents (see the module docstring)."""

    views = VIEWS
