"""The training environment of Druids (``meduris train --game druids``): the game-neutral league
trainer (:mod:`meduris_rl.train.league`) on :class:`druids_env.DruidsSingleAgentEnv`, with Druids'
features (:mod:`meduris_rl.agents.druids.features`: the D14 observation scaled, plus the greedy
heuristic's judgement of each action for ``obs+greedy``) and the amulet margin's shaping (D13:
winners share +1; amulets are taken openly, D6). The row's parts ``train_env``, ``win_rate`` and
``train_check`` are this module's.
"""

from __future__ import annotations

from druids_env import DruidsSingleAgentEnv
from meduris_rl.agents.druids.features import FEATURE_SETS, feature_set_of_size, features
from meduris_rl.agents.druids.ppo import policy_action
from meduris_rl.train.config import TrainConfig
from meduris_rl.train.league import LeagueGame, LeagueTrainingEnv, evaluate, refuse_league_settings

DRUIDS = LeagueGame("druids", DruidsSingleAgentEnv, FEATURE_SETS, features, feature_set_of_size,
                    policy_action, margin_scale=10.0)


class DruidsTrainingEnv(LeagueTrainingEnv):
    """``envs`` games of Druids for sb3 with the league."""

    def __init__(self, cfg: TrainConfig):
        super().__init__(DRUIDS, cfg)


def evaluate_druids(policy, players: int, games: int, seed: int,
                    opponent: str = "greedy", options: dict | None = None) -> float:
    """Win rate of ``policy`` against ``opponent`` in every other seat (D13: shared wins a
    share) in games with ``options``, :func:`meduris_rl.train.league.evaluate`."""
    return evaluate(DRUIDS, policy, players, games, seed, opponent, options)


def check_config(cfg: TrainConfig) -> None:
    """What a Druids run cannot do, one line each (the ``train_check`` part of the row)."""
    refuse_league_settings(cfg, "'win' (D13's result; shaping adds the amulet margin)")


def win_rate(cfg: TrainConfig, model, arch: dict, opponent: str, games: int) -> float:
    """The ``win_rate`` part of the game's row: :func:`evaluate_druids` of the model's
    policy."""
    return evaluate_druids(model.policy, cfg.players, games, cfg.seed, opponent, cfg.options)
