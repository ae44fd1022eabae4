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
``agent_seeds(s, i, n)``           the ``n`` agents of game ``i`` of a run with seed ``s``
``derive_seed(s, STREAM_*, k)``    stream ``k`` of a purpose (env copies, opponents, spaces)
=================================  ============================================================

**Fair seeds.** An agent is told its seed (a ``cmd:`` bot reads it in ``new_game``), so an
agent's seed must not lead to the game's chance (the dice, the deck, the hidden cards).
:func:`agent_seeds` is therefore a one-way function (BLAKE2b, not SplitMix) of the *run's* seed
``s``, never of the game's: from an agent's seed the way back is a search over every possible
``s``, which :func:`fresh_seed` (63 random bits from the operating system, the default of every
arena run: the run records it, so it can be played again) makes hopeless. A seed chosen by hand
(``--seed 0``) is reproducible but not secret: a bot that guesses it can compute every game's
chance, so rating runs against bots leave ``--seed`` out (docs/bring_your_own_agent.md).
"""

from __future__ import annotations

import hashlib
import secrets

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


AGENT_PERSON = b"meduris-agents"  # BLAKE2b's personalisation: agent seeds and nothing else


def agent_seeds(seed: int, game: int, players: int) -> tuple[int, ...]:
    """The 31-bit seeds of the ``players`` agents of game ``game`` of a run with seed ``seed``:
    a one-way function of the run's seed (see the module docstring), independent of the game's
    seed ``derive_seed(seed, game)`` for anyone who does not know ``seed``."""
    for part in (seed, game, players):
        if isinstance(part, bool) or not isinstance(part, (int, np.integer)):
            raise ValueError(f"a seed is an int, got {part!r}")
    out = []
    for seat in range(int(players)):
        data = b"".join((int(p) & _MASK64).to_bytes(8, "little") for p in (seed, game, seat))
        digest = hashlib.blake2b(data, digest_size=8, person=AGENT_PERSON).digest()
        out.append(int.from_bytes(digest, "little") >> 33)
    return tuple(out)


def fresh_seed() -> int:
    """A run's seed when none is given: 63 random bits from the operating system
    (:mod:`secrets`), unguessable by the agents of the run; the run records it."""
    return secrets.randbits(63)
