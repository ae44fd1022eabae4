"""Duels (``meduris duel``, :mod:`meduris_rl.agents.arena.duel`) and their statistics
(:mod:`meduris_rl.agents.arena.sprt`): the LLR against hand-computed and independently computed
values, the SPRT's error rates by simulation, real duels that accept H1 and H0, determinism over
workers, --json, the LLR in the progress bar, one-line errors, Ctrl-C, and plug-ins of every form
played in two worker processes."""

from __future__ import annotations

import json
import math
import os
import sys
import time
from pathlib import Path

import numpy as np
import psutil
import pytest
from test_ladder import outside_folder, played_in

from meduris_rl.agents.arena import sprt
from meduris_rl.agents.arena.duel import DuelConfig, pair_tasks, run_duel
from meduris_rl.cli.main import main

REPO = Path(__file__).resolve().parent.parent


# --- the statistics -----------------------------------------------------------------------------
def reference_llr(counts, elo0, elo1):
    """An independent transcription of fishtest's LLR_logistic: regularize, solve each secular
    equation by plain bisection over scalars, sum the jumps."""
    c = [x if x else 1e-3 for x in counts]
    n = sum(c)
    pdf = [(i / 4, x / n) for i, x in enumerate(c)]

    def mle(s):
        lo, hi = -1 / (1 - s) + 1e-12, 1 / s - 1e-12
        for _ in range(200):
            mid = (lo + hi) / 2
            if sum(p * (a - s) / (1 + mid * (a - s)) for a, p in pdf) > 0:
                lo = mid
            else:
                hi = mid
        return [p / (1 + lo * (a - s)) for a, p in pdf]

    s0, s1 = (1 / (1 + 10 ** (-e / 400)) for e in (elo0, elo1))
    q0, q1 = mle(s0), mle(s1)
    return n * sum(p * math.log(b / a) for (_, p), a, b in zip(pdf, q0, q1, strict=True))


def test_llr_of_five_equal_pair_counts_matches_the_hand_computed_normal_approximation():
    # counts 1,1,1,1,1: per-game pair scores 0, 1/4, 1/2, 3/4, 1 with mean 1/2 and variance
    # 1/8; elo0 0 is s0 = 1/2, elo1 20 is s1 = 1/2 + d with d = 0.0287506...; the normal
    # approximation N (s1 - s0)(2s - s0 - s1) / (2 var) = 5 * d * (-d) / (1/4) = -20 d^2
    d = 1 / (1 + 10 ** (-20 / 400)) - 0.5
    assert d == pytest.approx(0.0287506, abs=1e-7)
    hand = -20 * d * d  # -0.016532
    assert sprt.llr_normal([1, 1, 1, 1, 1], 0, 20) == pytest.approx(hand, rel=1e-3)
    assert sprt.llr([1, 1, 1, 1, 1], 0, 20) == pytest.approx(hand, rel=1e-2)


@pytest.mark.parametrize("counts, elo0, elo1", [
    ([3, 5, 8, 5, 3], 0, 50), ([1, 2, 4, 10, 15], 0, 100), ([15, 10, 4, 2, 1], -50, 0),
    ([0, 0, 24, 0, 0], 0, 10), ([0, 0, 0, 0, 10], 0, 5), ([2, 3, 5, 7, 3], -20, 20)])
def test_llr_agrees_with_an_independent_transcription_of_fishtest(counts, elo0, elo1):
    assert sprt.llr(counts, elo0, elo1) == pytest.approx(reference_llr(counts, elo0, elo1),
                                                         rel=1e-9, abs=1e-12)


def test_llr_of_an_array_of_counts_is_the_llr_of_each_row_and_zero_without_pairs():
    rows = np.array([[3, 5, 8, 5, 3], [0, 0, 0, 0, 0], [1, 2, 4, 10, 15]])
    got = sprt.llr(rows, 0, 20)
    assert got[1] == 0.0
    assert got[0] == pytest.approx(sprt.llr([3, 5, 8, 5, 3], 0, 20))
    assert got[2] == pytest.approx(sprt.llr([1, 2, 4, 10, 15], 0, 20))


def test_bounds_are_walds_and_decide_compares_with_them():
    lower, upper = sprt.bounds(0.05, 0.05)
    assert (lower, upper) == pytest.approx((-math.log(19), math.log(19)))
    assert sprt.bounds(0.05, 0.1) == pytest.approx((math.log(0.1 / 0.95), math.log(0.9 / 0.05)))
    assert [sprt.decide(v, lower, upper) for v in (-3, 0, 3)] == ["H0", None, "H1"]


