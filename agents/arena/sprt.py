"""The statistics of a duel (:mod:`meduris_rl.agents.arena.duel`): a generalized sequential
probability ratio test (GSPRT) on the pentanomial distribution of game-pair scores, as fishtest does
for Stockfish (M. Van den Bergh, "support_MLE_multinomial" and "GSPRT_approximation",
hardy.uhasselt.be/Fishtest).

Pure functions, no state; numpy only. Notation:

* a duel is played in **pairs**: two games with the same seed and the seats swapped. A game
  scores 1 for A's win, 0 for its loss, 1/2 for a shared win; a pair scores 0, 1/2, 1, 3/2 or 2.
  ``counts[k]`` is the number of pairs that scored ``k / 2`` (:func:`pentanomial`), and the
  per-game score of a pair is ``a_k = k / 4`` (0, 1/4, 1/2, 3/4, 1).
* logistic Elo: an expected per-game score ``s`` and an Elo difference ``e`` are related by
  ``s = L(e) = 1 / (1 + 10 ** (-e / 400))`` (:func:`score_of_elo`) and its inverse
  ``e = -400 log10(1 / s - 1)`` (:func:`elo_of_score`).
* the hypotheses: H0 ``elo = elo0`` against H1 ``elo = elo1`` (``elo0 < elo1``), that is
  ``s0 = L(elo0)`` against ``s1 = L(elo1)``.

**The LLR** (:func:`llr`): with ``N`` pairs and the empirical frequencies ``p_k = counts[k] / N``
(a count of 0 is replaced by 1e-3 first, fishtest's regularization, so every ``a_k`` stays in
the support), the maximum-likelihood distribution with mean ``s`` is
``q_k(s) = p_k / (1 + x (a_k - s))``, where ``x`` solves the secular equation
``sum_k p_k (a_k - s) / (1 + x (a_k - s)) = 0`` on ``-1 / (1 - s) < x < 1 / s`` (its left side
decreases in ``x``: one root, found by bisection). Then

    LLR = N * sum_k p_k * (log q_k(s1) - log q_k(s0)).

**The bounds** (:func:`bounds`, Wald's): accept H0 when ``LLR <= log(beta / (1 - alpha))``, H1
when ``LLR >= log((1 - beta) / alpha)``; ``alpha`` is the chance to accept H1 when H0 holds,
``beta`` to accept H0 when H1 holds (:func:`decide`).

**The Elo estimate** (:func:`elo_interval`): the mean per-game score
``s = sum_k p_k a_k`` (of the raw counts), its standard error from the pairs
``se = sd(a) / sqrt(N)`` (``sd`` the population deviation of the per-game pair scores), and the
95% interval ``L^-1(s -+ 1.96 se)``, scores clamped to [1e-3, 1 - 1e-3] as fishtest does.

:func:`llr_normal` is the normal approximation ``N (s1 - s0) (2 s - s0 - s1) / (2 var)``
(fishtest's ``LLR_alt2``), which the exact LLR approaches for small Elo differences.
"""

from __future__ import annotations

import math

import numpy as np

from meduris_rl.kit.errors import InputError

PAIR_SCORES = (0.0, 0.5, 1.0, 1.5, 2.0)  # what a pair of games can score for A
VALUES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])  # the per-game score of each pair score
REGULARIZE = 1e-3  # a pair score never seen counts this much (fishtest's prior)
CLAMP = 1e-3  # scores are clamped to [CLAMP, 1 - CLAMP] before their Elo is taken
Z95 = 1.959963984540054  # the standard normal's 97.5% quantile
BISECTIONS = 80  # halvings of the secular equation's interval (its width ~ 1e-24 after)


class SprtError(InputError, ValueError):
    """SPRT parameters that make no test (the message names the fix)."""


def check_parameters(elo0: float, elo1: float, alpha: float, beta: float,
                     names: tuple[str, str, str, str] = ("elo0", "elo1", "alpha", "beta")
                     ) -> None:
    """Raise :class:`SprtError` unless ``elo0 < elo1`` (both finite, |elo| < 2000) and
    ``alpha``, ``beta`` lie in (0, 0.5); ``names`` words the errors (e.g. the flags)."""
    n0, n1, na, nb = names
    for name, value in ((n0, elo0), (n1, elo1)):
        if not math.isfinite(value) or abs(value) >= 2000:
            raise SprtError(f"{name} {value}: give an Elo difference between -2000 and 2000")
    if not elo0 < elo1:
        raise SprtError(f"{n0} {elo0:g} must be below {n1} {elo1:g} (the test is H0: A is "
                        f"{n0} Elo stronger than B, against H1: {n1} Elo stronger)")
    for name, value in ((na, alpha), (nb, beta)):
        if not (math.isfinite(value) and 0 < value < 0.5):
            raise SprtError(f"{name} {value}: an error rate strictly between 0 and 0.5, "
                            "e.g. 0.05")


