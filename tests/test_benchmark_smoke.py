"""The throughput benchmark runs and reports the documented keys (no timing assertions)."""

import json

import numpy as np
import pytest
from helpers import load_benchmark


def test_throughput_benchmark_reports_all_keys():
    mod = load_benchmark("throughput")
    out = mod.main(["--seconds", "0.3", "--json", "--ppo-envs", "16", "--ppo-rollouts", "1"])
    for key in ("batch_steps_per_s", "batch_vs_aec", "ppo_batch_steps_per_s",
                "engine_decisions_per_s", "backgammon_decisions_per_s", "engine_vs_backgammon",
                "clones_per_s", "engine_games_per_s", "kernel_playout_decisions_per_s",
                "aec_steps_per_s", "connect_four_steps_per_s", "aec_vs_connect_four",
                "stone_age_decisions_per_s", "stone_age_4p_mammoth_decisions_per_s",
                "stone_age_kernel_decisions_per_s"):
        assert out[key] > 0, key
    assert out["stone_age_vs_backgammon"] == pytest.approx(
        out["stone_age_decisions_per_s"] / out["backgammon_decisions_per_s"], rel=1e-6)
    assert out["engine_vs_backgammon"] == pytest.approx(
        out["engine_decisions_per_s"] / out["backgammon_decisions_per_s"], rel=1e-6)
    assert out["aec_vs_connect_four"] == pytest.approx(
        out["aec_steps_per_s"] / out["connect_four_steps_per_s"], rel=1e-6)
    assert out["batch_vs_aec"] == pytest.approx(
        out["batch_steps_per_s"] / out["aec_steps_per_s"], rel=1e-6)
    rows = {(r["games"], r["threads"]) for r in out["batch_rows"]}
    assert {(b, 1) for b in (1, 64, 1024)} <= rows  # every B on one thread and on all of them
    assert {(b, out["threads"]) for b in (1, 64, 1024)} <= rows
    assert out["batch_steps_per_s"] == max(r["steps_per_s"] for r in out["batch_rows"]
                                           if r["threads"] == out["threads"])
    # issue 28: Druids beside OpenSpiel's leduc_poker and liars_dice, one driver loop
    by_players = out["druids_by_players"]
    assert sorted(by_players) == ["2", "3", "4"]
    assert by_players["2"]["decisions_per_s"] == out["druids_decisions_per_s"]
    games = [by_players[n] for n in by_players]
    for name in ("leduc_poker", "liars_dice"):
        prefix = f"openspiel_{name}"
        assert out[f"{prefix}_clone_decisions_per_s"] > 0, name
        games.append({k: out[f"{prefix}_{k}"] for k in
                      ("decisions_per_s", "games_per_s", "decisions_per_game")})
        assert out[f"druids_vs_{name}"] == pytest.approx(
            out["druids_decisions_per_s"] / out[f"{prefix}_decisions_per_s"], rel=1e-6)
        # a Druids game (D3-D11: 20-40 turns) makes many more decisions than a hand of these
        assert out["druids_decisions_per_game"] > 5 * out[f"{prefix}_decisions_per_game"]
    for g in games:
        assert g["decisions_per_s"] > 0 and g["decisions_per_game"] >= 1
        assert g["decisions_per_s"] == pytest.approx(g["games_per_s"] * g["decisions_per_game"])
    assert out["druids_clone_decisions_per_s"] > 0
    # Druids IS-MCTS iterations/s by player count (docs/druids.md, IS-MCTS speed)
    assert sorted(out["ismcts_by_players"]) == ["2", "3", "4"]
    assert out["ismcts_iterations_per_s"] == out["ismcts_by_players"]["2"] > 0


def test_throughput_driver_counts_decisions_only_and_clone_changes_nothing():
    import pyspiel

    import druids_env

    mod = load_benchmark("throughput")
    for new_state, is_decision in (
            (druids_env.DruidsGame(3).new_initial_state,
             lambda s: [a for a in s.history() if a < druids_env.NUM_ACTIONS]),
            (pyspiel.load_game("leduc_poker").new_initial_state,
             lambda s: [a for a in s.full_history() if a.player >= 0])):
        counts = []
        for clone in (False, True):
            state = new_state()
            n = mod.play_random_decisions(state, np.random.default_rng(5), clone=clone)
            counts.append(n)
            if not clone:  # played in place: the state is the finished game
                assert state.is_terminal() and n == len(is_decision(state)) > 0
        assert counts[0] == counts[1]  # the same stream, the same game, with clones or not