def test_elo_interval_matches_the_hand_computed_one():
    # counts 3,5,8,5,3 (24 pairs): mean 1/2, variance (2*3*0.25 + 2*5*0.0625) / 24, so
    # se = sqrt(2.125 / 24) / sqrt(24) and the interval is -+ 400 log10((1/2 + 1.96 se) /
    # (1/2 - 1.96 se)) = -+ 84.34
    elo, low, high = sprt.elo_interval([3, 5, 8, 5, 3])
    se = math.sqrt(2.125 / 24) / math.sqrt(24)
    half = 400 * math.log10((0.5 + sprt.Z95 * se) / (0.5 - sprt.Z95 * se))
    assert elo == 0.0 and half == pytest.approx(84.3405, abs=1e-3)
    assert (low, high) == pytest.approx((-half, half))
    assert sprt.elo_of_score(sprt.score_of_elo(123.0)) == pytest.approx(123.0)


def test_pentanomial_counts_pair_scores_and_refuses_others():
    assert sprt.pentanomial([0, 0.5, 1, 1, 2, 1.5]) == [1, 1, 2, 1, 1]
    with pytest.raises(ValueError, match="0.75"):
        sprt.pentanomial([0.75])


def tilted(base: np.ndarray, score: float) -> np.ndarray:
    """``base`` exponentially tilted (p_k exp(t a_k)) to the mean per-game score ``score``."""
    lo, hi = -50.0, 50.0
    for _ in range(100):
        t = (lo + hi) / 2
        p = base * np.exp(t * sprt.VALUES)
        if (p * sprt.VALUES).sum() / p.sum() < score:
            lo = t
        else:
            hi = t
    return p / p.sum()


def simulate_sprts(pdf, elo0, elo1, alpha, beta, runs, max_pairs, seed):
    """``runs`` SPRTs on pairs drawn from ``pdf``: how many accepted H0, H1, and their mean
    length in pairs."""
    rng = np.random.default_rng(seed)
    lower, upper = sprt.bounds(alpha, beta)
    counts = np.zeros((runs, 5))
    verdict = np.zeros(runs, dtype=np.int8)  # 0 undecided, -1 H0, +1 H1
    length = np.zeros(runs)
    cdf = np.cumsum(pdf)
    for step in range(1, max_pairs + 1):
        active = np.flatnonzero(verdict == 0)
        if active.size == 0:
            break
        drawn = np.minimum(np.searchsorted(cdf, rng.random(active.size)), 4)
        counts[active, drawn] += 1
        value = sprt.llr(counts[active], elo0, elo1)
        verdict[active[value <= lower]] = -1
        verdict[active[value >= upper]] = 1
        length[active] = step
    return int((verdict == -1).sum()), int((verdict == 1).sum()), float(length.mean())


@pytest.mark.parametrize("truth", ["elo0", "elo1"])
def test_sprt_error_rates_by_simulation_stay_near_alpha_and_beta(truth):
    # 1,000 SPRTs with pairs drawn at elo0 (a correct test accepts H1 at most ~alpha of the
    # time) and at elo1 (accepts H0 at most ~beta); 0.02 allows three binomial deviations
    elo0, elo1, alpha, beta, runs = 0.0, 50.0, 0.05, 0.05, 1000
    base = np.array([0.08, 0.22, 0.4, 0.22, 0.08])  # a spread like a real duel's
    elo = elo0 if truth == "elo0" else elo1
    pdf = tilted(base, sprt.score_of_elo(elo))
    assert (pdf * sprt.VALUES).sum() == pytest.approx(sprt.score_of_elo(elo))
    h0, h1, mean_pairs = simulate_sprts(pdf, elo0, elo1, alpha, beta, runs, 2000, seed=1)
    assert h0 + h1 == runs  # every test decided
    wrong, limit = (h1, alpha) if truth == "elo0" else (h0, beta)
    assert wrong / runs <= limit + 0.02, (h0, h1)
    assert wrong > 0  # the test is not needlessly conservative: it does err sometimes
    assert 10 < mean_pairs < 300, mean_pairs


# --- real duels ---------------------------------------------------------------------------------
def duel_json(capsys, *args) -> dict:
    assert main(["duel", *args, "--json", "--no-progress"]) == 0
    return json.loads(capsys.readouterr().out)


def test_a_duel_pairs_games_with_the_same_seed_and_seats_swapped():
    tasks = list(pair_tasks(7, 3))
    assert [t[0] for t in tasks] == list(range(6))
    assert [t[1] for t in tasks] == [(0, 1), (1, 0)] * 3
    seeds = [t[2] for t in tasks]
    assert seeds[0::2] == seeds[1::2] and len(set(seeds)) == 3
    independent = [t[2] for t in pair_tasks(7, 3, seeds="independent")]
    assert len(set(independent)) == 6


