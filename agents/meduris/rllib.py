"""An agent playing a policy trained with RLlib (``meduris rllib-train``,
``train/meduris/rllib_ppo.py``, on :mod:`meduris_env.envs.rllib`'s environment):
``rllib:<checkpoint>``.

The checkpoint is the folder a run writes (``runs/rllib_2p/checkpoint``: RLlib's
``Algorithm.save_to_path`` layout plus ``meduris.json``, which says which RLModule plays each
seat). The agent loads the trained RLModule(s) with ``RLModule.from_checkpoint`` from
``learner_group/learner/rl_module/<module>``: torch and the ``ray`` package, no Ray cluster
(nothing is started). It plays the module's most probable legal action: the observation
vector scaled into [0, 1] by ``observation_high`` as in training, the logits masked with the
legal actions. A shared policy plays any seat and player count; a run with one policy per seat
plays the seats it was trained for.

RLlib checkpoints are pickles (loading one can run code): load only checkpoints you trust, such
as your own runs.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from meduris_env.envs.observation import observation_high
from meduris_env.envs.rllib import agent_id
from meduris_rl.agents.base import Agent, UnknownAgentError
from meduris_rl.kit.jsonfile import read_json_file

META_FILE = "meduris.json"
META_FORMAT = "meduris-rllib/1"
MODULES_DIR = ("learner_group", "learner", "rl_module")


def read_checkpoint_meta(path: Path, name: str = "rllib", error=None) -> dict:
    """The run's ``meduris.json`` in checkpoint folder ``path``, checked; what is wrong is
    raised as UnknownAgentError naming the agent ``name``, or as ``error(message)`` (the
    trainer's own error) when given."""
    def fail(message: str):
        return error(message) if error else UnknownAgentError(f"agent {name!r}: {message}")

    if not path.is_dir():
        raise fail(f"no RLlib checkpoint at {path}; train one with `meduris rllib-train "
                   "--out RUN` and give RUN/checkpoint")
    try:
        meta = read_json_file(path / META_FILE, ValueError, META_FILE)  # (bounded)
    except (OSError, ValueError, RecursionError):
        raise fail(f"{path} is not a checkpoint of meduris_rl.train.meduris.rllib_ppo (no "
                   f"readable {META_FILE}); "
                   "give the checkpoint folder of a run (RUN/checkpoint)") from None
    if not isinstance(meta, dict) or meta.get("format") != META_FORMAT or not isinstance(
            meta.get("modules"), dict):
        found = meta.get("format") if isinstance(meta, dict) else None
        raise fail(f"{path / META_FILE}: format {found!r}, expected {META_FORMAT!r}; retrain "
                   "with this version of meduris_rl.train.meduris.rllib_ppo")
    return meta


@contextmanager
def _quiet_deprecations():
    """RLlib's own action-masking example module derives from a class RLlib has deprecated;
    its warnings say nothing a player can act on, so they are kept out of tournament output."""
    log = logging.getLogger("ray._common.deprecation")
    level = log.level
    log.setLevel(logging.ERROR)
    try:
        yield
    finally:
        log.setLevel(level)


def load_module(path: Path, name: str = "rllib"):
    """The RLModule saved in ``path`` (a ``rl_module/<module id>`` folder), in eval mode."""
    try:
        with _quiet_deprecations():
            from ray.rllib.core.rl_module.rl_module import RLModule
    except ImportError:
        raise UnknownAgentError(f"agent {name!r} needs Ray's RLlib: install the extra: "
                                "pip install -e '.[ray]'") from None
    if not path.is_dir():
        raise UnknownAgentError(f"agent {name!r}: the checkpoint has no module at {path}; "
                                "pass the checkpoint folder of a finished iteration")
    try:
        with _quiet_deprecations():
            module = RLModule.from_checkpoint(str(path.resolve()))
    except Exception as err:  # RLlib raises many kinds; the user can only re-point the path
        raise UnknownAgentError(f"agent {name!r}: cannot load the RLModule at {path} "
                                f"({type(err).__name__}: {err}); pass the checkpoint of a "
                                "meduris_rl.train.meduris.rllib_ppo run made with this Ray "
                                "version") from None
    module.eval()
    return module


class RLlibAgent(Agent):
    """Plays the most probable legal action of a trained RLlib RLModule (deterministic)."""

    uses_observation = True

    def __init__(self, name: str, path: str | Path):
        super().__init__(name)
        if not str(path or "").strip():
            raise UnknownAgentError(f"agent {name!r}: write rllib:<checkpoint folder of a "
                                    "meduris_rl.train.meduris.rllib_ppo run>, e.g. "
                                    "rllib:runs/rllib_2p/checkpoint")
        self.path = Path(path)
        self.meta = read_checkpoint_meta(self.path, name)
        self.shared = bool(self.meta.get("shared", True))
        self.modules = dict(self.meta["modules"])  # agent_id(seat) -> module id
        base = self.path.joinpath(*MODULES_DIR)
        self._nets = {m: load_module(base / m, name) for m in sorted(set(self.modules.values()))}
        self._high: dict[int, np.ndarray] = {}

    def module_for(self, seat: int):
        """The RLModule playing ``seat``: the shared one, or the seat's own."""
        if self.shared:
            return next(iter(self._nets.values()))
        module = self.modules.get(agent_id(seat))
        if module is None:
            raise UnknownAgentError(
                f"agent {self.name!r}: its checkpoint has one policy per seat for "
                f"{self.meta.get('players')} players and none for seat {seat}; play it in "
                f"{self.meta.get('players')}-player games or train a shared policy")
        return self._nets[module]

    def logits(self, observation, state) -> np.ndarray:
        """The module's masked action logits (illegal actions at the float minimum)."""
        import torch
        from ray.rllib.core.columns import Columns

        turns = state.game.max_turns
        if turns not in self._high:
            self._high[turns] = observation_high(turns)
        vector = observation["observation"] / self._high[turns]
        mask = np.asarray(observation["action_mask"], dtype=np.float32)
        batch = {Columns.OBS: {"observations": torch.as_tensor(vector[None], dtype=torch.float32),
                               "action_mask": torch.as_tensor(mask[None])}}
        with torch.no_grad():
            out = self.module_for(state.current_player()).forward_inference(batch)
        return out[Columns.ACTION_DIST_INPUTS][0].cpu().numpy()

    def act(self, observation, state) -> int:
        logits = self.logits(observation, state)
        legal = np.asarray(observation["action_mask"]).astype(bool)
        return int(np.flatnonzero(legal)[np.argmax(logits[legal])])
