"""One learning seat of Druids as a ``gymnasium.Env``, the other seats played by opponents.

>>> from druids_env.envs import DruidsSingleAgentEnv
>>> env = DruidsSingleAgentEnv(num_players=2, opponents="random", seat="random")
>>> obs, info = env.reset(seed=0)
>>> obs, reward, terminated, truncated, info = env.step(env.action_space.sample())

For stable-baselines3 and sb3-contrib's ``MaskablePPO``: the **observation** is the learner's
D14 vector (``Box(0, high, (857,), float32)``), the legal-action mask is ``action_masks()`` and
``info["action_mask"]``; the **action** space is ``Discrete(424)`` whose ``sample()`` plays a
legal action (:class:`meduris_rl.kit.envs.spaces.LegalActionSpace`); the **reward** is the engine's
``returns()`` for the learner at the end (D13); ``terminated`` when the game ends by the rules,
``truncated`` at ``max_turns`` (``truncation_reward`` as in the AEC env).
``illegal_action="raise"`` (default) raises :class:`~druids_env.engine.errors.IllegalActionError`
on an illegal action and changes nothing; ``"terminate"`` ends the episode there with -1 for
the learner (for algorithms without masks, as PettingZoo's ``TerminateIllegalWrapper``; also
what gymnasium's ``check_env`` needs: its step-determinism check samples an action in one game
and plays it in another, and which actions are legal depends on the cards dealt).

**Opponents**, one per other seat (a list in seat order from the learner on) or one for all:
``"random"`` (uniform over the legal actions, from the env's seeded stream), an object with
``act(observation, state)`` (``observation`` is the seat's own ``{"observation",
"action_mask"}``, ``state`` the live engine state: read or ``clone()`` it, never change it), or
a callable ``f(obs, mask) -> action`` (the seat's own vector and int8 mask, e.g. a policy
network). Objects with ``reset(seed)`` are reset every episode with a seed derived from the
episode's. ``seat`` is the learner's seat or ``"random"`` (drawn each episode).
Registered as ``gymnasium.make("druids_env/Druids-v0", num_players=..., opponents=...)``.
"""

from __future__ import annotations

from meduris_rl.kit.envs.simple import SimpleSingleAgentEnv

from .common import VIEWS


class DruidsSingleAgentEnv(SimpleSingleAgentEnv):
    """Druids for one learner against fixed opponents (see the module docstring)."""

    views = VIEWS