def test_mcts_against_random_accepts_h1_early(capsys):
    d = duel_json(capsys, "mcts:50", "random", "--elo1", "200", "--max-games", "40",
                  "--workers", "1")
    assert d["result"] == "H1" and d["llr"] >= d["upper_bound"]
    assert d["games"] < 40 and d["games"] == 2 * d["pairs"] == 2 * sum(d["pentanomial"])
    assert d["elo"] > 200 and d["score"] > 0.8


def test_greedy_against_itself_accepts_h0(capsys):
    d = duel_json(capsys, "greedy", "greedy", "--elo1", "50", "--workers", "1")
    assert d["result"] == "H0" and d["llr"] <= d["lower_bound"]
    assert (d["a"], d["b"]) == ("greedy", "greedy#2")
    assert d["elo"] == 0.0  # duplicate play of one agent: every pair is a win and a loss


def test_the_stopping_point_depends_on_the_seed_not_on_the_workers(capsys):
    args = ("greedy", "mcts:5", "--elo0", "-50", "--elo1", "50", "--max-games", "16",
            "--seed", "3")
    one = duel_json(capsys, *args, "--workers", "1")
    two = duel_json(capsys, *args, "--workers", "2")
    for key in ("result", "games", "pairs", "llr", "pentanomial", "elo", "elo_95"):
        assert one[key] == two[key], key