def test_throughput_benchmark_refuses_unbounded_flags(capsys):
    mod = load_benchmark("throughput")
    for bad in (["--seconds", "0"], ["--seconds", "nan"], ["--seconds", "601"],
                ["--seed", "-1"], ["--ppo-envs", "0"], ["--ppo-rollouts", "101"]):
        with pytest.raises(SystemExit):  # refused before anything is timed
            mod.main(bad)
        err = capsys.readouterr().err.strip().splitlines()
        assert f"error: {bad[0]} {bad[1]}: give " in err[-1], err  # the one line saying why


def test_tournament_benchmark_reports_rows_against_their_bars(tmp_path):
    mod = load_benchmark("tournaments")
    out = tmp_path / "bench.json"
    rows = mod.main(["--games", "4", "--workers", "1", "--only", "greedy-vs-random-2p",
                     "--out", str(out), "--json"])
    assert [r["name"] for r in rows] == ["greedy-vs-random-2p"]
    r = rows[0]
    assert r["games"] == 4 and r["bar"] == 0.90
    assert r["passed"] == (r["win_rate"] >= 0.90)
    assert r["ci95"][0] <= r["win_rate"] <= r["ci95"][1]
    assert json.loads(out.read_text()) == rows


def test_records_benchmark_reports_every_player_count():
    mod = load_benchmark("records")
    rows = mod.main(["--games", "1", "--no-html", "--json"])  # the HTML writer has its own tests
    assert [r["players"] for r in rows] == [2, 3, 4]
    for r in rows:
        assert r["games"] == 1 and r["actions_per_game"] > 50 and r["record_kb"] > 10
        assert r["html_steps"] == 0
        assert min(r["ms_play"], r["ms_record"], r["ms_save"], r["ms_load_replay"]) > 0


def test_training_benchmark_reports_throughput_and_a_learning_curve(tmp_path, capsys):
    mod = load_benchmark("training")
    out = mod.main(["--players", "2", "--rollouts", "1", "--reference-steps", "64", "--json",
                    "--az-moves", "20", "--az-simulations", "4", "--az-games", "8"])
    assert out["train_env_steps_per_s"] > 0 and out["rows"][0]["steps"] == 256 * 64
    # az-train's self-play in the same run: 3 batched moves of 8 games timed
    assert out["az_selfplay"]["moves"] == 24 and out["az_selfplay_moves_per_s"] > 0
    assert out["az_simulations"] == 4 and out["az_games"] == 8
    # the reference of the same run: single-game envs in two processes, 2 x 32 steps timed
    ref = out["reference"]
    assert ref["steps"] == 64 and ref["games"] == 2 and out["reference_env_steps_per_s"] > 0
    assert out["speedup_vs_reference"] == pytest.approx(
        out["train_env_steps_per_s"] / out["reference_env_steps_per_s"])
    capsys.readouterr()
    for bad in (["--players", "5"], ["--players", "2,x"], ["--rollouts", "0"],
                ["--az-moves", "-1"], ["--az-simulations", "0"]):
        with pytest.raises(SystemExit):  # refused before anything is timed
            mod.main(bad)
        assert bad[0] in capsys.readouterr().err

    from meduris_rl.train.config import load_config
    from meduris_rl.train.run import train
    cfg = load_config(None, {"steps": 128, "envs": 16, "n_steps": 8, "batch_size": 64,
                             "n_epochs": 1, "snapshot_every": 64, "eval_every": 10**6,
                             "checkpoint_every": 10**6, "eval_games": 4, "net_arch": [16],
                             "out": str(tmp_path / "run"), "threads": 1,
                             "best_against": "random", "best_against_games": 2})
    train(cfg, progress=False)
    picture = tmp_path / "curve.png"
    rows = mod.main(["--curve", str(tmp_path / "run"), "--greedy-games", "4",
                     "--other-games", "2", "--workers", "1", "--plot", str(picture)])
    assert len(rows) >= 2 and all(0 <= r["vs_greedy"] <= 1 and 0 <= r["vs_other"] <= 1
                                  and r["against"] == "mcts:100" for r in rows)
    assert rows == sorted(rows, key=lambda r: r["timesteps"]) and picture.stat().st_size > 0
    assert (tmp_path / "run" / "curve.csv").read_text().startswith("timesteps,wall_seconds")
    # --reuse plots what curve.csv holds without playing again; two runs share one picture
    import shutil
    shutil.copytree(tmp_path / "run", tmp_path / "run2")
    both = mod.main(["--curve", str(tmp_path / "run"), str(tmp_path / "run2"), "--reuse",
                     "--plot", str(picture)])
    assert list(both) == ["run", "run2"]
    for reread in both.values():
        assert [(r["timesteps"], r["path"], r["against"], round(r["vs_other"], 4))
                for r in reread] == [(r["timesteps"], r["path"], r["against"],
                                      round(r["vs_other"], 4)) for r in rows]
    # --evaluations: the run's own (this one evaluated once, at its end, against greedy and
    # its best_against agent)
    meta = json.loads((tmp_path / "run" / "checkpoint.json").read_text())
    own = mod.main(["--curve", str(tmp_path / "run"), "--evaluations"])
    assert own == [{"timesteps": e["timesteps"], "wall_seconds": e["wall_seconds"],
                    "vs_greedy": e["win_rate_vs_greedy"], "against": "random",
                    "vs_other": e["win_rate_vs_best_against"]}
                   for e in meta["evals"] if e["phase"] == "ppo"] and len(own) == 1
    # --with-evaluations: the snapshots' games against mcts:100 and the run's own evaluations
    # against random in one picture, in the order of the run's wall time
    merged = mod.main(["--curve", str(tmp_path / "run"), "--reuse", "--with-evaluations",
                       "--plot", str(picture)])
    # (the evaluations bring their random games, not their greedy ones: one greedy line)
    assert sorted(map(str, merged)) == sorted(map(str, both["run"] + [
        {k: v for k, v in r.items() if k != "vs_greedy"} for r in own]))
    assert [r["wall_seconds"] for r in merged] == sorted(r["wall_seconds"] for r in merged)
    assert {r["against"] for r in merged} == {"mcts:100", "random"}
    assert [r for r in merged if "vs_greedy" in r] == both["run"]
    for bad in (["--reuse", "--evaluations"], ["--evaluations", "--with-evaluations"]):
        with pytest.raises(SystemExit):
            mod.main(["--curve", str(tmp_path / "run"), *bad])
        assert bad[-1] in capsys.readouterr().err
    # a --plot that cannot be written is refused before any snapshot is played
    with pytest.raises(SystemExit):
        mod.main(["--curve", str(tmp_path / "run"), "--plot", str(tmp_path)])
    assert "is a folder" in capsys.readouterr().err


