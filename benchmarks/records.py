"""What game records and replays cost, next to what playing the game costs.

For ``--games`` greedy games per player count (2, 3, 4), measured in one run:

* **play**: ``play_game`` of greedy agents, the reference: the record's costs are shown as a
  fraction of it;
* **record**: ``GameRecord.from_state`` (it replays the history once to learn the seats);
* **save**: ``to_json`` and the atomic write;
* **load + replay**: ``GameRecord.load`` and ``replay()``, which checks every event and the result;
* **HTML**: ``write_html`` for the first game of each player count (the record and the SVG
  renderer ``board.js``, which draws each step in the browser), with the page's size.

Usage from the repo root:
``python benchmarks/records.py [--games 20] [--seed 0] [--no-html] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from meduris_env import MedurisGame  # noqa: E402
from meduris_env.engine.game import PLAYER_COUNTS  # noqa: E402
from meduris_env.records.replay import write_html  # noqa: E402
from meduris_rl.agents.arena.match import play_game  # noqa: E402
from meduris_rl.agents.registry import make_agent  # noqa: E402
from meduris_rl.kit.records import GameRecord  # noqa: E402
from meduris_rl.kit.seeding import derive_seed  # noqa: E402


def measure(players: int, games: int, seed: int, folder: Path, html: bool = True) -> dict:
    game = MedurisGame(players)
    agents = [make_agent("greedy") for _ in range(players)]
    t = {"play": 0.0, "record": 0.0, "save": 0.0, "replay": 0.0}
    actions = size = 0
    html_seconds = html_bytes = html_steps = 0
    for i in range(games):
        s = derive_seed(seed, players, i)
        final: list = []
        t0 = time.perf_counter()
        play_game(game, agents, s, observer=lambda st, seat, action, final=final: final.append(st))
        t["play"] += time.perf_counter() - t0
        state = final[-1]
        t0 = time.perf_counter()
        record = GameRecord.from_state(state, [a.name for a in agents], s)
        t["record"] += time.perf_counter() - t0
        t0 = time.perf_counter()
        path = record.save(folder / f"{players}p-{i}.json")
        t["save"] += time.perf_counter() - t0
        t0 = time.perf_counter()
        final = GameRecord.load(path).replay()
        t["replay"] += time.perf_counter() - t0
        assert final == state
        actions += len(record.actions)
        size += path.stat().st_size
        if i == 0 and html:
            t0 = time.perf_counter()
            page = write_html(record, folder / f"{players}p.html")
            html_seconds = time.perf_counter() - t0
            html_bytes, html_steps = page.stat().st_size, len(record.actions) + 1
    ms = {k: 1000 * v / games for k, v in t.items()}
    return {"players": players, "games": games, "actions_per_game": actions / games,
            "record_kb": size / games / 1000, "ms_play": ms["play"], "ms_record": ms["record"],
            "ms_save": ms["save"], "ms_load_replay": ms["replay"],
            "html_seconds": html_seconds, "html_mb": html_bytes / 1e6, "html_steps": html_steps}


def main(argv: list[str] | None = None) -> list[dict]:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=20, help="greedy games per player count")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-html", action="store_true", help="skip the HTML pages")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        measure(2, 1, args.seed, Path(tmp), html=False)  # warm-up: the numba kernels
        rows = [measure(p, args.games, args.seed, Path(tmp), not args.no_html)
                for p in PLAYER_COUNTS]
    if args.json:
        print(json.dumps(rows, indent=2))
        return rows
    print(f"{'players':>7}{'actions':>9}{'record kB':>11}{'play ms':>9}{'record ms':>11}"
          f"{'save ms':>9}{'load+replay ms':>16}{'(% of play)':>12}{'HTML ms':>9}{'HTML kB':>9}")
    for r in rows:
        share = (r["ms_record"] + r["ms_save"] + r["ms_load_replay"]) / r["ms_play"]
        print(f"{r['players']:>7}{r['actions_per_game']:>9.0f}{r['record_kb']:>11.1f}"
              f"{r['ms_play']:>9.1f}{r['ms_record']:>11.1f}{r['ms_save']:>9.1f}"
              f"{r['ms_load_replay']:>16.1f}{share:>12.0%}{1000 * r['html_seconds']:>9.0f}"
              f"{1000 * r['html_mb']:>9.0f}")
    print(f"greedy games, {args.games} per player count; '% of play' = record + save + "
          "load+replay as a share of playing the game")
    return rows


if __name__ == "__main__":
    main()