def test_json_output_has_every_figure_and_the_text_output_the_llr_and_bounds(capsys):
    d = duel_json(capsys, "greedy", "random", "--elo1", "200", "--max-games", "8",
                  "--workers", "1", "--option", "exchange=manual")
    assert set(d) >= {"a", "b", "result", "games", "pairs", "llr", "lower_bound", "upper_bound",
                      "elo", "elo_95", "score", "score_se", "pentanomial", "config"}
    assert d["config"]["elo1"] == 200 and d["games"] <= 8
    assert d["config"]["options"] == {"exchange": "manual"} and d["config"]["game"] == "meduris"
    assert d["forfeits"] == {"greedy": 0, "random": 0} and d["forfeit_reasons"] == {}
    if d["score"] in (0.0, 1.0):  # a sweep: no interval from a spread of 0 (as the text says)
        assert d["elo_95"] == [None, None]
    assert main(["duel", "greedy", "random", "--elo1", "200", "--max-games", "8",
                 "--workers", "1", "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "LLR" in text and "bounds -2.944, 2.944" in text and "games in" in text


def test_a_duel_counts_and_names_a_bots_forfeits(capsys, tmp_path):
    """A cmd: bot that answers garbage forfeits every game: the duel says how many, the first
    reason and where the bot's stderr is (in the text and the JSON), not only "very weak"."""
    bot = f"cmd:{sys.executable} {Path(__file__).parent / 'data/bots/faulty_bot.py'} garbage"
    args = [bot, "random", "--max-games", "4", "--workers", "1", "--no-progress"]
    d = duel_json(capsys, *args)
    assert d["forfeits"] == {bot: 4, "random": 0}
    assert d["forfeit_reasons"][bot].startswith("malformed: ")
    assert main(["duel", *args]) == 0
    text = capsys.readouterr().out
    assert f"{bot} forfeited 4 game(s), the first: malformed: " in text
    assert "meduris-bots" in text  # (no --out: the temp folder of the bots' logs)


def exit_status(argv) -> int:
    """``main``'s exit status, also for argparse's usage errors (which exit)."""
    try:
        return main(argv)
    except SystemExit as stop:
        return stop.code


@pytest.mark.parametrize("flags, words", [
    (["--alpha", "0.5"], "--alpha 0.5"), (["--beta", "0"], "--beta 0"),
    (["--alpha", "-0.1"], "--alpha -0.1"), (["--alpha", "nan"], "--alpha nan"),
    (["--elo0", "20"], "--elo0 20 must be below --elo1 20"),
    (["--elo0", "30", "--elo1", "10"], "--elo0 30 must be below --elo1 10"),
    (["--elo1", "inf"], "--elo1 inf"), (["--players", "3"], "--players 3"),
    (["--max-games", "1"], "argument --max-games"), (["--workers", "0"], "argument --workers"),
    (["--alpha", "x"], "argument --alpha")])
def test_bad_flags_are_one_line_errors(capsys, flags, words):
    assert exit_status(["duel", "greedy", "random", "--no-progress", *flags]) == 2
    err = capsys.readouterr().err
    assert err.startswith("meduris: error:") and words in err and err.count("\n") == 1, err


def test_unknown_agents_are_one_line_errors(capsys):
    assert main(["duel", "greedy", "rando", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "unknown agent 'rando'" in err and "random" in err and err.count("\n") == 1


def test_run_duel_checks_its_config_before_any_game():
    with pytest.raises(sprt.SprtError, match="alpha"):
        run_duel(DuelConfig("greedy", "random", alpha=0.7))


def test_ctrl_c_stops_a_duel_and_its_workers_and_prints_what_was_played():
    from test_interrupt import assert_stopped, interrupt_when, start

    proc = start("duel", "mcts:300", "mcts:300", "--workers", "2", "--no-progress")

    def playing() -> bool:  # multiprocessing's resource tracker and both workers spawned
        if len(psutil.Process(proc.pid).children(recursive=True)) < 3:
            return False
        time.sleep(2)  # the workers at their first games
        return True

    code, err, children = interrupt_when(proc, playing, timeout=120)
    assert code == 130, err
    assert "interrupted" in proc.stdout_text and "LLR" in proc.stdout_text
    assert "Traceback" not in err
    assert_stopped(children)


def test_duel_benchmark_reports_its_documented_keys(tmp_path):
    from helpers import load_benchmark

    out = load_benchmark("duel").main(["--games", "8", "--b", "mcts:5", "--workers", "1",
                                       "--out", str(tmp_path / "b.json"), "--json"])
    assert out["games"] == 8 and out["pairs"] == 4
    for key in ("pair_se", "independent_se", "variance_ratio", "variance_ratio_95",
                "pair_correlation", "pair_mean", "independent_mean", "wall_s"):
        assert key in out, key
    if out["independent_se"] > 0:
        assert out["variance_ratio"] == pytest.approx((out["pair_se"] / out["independent_se"])
                                                      ** 2)
    assert json.loads((tmp_path / "b.json").read_text()) == out


def test_plug_in_agents_from_a_file_and_a_program_duel(tmp_path, capsys):
    bots = tmp_path / "bots.py"
    bots.write_text("def first(observation):\n"
                    "    return int(observation['action_mask'].nonzero()[0][0])\n")
    d = duel_json(capsys, f"{bots}:first", "greedy", "--elo1", "200", "--max-games", "8",
                  "--workers", "1")
    assert d["a"] == f"{bots}:first" and d["games"] >= 2 and d["result"] in ("H0", "max-games")
    bot = REPO / "examples" / "random_bot.py"
    d = duel_json(capsys, f"cmd:{sys.executable} {bot}", "greedy", "--elo1", "200",
                  "--max-games", "4", "--workers", "1", "--move-time", "20", "--game-time",
                  "600")
    assert d["games"] == 4 and d["config"]["move_time"] == 20
    assert d["config"]["game_time"] == 600


@pytest.fixture
def outside(tmp_path_factory, monkeypatch) -> Path:
    return outside_folder(tmp_path_factory, monkeypatch)


def test_plug_ins_of_every_form_duel_on_two_workers(outside, capsys):
    """A file from outside the project against a module on the path, then the installed entry
    point: each built and played inside the two worker processes (never in this one)."""
    bots = f"{outside / 'bots' / 'p27file.py'}:make"
    d = duel_json(capsys, bots, "p27mod:make:1", "--elo1", "200", "--max-games", "4",
                  "--workers", "2")
    assert (d["a"], d["b"], d["games"]) == (bots, "p27mod:make:1", 4)
    assert sum(d["pentanomial"]) == 2 and d["config"]["workers"] == 2
    if (os.cpu_count() or 1) >= 2:
        pids = played_in(outside)
        assert pids and os.getpid() not in pids, pids
    d = duel_json(capsys, "cautious:2", "greedy", "--elo1", "200", "--max-games", "4",
                  "--workers", "2")
    assert (d["a"], d["games"], sum(d["pentanomial"])) == ("cautious:2", 4, 2)


def test_the_progress_bar_shows_the_llr_against_its_bounds(capsys):
    assert main(["duel", "greedy", "random", "--elo1", "200", "--max-games", "8",
                 "--workers", "1"]) == 0
    out, err = capsys.readouterr()
    llr = float(out.split("LLR ")[1].split()[0])  # the summary's
    games = int(out.split(" games in ")[0].split()[-1])
    assert f"LLR {llr:+.2f} [-2.94, 2.94]" in err, err  # the bar's postfix, at its end
    assert "duel: " in err and f"{games}/8" in err, err
