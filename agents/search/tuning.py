"""The numbers that tune the tree and rollout searches of every game (Meduris's ``mcts``,
Druids' and Stone Age's ``ismcts``, Stone Age's ``rollout``), each checked against one set of
bounds wherever it is given: every one bounded and finite, as the budgets are
(:mod:`meduris_rl.agents.budgets`), so no name or constructor makes a search that never ends.
"""

from __future__ import annotations

from meduris_rl.kit.values import check_float, check_int

#: name (the constructors' keyword) -> (its checker, lowest, highest)
TUNING = {
    "exploration": (check_float, 0.0, 100.0),  # UCB1's exploration constant
    "c": (check_float, 0.0, 100.0),  # the same, under Stone Age's name
    "widening": (check_float, 0.0, 100.0),  # children tried: 1 + widening * sqrt(visits)
    "epsilon": (check_float, 0.0, 1.0),  # a rollout's share of random decisions
    "margin": (check_float, 0.0, 1.0),  # weight of the squashed score margin in a value
    "rollout_depth": (check_int, 0, 1000),  # decisions a cut rollout plays
    "value_scale": (check_float, 1e-6, 1e6),  # tanh(margin / value_scale)
    "turns": (check_int, 0, 10_000),  # turns a cut rollout plays (0: to the end)
    "candidates": (check_int, 1, 20),  # moves a rollout agent compares
}


def checked_tuning(**numbers) -> tuple:
    """The given tuning numbers checked against :data:`TUNING`, in the order given (the first
    out of bounds raises ValueCheckError naming it)."""
    out = []
    for name, value in numbers.items():
        check, low, high = TUNING[name]
        out.append(check(name, value, low, high))
    return tuple(out)