def test_soak_benchmark_checks_every_configuration_and_finds_no_violation(monkeypatch):
    from meduris_env.engine.constants import PH_TERMINAL
    from meduris_env.engine.layout import O_PHASE

    mod = load_benchmark("soak")
    checked = {"final": 0}
    check = mod.batch_violations

    def counting(states, fa, out):  # the invariants also see every game's last position
        checked["final"] += int(np.count_nonzero(states[:, O_PHASE] == PH_TERMINAL))
        return check(states, fa, out)

    monkeypatch.setattr(mod, "batch_violations", counting)
    out = mod.main(["--games", "60", "--batch", "10", "--json"])
    assert out["games"] >= 60 and out["violations"] == 0 and out["steps"] > 60 * 100
    assert {(r["players"], r["exchange"]) for r in out["rows"]} == set(mod.CONFIGS)
    assert checked["final"] == out["games"] - out["truncated"]


def test_druids_soak_benchmark_runs_the_checker_and_reports_no_violation(monkeypatch, capsys):
    """benchmarks/druids_soak.py (issue 28's 10,000 random games per player count) at a tiny
    count: its printed JSON says 0 violations for 2, 3 and 4 players, every game ended by a
    rule (D11, D11b, D12), and the checker really ran after every step: a checker that
    finds a fault in one position is reported."""
    mod = load_benchmark("druids_soak")
    out = mod.main(["--games", "3", "--seed", "1"])
    printed = json.loads(capsys.readouterr().out)
    assert printed == out and out["violations"] == 0
    for n in ("2", "3", "4"):
        row = out[n]
        assert row["games"] == 3 and row["violations"] == 0 and row["first_violations"] == []
        assert sum(row["ends"].values()) == 3 and row["truncated"] == 0
        assert row["steps"] > 3 * 100  # a random game takes about 220 steps
    calls = {"n": 0}
    check = mod.check

    def faulty(state):  # the 50th position checked is reported broken
        calls["n"] += 1
        return ["planted"] if calls["n"] == 50 else check(state)

    monkeypatch.setattr(mod, "check", faulty)
    broken = mod.main(["--games", "1", "--seed", "1"])
    capsys.readouterr()
    assert broken["violations"] == 1 and broken["2"]["first_violations"] == [["planted"]]


