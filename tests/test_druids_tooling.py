"""The shared tooling plays Druids (issue 28): one error family, one play loop, one table of
games and agent kinds, tournaments, duels and game records with ``game`` a parameter; Meduris's
outputs unchanged (tests/test_same_games.py holds the digests)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import druids_env
from druids_env import DruidsGame
from meduris_env import MedurisGame
from meduris_env.engine.chance import sample_chance
from meduris_env.engine.state import IllegalActionError as StateIllegal
from meduris_rl.agents.arena.match import play_game
from meduris_rl.agents.arena.tournament import TournamentConfig, run_tournament
from meduris_rl.agents.registry import AgentSpec, UnknownAgentError, make_agent
from meduris_rl.cli.main import main
from meduris_rl.kit import errors, loop
from meduris_rl.kit.games import check_game, game_spec, games, spec_of
from meduris_rl.kit.records import GameRecord, RecordError

ROOT = Path(__file__).resolve().parents[1]


# --- one error, one loop ---------------------------------------------------------------------
def test_one_illegal_action_error_for_every_game():
    assert StateIllegal is errors.IllegalActionError  # the re-export: import sites unchanged
    assert issubclass(druids_env.IllegalActionError, errors.IllegalActionError)
    assert issubclass(druids_env.IllegalActionError, druids_env.DruidsError)
    st = DruidsGame(2).new_initial_state()
    with pytest.raises(errors.IllegalActionError):
        st.apply_action(0)  # a decision at the setup's chance node


def test_the_loop_is_shared_and_druids_copy_is_gone():
    assert not (ROOT / "druids_env" / "engine" / "loop.py").exists()
    assert druids_env.play is loop.play and druids_env.resolve_chance is loop.resolve_chance
    assert druids_env.random_decide is loop.random_decide
    st = DruidsGame(3).new_initial_state()
    rng = random.Random(4)
    made = loop.play(st, loop.random_decide(rng), rng)
    assert st.is_terminal() and made > 0 and not druids_env.check(st)


def test_an_illegal_druids_decision_names_the_agent():
    st = DruidsGame(2).new_initial_state()
    with pytest.raises(druids_env.IllegalActionError, match="agent bad at seat 0"):
        loop.play(st, lambda s, seat: 10_000, random.Random(0),
                  who=lambda s: f"agent bad at seat {s}")


def test_meduris_sample_chance_is_the_chance_module_exactly():
    game = MedurisGame(3)
    for seed in range(5):
        st, rng_a, rng_b = game.new_initial_state(), random.Random(seed), random.Random(seed)
        for _ in range(40):
            if st.is_terminal():
                break
            if st.is_chance_node():
                a = st.sample_chance(rng_a)
                assert a == sample_chance(st, rng_b)
                st.apply_action(a)
            else:
                legal = st.legal_actions()
                st.apply_action(legal[len(legal) // 2])


# --- the tables ------------------------------------------------------------------------------
def test_the_table_of_games():
    assert list(games())[:2] == ["meduris", "druids"]  # the default game first
    assert spec_of(DruidsGame(2)) is druids_env.ROW and spec_of(MedurisGame(2)) is game_spec()
    game = game_spec("druids").make(4, {"max_turns": 300})
    assert game == DruidsGame(4, max_turns=300)
    assert game_spec("druids").make(2) == DruidsGame(2, max_turns=500)  # its own turn limit
    with pytest.raises(ValueError, match="Druids has no such option; its options: circles"):
        game_spec("druids").make(2, {"exchange": "auto"})
    st = game.new_initial_state()
    druids_env.resolve_chance(st, random.Random(1))
    obs = game_spec("druids").observe(st, st.current_player())
    assert obs["action_mask"].sum() == len(st.legal_actions())
    assert obs["observation"].shape == druids_env.observation_tensor(st, 0).shape
    with pytest.raises(ValueError, match="unknown game 'chess'"):
        check_game("chess")


def test_agent_kinds_name_their_games():
    assert AgentSpec.parse("greedy", game="druids").game == "druids"
    assert AgentSpec.parse("greedy").game == "meduris"  # the default game
    assert AgentSpec.parse("greedy") == AgentSpec.parse(str(AgentSpec.parse("greedy")))
    assert type(make_agent("greedy", "druids")).__name__ == "DruidsGreedyAgent"
    assert type(make_agent("greedy")).__name__ == "GreedyAgent"
    assert type(make_agent("random", "druids")).__name__ == "RandomAgent"


@pytest.mark.parametrize("name,words", [
    ("mcts:20", "agent 'mcts:20' does not play druids; druids agents: random, greedy"),
    ("az", "agent 'az' does not play druids"),
    ("grredy", "unknown agent 'grredy' (did you mean 'greedy'?); known agents: random, greedy, "
               "ppo, ismcts"),
    ("openspiel-mcts", "does not play druids"),
])
def test_a_kind_not_serving_the_game_is_refused_in_one_line(name, words):
    with pytest.raises(UnknownAgentError) as err:
        AgentSpec.parse(name, game="druids")
    assert words in str(err.value) and "\n" not in str(err.value)


def test_meduris_agents_game_druids_lists_the_druids_kinds(capsys):
    assert main(["agents", "--game", "druids", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    names = [row["name"] for row in out["agents"]]
    assert out["game"] == "druids" and names[:2] == ["random", "greedy"] and "mcts" not in names
    assert main(["agents", "--game", "druids"]) == 0
    assert "Druids heuristic" in capsys.readouterr().out


# --- matches, tournaments, duels ---------------------------------------------------------------
def test_play_game_and_its_record_round_trip(tmp_path):
    game = DruidsGame(3)
    agents = [make_agent("greedy", "druids"), make_agent("random", "druids"),
              make_agent("greedy", "druids")]
    r = play_game(game, agents, 11, keep_record=True)
    again = play_game(game, agents, 11, keep_record=True)
    assert r.record == again.record  # the same seed, the same game
    assert r.end_reason in ("the last place (D11)", "the moving column (D12)",
                            "a round without play (D11b)")
    rec = GameRecord.from_dict(r.record)
    assert rec.game_name == "druids" and r.record["game"]["name"] == "druids"
    final = rec.replay()
    assert final.scores() == r.vp and final.is_terminal()
    path = rec.save(tmp_path / "g.json")
    loaded = GameRecord.load(path)
    assert loaded.to_dict() == r.record and loaded.replay() == final
    bad = json.loads(path.read_text())
    bad["result"]["scores"][0] += 1
    with pytest.raises(RecordError, match="replayed scores"):
        GameRecord.from_dict(bad).replay()
    bad["game"]["name"] = "chess"
    with pytest.raises(RecordError, match="game 'chess' is not known"):
        GameRecord.from_dict(bad)


def test_a_meduris_record_has_no_game_name():
    r = play_game(MedurisGame(2), [make_agent("random"), make_agent("random")], 3,
                  keep_record=True)
    assert "name" not in r.record["game"]
    assert GameRecord.from_dict(r.record).game_name == "meduris"


def test_tournament_config_plays_druids_and_every_summary_names_its_game():
    cfg = TournamentConfig(agents=["greedy", "random"], games=20, game="druids")
    results, summary = run_tournament(cfg)
    assert summary["config"]["game"] == "druids" and len(results) == 20
    assert summary["agents"]["greedy"]["win_rate"] >= 0.8
    _, meduris = run_tournament(TournamentConfig(agents=["random", "random"], games=2))
    assert meduris["config"]["game"] == "meduris" and meduris["config"]["options"] == {}


def test_the_leaderboard_heads_the_score_column_with_the_games_score_word():
    """A Druids score counts amulets (D5), a Meduris score victory points: the leaderboard's
    score column says which, its rows aligned under the wider heading."""
    from meduris_rl.agents.arena.tournament import leaderboard

    row = {"games": 4, "wins": 2.0, "win_rate": 0.5, "win_rate_ci95": [0.1, 0.9],
           "mean_vp": 40.0, "sd_vp": 3.0, "mean_turns": 22.0, "rating": 25.0,
           "rating_sigma": 5.0, "rating_ordinal": 10.0, "seconds_per_decision": 0.001}
    for config, word in (({"players": 2, "seed": 0, "game": "druids"}, "amulets"),
                         ({"players": 2, "seed": 0}, "VP")):
        summary = {"agents": {"greedy": row}, "games": 4, "lineups": 2, "config": config}
        head, _, line = leaderboard(summary).splitlines()[:3]
        assert f"{word} mean ± sd" in head and ("VP" in head) == (word == "VP")
        end = head.index(f"{word} mean ± sd") + len(f"{word} mean ± sd")
        assert line[:end].endswith("40.0 ± 3.0") and head.index("turns") + 5 == end + 7


def test_tournament_cli_with_game_druids(tmp_path, capsys):
    out = tmp_path / "t"
    assert main(["tournament", "--game", "druids", "--agents", "random,greedy", "--games", "8",
                 "--workers", "1", "--out", str(out), "--no-progress",
                 "--save-records", "0"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["config"]["game"] == "druids" and summary["games"] == 8
    rec = GameRecord.load(out / "records" / "game-00000.json")
    assert rec.game_name == "druids" and rec.replay().is_terminal()
    capsys.readouterr()
    assert main(["tournament", "--game", "druids", "--agents", "random,mcts", "--games", "2",
                 "--out", str(tmp_path / "u"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "does not play druids" in err and err.count("\n") == 1
    assert main(["tournament", "--game", "druids", "--players", "5", "--agents",
                 "random,greedy", "--out", str(tmp_path / "v"), "--no-progress"]) == 2
    assert "Druids is played by 2, 3 or 4 (D2)" in capsys.readouterr().err


def test_meduris_replay_shows_a_druids_record_in_words_and_refuses_html_in_one_line(
        tmp_path, capsys):
    out = tmp_path / "t"
    assert main(["tournament", "--game", "druids", "--agents", "greedy,random", "--games", "2",
                 "--workers", "1", "--out", str(out), "--no-progress",
                 "--save-records", "0"]) == 0
    record = out / "records" / "game-00000.json"
    capsys.readouterr()
    assert main(["replay", str(record), "--all"]) == 0
    text = capsys.readouterr().out
    steps = len(GameRecord.load(record).actions)
    assert f"step {steps}/{steps}: " in text and "hand: " in text  # every step, cards shown
    assert "play " in text and "(replayed exactly)" in text
    assert " amulets" in text.splitlines()[-2] + text.splitlines()[-1] and " VP" not in text
    page = tmp_path / "r.html"
    assert main(["replay", str(record), "--html", str(page)]) == 2
    err = capsys.readouterr().err
    assert "--html: Druids has no page of its own (only Meduris draws its board)" in err
    assert err.count("\n") == 1 and not page.exists()


def test_duel_cli_with_game_druids(capsys):
    assert main(["duel", "--game", "druids", "greedy", "random", "--workers", "1",
                 "--max-games", "40", "--elo1", "200", "--json", "--no-progress"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["config"]["game"] == "druids" and out["score"] > 0.8
    assert main(["duel", "greedy", "random", "--workers", "1", "--max-games", "2", "--json",
                 "--no-progress"]) == 0
    assert json.loads(capsys.readouterr().out)["config"]["game"] == "meduris"


def test_every_game_s_parts_import():
    """A game-specific part lives with its game and its row names it (meduris_rl.kit.games);
    the shared modules ask the row (tests/test_architecture.py reads them for game names).
    Every part of every installed game is there and imports."""
    for name, spec in games().items():
        if name not in ("meduris", "druids"):
            continue  # (a game a test registered)
        assert {"agent_kinds", "ladder", "features", "human", "train_env", "win_rate"} <= {
            part for part, _ in spec.parts}, name
        for part, _ in spec.parts:
            assert spec.part(part) is not None
