"""Meduris's training: the batch league, evaluation, warm start, az-train, value networks and
their judges, distillation, RLlib."""

# Meduris's player counts and turn limit, for its trainers' commands (meduris value, distill,
# rllib-train: the command layer asks the game's trainer, not the game)
from meduris_env.engine.game import DEFAULT_MAX_TURNS, PLAYER_COUNTS  # noqa: E402

__all__ = ["DEFAULT_MAX_TURNS", "PLAYER_COUNTS"]
