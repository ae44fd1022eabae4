"""The one seed scheme: every seed in the project is derived from the user's seed with
:func:`derive_seed`.

``derive_seed(seed, *path)`` hashes a sequence of integers (the user's seed, then a path such as
``(game index,)`` or ``(game index, seat)``) into a 31-bit seed with SplitMix64 mixing. It is a
numba kernel as well (:func:`derive_seed_kernel`), so batch code running inside numba derives the
same seeds as Python: game ``i`` of a tournament, seat ``s``'s agent, environment copy ``k`` of a
training run or game ``i`` of a batch get seeds that depend on those numbers only, never on how
many workers, threads or games run beside them.

Paths in use (kept distinct by their first element after the seed, a purpose tag):

=================================  ============================================================
``derive_seed(s, i)``              game ``i`` of a tournament or an evaluation with seed ``s``
``derive_seed(g, seat + 1)``       the agent at ``seat`` in a game with seed ``g`` (0: chance)
``derive_seed(s, STREAM_*, k)``    stream ``k`` of a purpose (env copies, opponents, spaces)
=================================  ============================================================
"""

from __future__ import annotations

import numpy as np
from numba import njit

# purpose tags for derive_seed(seed, tag, k): values far from game indices
STREAM_ENV = 1 << 40  # environment copy k of a training run
STREAM_OPPONENT = (1 << 40) + 1  # opponent k of a single-agent environment
STREAM_ACTION_SPACE = (1 << 40) + 2  # the action space of agent k
STREAM_POOL = (1 << 40) + 3  # the opponent pool of training environment k
STREAM_TEACHER = (1 << 40) + 4  # teacher game k of a warm start
STREAM_EVAL = (1 << 40) + 5  # evaluation games of a training run
STREAM_BATCH = (1 << 40) + 6  # game k of a batch
STREAM_VALUE = (1 << 40) + 7  # the self-play games (k = 0) and the fit (k = 1) of a value network
STREAM_DISTILL = (1 << 40) + 8  # teacher game k of a search distillation
STREAM_DISTILL_FIT = (1 << 40) + 9  # the fit (k = 0) of a search distillation
STREAM_AZ = (1 << 40) + 20  # (generation, game, episode, move): Gumbel noise, search chance
STREAM_AZ_GAMES = (1 << 40) + 21  # (generation,): an az-train self-play batch's seed
STREAM_AZ_FIT = (1 << 40) + 22  # (update,): az-train minibatches; (-1,): a fresh network

_MASK64 = (1 << 64) - 1


@njit(cache=True, nogil=True)
def _splitmix64(x):
    x = (x + np.uint64(0x9E3779B97F4A7C15))
    z = x
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, nogil=True)
def derive_seed_kernel(parts):
    """:func:`derive_seed` of a uint64 array, inside numba."""
    h = np.uint64(0x6A09E667F3BCC908)  # any fixed start value
    for i in range(parts.shape[0]):
        h = _splitmix64(h ^ parts[i])
    return np.int64(h >> np.uint64(33))  # 31 bits: fits int32, random.Random, np.random.seed


def derive_seed(*parts: int) -> int:
    """A 31-bit seed from integers (the same on every platform, run and thread count).

    Each part must be an int (not a bool) that fits in 64 bits; negative parts are taken modulo
    2**64. Raises ``ValueError`` otherwise."""
    words = []
    for p in parts:
        if isinstance(p, bool) or not isinstance(p, (int, np.integer)):
            raise ValueError(f"a seed is an int, got {p!r}")
        p = int(p)
        if not -(1 << 63) <= p < (1 << 64):
            raise ValueError(f"a seed must fit in 64 bits, got {p}")
        words.append(p & _MASK64)
    return int(derive_seed_kernel(np.array(words, dtype=np.uint64)))