def score_of_elo(elo: float) -> float:
    """``L(elo) = 1 / (1 + 10 ** (-elo / 400))``: the expected per-game score at that Elo
    difference."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def elo_of_score(score: float) -> float:
    """``-400 log10(1 / s - 1)`` with ``s`` clamped to [1e-3, 1 - 1e-3] (about -1200..1200)."""
    s = min(max(score, CLAMP), 1.0 - CLAMP)
    return -400.0 * math.log10(1.0 / s - 1.0) + 0.0  # (+ 0.0: no -0.0)


def bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's bounds ``(log(beta / (1 - alpha)), log((1 - beta) / alpha))``."""
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def pentanomial(pair_scores) -> list[int]:
    """The counts of pairs that scored 0, 1/2, 1, 3/2 and 2 (anything else raises
    ValueError)."""
    counts = [0] * 5
    for score in pair_scores:
        k = round(score * 2)
        if k not in range(5) or abs(score * 2 - k) > 1e-9:
            raise ValueError(f"a pair scores 0, 0.5, 1, 1.5 or 2, not {score}")
        counts[k] += 1
    return counts


def frequencies(counts) -> tuple[np.ndarray, np.ndarray]:
    """``(N, p)`` of counts shaped (..., 5): zeros replaced by 1e-3 first, ``N`` their sum and
    ``p`` the frequencies."""
    c = np.asarray(counts, dtype=np.float64)
    c = np.where(c == 0, REGULARIZE, c)
    n = c.sum(axis=-1)
    return n, c / n[..., None]


def constrained_mle(p: np.ndarray, s: float) -> np.ndarray:
    """The distribution on :data:`VALUES` with mean ``s`` closest in likelihood to the
    frequencies ``p`` (shape (..., 5), all positive): ``p_k / (1 + x (a_k - s))`` with ``x``
    the root of the secular equation (module docstring), found by bisection."""
    if not 0.0 < s < 1.0:
        raise ValueError(f"a mean score strictly between 0 and 1, not {s}")
    b = VALUES - s
    lo = np.full(p.shape[:-1], -1.0 / (1.0 - s))
    hi = np.full(p.shape[:-1], 1.0 / s)
    for _ in range(BISECTIONS):
        mid = 0.5 * (lo + hi)
        f = (p * b / (1.0 + mid[..., None] * b)).sum(axis=-1)  # decreasing in mid
        above = f > 0
        lo = np.where(above, mid, lo)
        hi = np.where(above, hi, mid)
    x = 0.5 * (lo + hi)
    q = p / (1.0 + x[..., None] * b)
    return q / q.sum(axis=-1, keepdims=True)  # (sums to 1 up to the root's last bits)


def llr(counts, elo0: float, elo1: float):
    """The GSPRT log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``) for pentanomial
    ``counts`` (five counts, or an array (..., 5) of them: one LLR each). 0 for no pairs."""
    n, p = frequencies(counts)
    q0 = constrained_mle(p, score_of_elo(elo0))
    q1 = constrained_mle(p, score_of_elo(elo1))
    out = n * (p * (np.log(q1) - np.log(q0))).sum(axis=-1)
    raw = np.asarray(counts).sum(axis=-1)
    out = np.where(raw == 0, 0.0, out)
    return float(out) if np.ndim(out) == 0 else out


def llr_normal(counts, elo0: float, elo1: float) -> float:
    """The normal approximation of :func:`llr`: ``N (s1 - s0) (2 s - s0 - s1) / (2 var)`` with
    ``s``, ``var`` the mean and variance of the regularized per-game pair scores."""
    n, p = frequencies(counts)
    s = float((p * VALUES).sum())
    var = float((p * (VALUES - s) ** 2).sum())
    s0, s1 = score_of_elo(elo0), score_of_elo(elo1)
    return float(n) * (s1 - s0) * (2 * s - s0 - s1) / (2 * var)


def decide(value: float, lower: float, upper: float) -> str | None:
    """"H0" at or below ``lower``, "H1" at or above ``upper``, else None (play on)."""
    if value <= lower:
        return "H0"
    if value >= upper:
        return "H1"
    return None


def mean_score(counts) -> tuple[float, float]:
    """``(s, se)``: A's mean per-game score over the pairs and its standard error
    ``sd / sqrt(N)`` from the pair-to-pair spread (0, 0 for no pairs)."""
    c = np.asarray(counts, dtype=np.float64)
    n = c.sum()
    if n == 0:
        return 0.0, 0.0
    s = float((c * VALUES).sum() / n)
    sd = math.sqrt(float((c * (VALUES - s) ** 2).sum() / n))
    return s, sd / math.sqrt(n)


def elo_interval(counts) -> tuple[float, float, float]:
    """``(elo, low, high)``: the Elo difference of A's mean score and its 95% interval
    (module docstring); NaNs for no pairs."""
    s, se = mean_score(counts)
    if sum(counts) == 0:
        return math.nan, math.nan, math.nan
    return (elo_of_score(s), elo_of_score(s - Z95 * se), elo_of_score(s + Z95 * se))
