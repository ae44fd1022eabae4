"""Pieces several benchmark scripts share (the scripts import it as ``benchmarks.common``, the
repository's root on ``sys.path``): writing a result file, and the tally of a soak test of random
games (``druids_soak.py``, ``stone_age_soak.py``) with the keys of its JSON row."""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

from meduris_rl.kit.atomic import atomic_write

#: the first problems a soak keeps to show (it counts them all)
FIRST_SHOWN = 5


def write_result(path: str | Path, result) -> None:
    """``result`` as indented JSON (and a newline) in the file ``path``, its folder made if
    missing, written atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, json.dumps(result, indent=2) + "\n")


class SoakTally:
    """What a soak test of one configuration found: the steps played, the violations (a
    position or a finished game found wrong counts once), the first :data:`FIRST_SHOWN`
    problems, the games by end reason, and the time since it began."""

    def __init__(self) -> None:
        self.steps = self.violations = 0
        self.first: list = []
        self.ends: Counter = Counter()
        self.t0 = time.perf_counter()

    def report(self, problems) -> None:
        """Count ``problems`` (empty or None: nothing wrong) as one violation."""
        if problems:
            self.violations += 1
            if len(self.first) < FIRST_SHOWN:
                self.first.append(problems)

    def observer(self, problems):
        """A ``play`` observer: counts each step and reports ``problems(state)`` of the
        position after it."""
        def observe(state, seat, action):
            self.steps += 1
            self.report(problems(state))
        return observe

    def row(self, games: int, truncated: str, digits: int, **more) -> dict:
        """The configuration's JSON row: ``truncated`` the end reason of a game cut by the
        limit, ``digits`` those of ``seconds``, ``more`` keys before it."""
        return {"games": games, "steps": self.steps, "violations": self.violations,
                "ends": dict(self.ends), "truncated": self.ends.get(truncated, 0), **more,
                "seconds": round(time.perf_counter() - self.t0, digits),
                "first_violations": self.first}
