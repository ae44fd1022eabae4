"""The tournament runner and the `meduris tournament` CLI: reproducibility, equal lineups,
statistics, atomic results and one-line errors."""

import csv
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from meduris_rl.agents.arena.tournament import TournamentConfig, run_tournament, wilson_interval
from meduris_rl.cli import main

REPO = Path(__file__).resolve().parent.parent


def run_cli(*args):
    return subprocess.run([sys.executable, "-m", "meduris_rl.cli", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=600)


def read_games(path):
    with open(path / "games.csv", newline="") as fh:
        return list(csv.DictReader(fh))


def test_same_seed_same_results_whatever_the_workers(tmp_path):
    outs = []
    for workers, name in ((1, "a"), (2, "b"), (2, "c")):
        out = tmp_path / name
        code = main(["tournament", "--agents", "random,greedy,mcts:10", "--players", "3",
                     "--games", "12", "--seed", "5" if name != "c" else "6",
                     "--workers", str(workers), "--out", str(out), "--no-progress"])
        assert code == 0
        outs.append(out)
    a, b, c = (read_games(o) for o in outs)
    assert a == b and a != c
    sa, sb = (json.loads((o / "summary.json").read_text()) for o in outs[:2])
    for label in ("random", "greedy", "mcts:10"):
        for key in ("games", "wins", "win_rate", "win_rate_ci95", "mean_vp", "rating"):
            assert sa["agents"][label][key] == sb["agents"][label][key]


def test_every_lineup_plays_equally_and_the_summary_adds_up(tmp_path, capsys):
    code = main(["tournament", "--agents", "greedy,random", "--players", "2", "--games", "7",
                 "--seed", "0", "--workers", "1", "--out", str(tmp_path), "--no-progress"])
    assert code == 0
    captured = capsys.readouterr()
    assert "7 games rounded up to 8" in captured.err
    assert "greedy" in captured.out and "95% CI" in captured.out
    games = read_games(tmp_path)
    assert len(games) == 8
    lineups = [(g["seat0_agent"], g["seat1_agent"]) for g in games]
    assert lineups.count(("greedy", "random")) == lineups.count(("random", "greedy")) == 4
    summary = json.loads((tmp_path / "summary.json").read_text())
    for label in ("greedy", "random"):
        s = summary["agents"][label]
        assert s["games"] == 8
        seats = [(g, k) for g in games for k in (0, 1) if g[f"seat{k}_agent"] == label]
        vps = [int(g[f"seat{k}_vp"]) for g, k in seats]
        assert s["mean_vp"] == pytest.approx(sum(vps) / 8)
        wins = sum(1 / len(g["winners"].split(";")) for g, k in seats
                   if str(k) in g["winners"].split(";"))
        assert s["wins"] == pytest.approx(wins) and s["win_rate"] == pytest.approx(wins / 8)
        lo, hi = s["win_rate_ci95"]
        assert lo <= s["win_rate"] <= hi
    assert summary["agents"]["greedy"]["rating"] > summary["agents"]["random"]["rating"]
    assert len({g["seed"] for g in games}) == 8  # a seed of its own per game


def test_wilson_interval_known_values():
    lo, hi = wilson_interval(0, 40)
    assert lo == 0.0 and hi == pytest.approx(0.0876, abs=1e-4)
    lo, hi = wilson_interval(20, 40)
    assert lo == pytest.approx(0.3520, abs=1e-4) and hi == pytest.approx(0.6480, abs=1e-4)


@pytest.mark.parametrize("args,message", [
    (["--agents", "random,gredy"], "unknown agent 'gredy' (did you mean 'greedy'?)"),
    (["--players", "5"], "--players 5: Meduris is played by 2, 3 or 4"),
    (["--agents", "greedy,random", "--players", "3"],
     "3 players need at least 3 agents, got 2; repeat a name"),
    (["--agents", "mcts:fast,random"], "write mcts:<iterations>"),
    (["--out", "/dev/null/results"], "cannot write results to '/dev/null/results'"),
    (["--games", "0"], "argument --games: 0 is outside 1..1000000"),
    (["--seed", "-3"], "argument --seed: -3 is outside 0..9223372036854775807"),
    (["--workers", "x"], "argument --workers: 'x' is not a whole number"),
    (["--agents", "random,,greedy"], "--agents: the 2nd agent name is empty (of 3); write names "
     "separated by single commas, e.g. random,greedy,mcts:200"),
    (["--agents", ",random,greedy"], "--agents: the 1st agent name is empty (of 3)"),
    (["--agents", "random,greedy, "], "--agents: the 3rd agent name is empty (of 3)"),
    (["--agents", ",,"], "--agents needs a comma-separated list of agent names"),
])
def test_cli_errors_are_one_line_naming_the_fix(args, message, capsys):
    try:
        code = main(["tournament", "--no-progress", "--workers", "1", *args])
    except SystemExit as done:  # argparse's own checks exit
        code = done.code
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert err.startswith("meduris: error: ") and message in err
    assert "\n" not in err and "Traceback" not in err


def test_earlier_results_are_kept_unless_forced_and_then_replaced_not_mixed(tmp_path):
    (tmp_path / "summary.json").write_text('{"old": true}\n')
    refused = run_cli("tournament", "--agents", "random,greedy", "--games", "2", "--out",
                      str(tmp_path), "--no-progress")
    assert refused.returncode == 2 and "add --force to replace them" in refused.stderr
    assert (tmp_path / "summary.json").read_text() == '{"old": true}\n'
    (tmp_path / "records").mkdir()
    (tmp_path / "records" / "game-00099.json").write_text("{}")  # an earlier run's record
    done = run_cli("tournament", "--agents", "random,greedy", "--games", "2", "--out",
                   str(tmp_path), "--no-progress", "--force", "--save-records", "0")
    assert done.returncode == 0, done.stderr
    assert json.loads((tmp_path / "summary.json").read_text())["games"] == 2
    assert sorted(p.name for p in (tmp_path / "records").iterdir()) == ["game-00000.json"]


def test_a_killed_tournament_leaves_old_results_whole_and_no_half_written_files(tmp_path):
    (tmp_path / "summary.json").write_text('{"old": true}\n')
    proc = subprocess.Popen([sys.executable, "-m", "meduris_rl.cli", "tournament", "--agents",
                             "mcts:300,greedy", "--games", "200", "--workers", "2", "--force",
                             "--out", str(tmp_path), "--no-progress"], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    time.sleep(4)
    assert proc.poll() is None, proc.communicate()
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    # the old results are whole; beside them only the journal of the games finished so far,
    # from which --resume would complete the run (issue 46: nothing played is lost)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["progress.jsonl", "summary.json"]
    assert json.loads((tmp_path / "summary.json").read_text()) == {"old": True}
    from meduris_rl.agents.arena.tournament.journal import Journal
    cfg, done = Journal(tmp_path).read()
    assert cfg.games == 200 and all(r.turns > 0 for r in done.values())


def test_cli_entry_point_runs_the_default_agents(tmp_path):
    done = run_cli("tournament", "--agents", "random,greedy", "--games", "4", "--out",
                   str(tmp_path), "--no-progress")
    assert done.returncode == 0, done.stderr
    assert "4 games, 2 players, 2 lineups played equally" in done.stdout
    assert len(read_games(tmp_path)) == 4


def test_module_api_matches_the_cli(tmp_path):
    results, summary = run_tournament(TournamentConfig(agents=["greedy", "random"], games=4,
                                                       seed=0))
    main(["tournament", "--agents", "greedy,random", "--games", "4", "--seed", "0",
          "--workers", "1", "--out", str(tmp_path), "--no-progress"])
    assert [str(r.seed) for r in results] == [g["seed"] for g in read_games(tmp_path)]
    assert summary["agents"]["greedy"]["wins"] == json.loads(
        (tmp_path / "summary.json").read_text())["agents"]["greedy"]["wins"]


def test_the_leaderboard_stays_aligned_with_long_agent_names():
    from meduris_rl.agents.arena.tournament import leaderboard
    long = "ppo:runs/a-very-long-folder-name/snapshots/step_1000000.pt"
    row = {"games": 4, "wins": 2.0, "win_rate": 0.5, "win_rate_ci95": [0.1, 0.9], "mean_vp": 40.0,
           "sd_vp": 3.0, "mean_turns": 50.0, "rating": 25.0, "rating_sigma": 5.0,
           "rating_ordinal": 10.0, "seconds_per_decision": 0.001}
    summary = {"agents": {long: row, "greedy": {**row, "rating_ordinal": 9.0}}, "games": 4,
               "lineups": 2, "config": {"players": 2, "seed": 0}}
    lines = leaderboard(summary).splitlines()
    table = [lines[0]] + lines[2:4]
    assert len({line.index("games") if i == 0 else len(line) for i, line in enumerate(table)
                if i}) == 1  # the two rows end in the same column
    assert all(line.rstrip().endswith(("1.00         0", "ms/move  forfeits")) for line in table)
    assert lines[2].startswith(long + " ") and lines[3].startswith("greedy ")
    # a 10,000-character name is cut, terminal escape codes are shown, not obeyed (issue 46)
    huge, escape = "x" * 10_000, "evil\x1b[2J\x1b[31mred"
    summary["agents"] = {huge: row, escape: {**row, "rating_ordinal": 9.0}}
    lines = leaderboard(summary).splitlines()
    assert max(len(line) for line in lines) < 200 and "\x1b" not in "".join(lines)
    assert lines[2].startswith("x" * 61 + "...") and lines[3].startswith("evil\\x1b[2J")


@pytest.mark.parametrize("agents,players,lineups", [(40, 4, "2,193,360"), (60, 4, "11,703,240"),
                                                    (1001, 2, "1,001,000"),
                                                    (20_000, 3, "7,998,800,040,000")])
def test_more_lineups_than_games_allowed_are_refused_before_any_is_listed(
        agents, players, lineups, tmp_path, capsys, monkeypatch):
    """40 agents at 4 players make 2,193,360 lineups (each plays at least once): refused in one
    line naming the fix, before the lineups are listed (60 agents would take 3 GB) and before
    any agent is built or any file written."""
    import itertools

    import meduris_rl.agents.arena.tournament.schedule as schedule

    def no_listing(*args):
        raise AssertionError("the lineups were listed")
    monkeypatch.setattr(itertools, "permutations", no_listing)
    monkeypatch.setattr(schedule, "check_agent", no_listing)
    out = tmp_path / "out"
    code = main(["tournament", "--agents", ",".join(["random"] * agents), "--players",
                 str(players), "--out", str(out), "--no-progress", "--workers", "1"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert err == (f"meduris: error: {agents} agents at {players} players make {lineups} "
                   "lineups, more than the 1,000,000 games a tournament may play (each lineup "
                   "plays at least once); give fewer agents (--agents) or fewer players "
                   "(--players)\n")
    assert not out.exists()
    cfg = TournamentConfig(agents=["random"] * agents, players=players)
    with pytest.raises(schedule.TournamentError, match="give fewer agents \\(agents\\) or "
                                                       "fewer players \\(players\\)"):
        schedule.check_config(cfg)


def test_the_lineup_bound_is_the_games_flags_maximum():
    from meduris_rl.agents.arena.tournament.schedule import MAX_GAMES, check_lineups
    from meduris_rl.cli.checks import MAX_GAMES as FLAG_MAX

    assert MAX_GAMES == FLAG_MAX
    assert check_lineups(32, 4) == 863_040 and check_lineups(1000, 2) == 999_000
    assert check_lineups(3, 3) == 6