def test_training_benchmark_draws_an_az_run_on_the_ladder_scale(tmp_path, capsys):
    """--az-curve: a 2-player az-train run's evaluations with the trainer's Elo, printed and
    plotted beside PPO's; a folder without eval.csv, or a run without Elo and without a player
    count, refused in one line."""
    mod = load_benchmark("training")
    run = tmp_path / "az_2p"
    run.mkdir()
    (run / "eval.csv").write_text(
        "moves,updates,win_rate_vs_greedy,win_rate_vs_ppo,elo,wall_seconds\n"
        "1000,1,0.7500,0.4000,1300.0,60.0\n2000,2,0.9000,0.6000,1500.5,120.0\n")
    rows = mod.main(["--az-curve", str(run), "--plot", str(tmp_path / "curve.png")])
    assert [r["elo"] for r in rows] == [1300.0, 1500.5] and rows[1]["vs_ppo"] == 0.6
    assert (tmp_path / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "Elo   1500" in capsys.readouterr().out
    (run / "eval.csv").write_text("moves,updates,win_rate_vs_greedy,win_rate_vs_ppo,elo,"
                                  "wall_seconds\n0,0,0.8,0.31,,0.0\n")
    for bad, needle in ((run, "no player count"), (tmp_path, "not found")):
        with pytest.raises(SystemExit):
            mod.main(["--az-curve", str(bad)])
        assert needle in capsys.readouterr().err


def az_run(folder, players: int, eval_ppo: str, rows: str):
    """An az-train run's folder: its eval.csv (``rows``: moves, greedy, ppo, wall seconds) and
    checkpoint.json (evaluations of 100,000 games each, so the prior's draw weighs nothing)."""
    folder.mkdir()
    (folder / "eval.csv").write_text(
        "moves,updates,win_rate_vs_greedy,win_rate_vs_ppo,elo,wall_seconds\n"
        + "".join(f"{m},0,{g},{p},,{w}\n" for m, g, p, w in rows))
    (folder / "checkpoint.json").write_text(json.dumps(
        {"config": {"players": players, "eval_ppo": eval_ppo, "eval_games": 100_000}}))
    return folder


def test_training_benchmark_puts_3_and_4_player_runs_on_their_ladders(tmp_path, capsys):
    """--az-curve with 3 or 4 players: the Elo of the first places against each lineup on that
    player count's shipped ladder (a third of the 3-player games against ppo,ppo: ppo's rating;
    a quarter against three greedy: greedy's; a third against mcts:200 beside greedy: between
    the two), the ppo column counted only where the ladder
    rates the policy it played (a file: from greedy alone, until --ladder holds it), the PPO
    run it started from on the same scale before it (--ppo-run), plotted; bad companions
    refused in one line."""
    from meduris_rl.agents.arena.ladder import shipped_ratings

    mod = load_benchmark("training")
    r3, r4 = shipped_ratings(3), shipped_ratings(4)
    run = az_run(tmp_path / "az_3p", 3, "shipped",
                 [(0, 0.5, 1 / 3, 0.0), (1000, 0.8, 0.45, 60.0)])
    rows = mod.main(["--az-curve", str(run)])
    assert r3["greedy"].elo < rows[0]["elo"] < r3["ppo"].elo < rows[1]["elo"]
    assert "(Elo from the games against greedy, ppo)" in capsys.readouterr().out
    elos = {n: r.elo for n, r in r3.items()}
    assert mod.lineup_elo({"ppo": (100_000, 1 / 3)}, 3, elos, ("greedy", "ppo")) == \
        pytest.approx(elos["ppo"], abs=1)
    beside_greedy = [mod.lineup_elo({"mcts:200": (100_000, rate)}, 3, elos, ("greedy",))
                     for rate in (1 / 3, 0.5)]  # (mcts:200 in one seat, greedy in the other)
    assert elos["greedy"] < beside_greedy[0] < elos["mcts:200"] < beside_greedy[1]
    filed = az_run(tmp_path / "az_4p", 4, "runs/ppo_4p/best.pt",
                   [(0, 0.25, 0.9, 0.0), (1000, 0.25, 0.1, 60.0)])
    rows = mod.main(["--az-curve", str(filed)])
    assert [r["elo"] for r in rows] == pytest.approx([r4["greedy"].elo] * 2, abs=1)
    assert "(Elo from the games against greedy)" in capsys.readouterr().out
    from meduris_rl.agents.arena.ladder import copy_anchors, ladder_fit, ladder_of, open_ladder
    from meduris_rl.agents.arena.ladder.store import game_key
    from meduris_rl.agents.arena.match import GameResult

    db = tmp_path / "ladder.sqlite"  # --ladder: one where the run's ppo file is rated
    entrant, lineup = "ppo:runs/ppo_4p/best.pt", ["ppo", "mcts:200", "greedy"]
    with open_ladder(db) as store:
        copy_anchors(ladder_of().shipped, store, 4)
        for i in range(8):
            seats = [entrant, *lineup]
            store.add(game_key(4, entrant, seats, i, 0), 4, entrant, GameResult(
                seed=i, agents=seats, vp=[9, 3, 2, 1], winners=[0], ranks=[1, 2, 3, 4],
                turns=10, decisions=40, end_reason="R22"))
        rated = ladder_fit(store, 4).by_name()[entrant].elo
    on_it = mod.main(["--az-curve", str(filed), "--ladder", str(db)])
    assert "(Elo from the games against greedy, ppo)" in capsys.readouterr().out
    assert rated > r4["ppo"].elo  # (it won all its games)
    assert on_it[0]["elo"] > rows[0]["elo"] + 50  # 90 % against a rated strong lineup counts
    ppo_run = tmp_path / "ppo_4p"
    ppo_run.mkdir()
    (ppo_run / "checkpoint.json").write_text(json.dumps({
        "config": {"players": 4, "eval_games": 200, "best_against": "mcts:200",
                   "best_against_games": 100}, "wall_seconds": 600.0,
        "value_network": {"self_play_seconds": 30.0, "fit_seconds": 6.0},
        "best": {"timesteps": 10},
        "evals": [{"timesteps": 0, "phase": "untrained", "win_rate_vs_greedy": 0.2},
                  {"timesteps": 10, "phase": "ppo", "win_rate_vs_greedy": 0.6,
                   "win_rate_vs_best_against": 0.4, "wall_seconds": 300.0}]}))
    picture = tmp_path / "curve4.png"
    mod.main(["--az-curve", str(filed), "--ppo-run", str(ppo_run), "--plot", str(picture)])
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    ppo_rows, wall = mod.ppo_run_curve(ppo_run, {n: r.elo for n, r in r4.items()})
    assert wall == 636.0 and ppo_rows[0]["elo"] < r4["greedy"].elo < ppo_rows[1]["elo"]
    assert [r["best"] for r in ppo_rows] == [False, True]  # (the warm start, ringed)
    capsys.readouterr()
    for argv, needle in ((["--az-curve", str(filed), "--ladder", str(tmp_path / "none.sqlite")],
                          "--ladder"),
                         (["--az-curve", str(filed), "--ppo-run", str(tmp_path)], "--ppo-run"),
                         (["--ppo-run", str(ppo_run)], "go with --az-curve")):
        with pytest.raises(SystemExit):
            mod.main(argv)
        err = capsys.readouterr().err
        last = err.strip().splitlines()[-1]  # (argparse's usage, then its one error line)
        assert needle in last and err.count("error:") == 1 and "Traceback" not in err, err


def test_training_benchmark_draws_the_search_recipe_on_the_ladder_scale(tmp_path, capsys):
    """--search-curve: tournaments against az:200 along make model-search-2p's minutes, each
    put on the shipped ladder's scale with az:200 held at its rating (an even score: its
    rating; more points: higher), printed and plotted; a CSV without its columns refused in
    one line."""
    from meduris_rl.agents.arena.ladder import shipped_ratings

    mod = load_benchmark("training")
    csv = tmp_path / "curve.csv"
    csv.write_text("minutes,label,shipped,games,points\n0,shipped networks,1,200,100\n"
                   "76.1,the mean,1,400,248.5\n76.1,judge B alone,0,200,90\n")
    picture = tmp_path / "search.png"
    rows = mod.main(["--search-curve", str(csv), "--plot", str(picture)])
    az = shipped_ratings(2)["az:200"].elo
    assert abs(rows[0]["elo"] - az) < 1e-6 and rows[1]["elo"] > az + 50 > rows[2]["elo"] + 50
    assert [r["shipped"] for r in rows] == [True, True, False]
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "248.5 of 400 against az:200" in capsys.readouterr().out
    csv.write_text("minutes,label\n0,x\n")
    with pytest.raises(SystemExit):
        mod.main(["--search-curve", str(csv)])
    assert "a CSV of minutes, label, shipped, games and points" in capsys.readouterr().err
