"""The training environment of Stone Age (``meduris train --game stone_age``): the game-neutral
league trainer (:mod:`meduris_rl.train.league`) on :class:`stoneage_env.StoneAgeSingleAgentEnv`
with Stone Age's features (:mod:`meduris_rl.agents.stone_age.features`) and the point margin's
shaping (scores are public; winners share +1). The row's parts ``train_env``, ``win_rate`` and
``train_check`` are this module's.
"""

from __future__ import annotations

from meduris_rl.agents.stone_age.features import FEATURE_SETS, feature_set_of_size, features
from meduris_rl.agents.stone_age.ppo import policy_action
from meduris_rl.train.config import TrainConfig
from meduris_rl.train.league import LeagueGame, LeagueTrainingEnv, evaluate, refuse_league_settings
from stoneage_env import StoneAgeSingleAgentEnv

STONE_AGE = LeagueGame("stone_age", StoneAgeSingleAgentEnv, FEATURE_SETS, features,
                       feature_set_of_size, policy_action, margin_scale=40.0)


class StoneAgeTrainingEnv(LeagueTrainingEnv):
    """``envs`` games of Stone Age for sb3 with the league."""

    def __init__(self, cfg: TrainConfig):
        super().__init__(STONE_AGE, cfg)


def check_config(cfg: TrainConfig) -> None:
    """What a Stone Age run cannot do, one line each (the ``train_check`` part of the row)."""
    refuse_league_settings(cfg, "'win' (S32's result; shaping adds the point margin)")


def win_rate(cfg: TrainConfig, model, arch: dict, opponent: str, games: int) -> float:
    """The ``win_rate`` part of the game's row: the model's policy against ``opponent``."""
    return evaluate(STONE_AGE, model.policy, cfg.players, games, cfg.seed, opponent,
                    cfg.options)
