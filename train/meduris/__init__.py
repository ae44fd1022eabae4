"""Meduris's training: the batch league, evaluation, warm start, az-train, value networks and
their judges, distillation, RLlib."""
