"""The trainer's parts of each game: the training layer's row beside
:data:`meduris_rl.agents.games.GAMES` (whose ``parts`` are the agents layer's: features, actions,
agent classes).

``meduris train --game G`` asks :func:`training_part` for

* ``env``: the class building the run's vector env with its league from the configuration
  (Meduris: :class:`meduris_rl.train.meduris.league.TrainingEnv` on the batch engine; Druids:
  :class:`meduris_rl.train.druids.league.DruidsTrainingEnv` on its single-agent env);
* ``win_rate``: ``(cfg, model, arch, opponent, games) -> float``, the policy's win rate against
  an agent name of the game in every other seat (the evaluations of :mod:`meduris_rl.train.run`);
* ``check``: ``(cfg) -> None``, raising :class:`~meduris_rl.train.config.ConfigError` for a setting
the
  game's runs cannot use (Druids: the Meduris-only warm start, value fit and rewards).

Each part is named ``"module:attribute"`` and imported when asked, so a game's training code
loads only when that game is trained; it lives with its game's trainer.
"""

from __future__ import annotations

from typing import Any

from meduris_rl.agents.games import code_at

#: game name -> {part: "module:attribute"} (the module docstring)
TRAINING: dict[str, dict[str, str]] = {
    "meduris": {"env": "meduris_rl.train.meduris.league:TrainingEnv",
                "win_rate": "meduris_rl.train.meduris.evaluate:win_rate",
                "check": "meduris_rl.train.config:no_check"},
    "druids": {"env": "meduris_rl.train.druids.league:DruidsTrainingEnv",
               "win_rate": "meduris_rl.train.druids.league:win_rate",
               "check": "meduris_rl.train.druids.league:check_config"},
}


def training_part(game: str, name: str) -> Any:
    """The trainer's part ``name`` of ``game`` (see the module docstring)."""
    return code_at(TRAINING[game][name])
