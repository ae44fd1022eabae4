"""Stone Age through the shared tools, by its row only (the kit issue's rule): tournaments
(in worker processes, with the expansion as an option), duels, records and ``replay``, a
``cmd:`` bot told only what its seat knows, the state files, the OpenSpiel game and the
environments' own guarantees."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

import stoneage_env as SA
from meduris_rl.agents.arena.match import play_game
from meduris_rl.agents.arena.tournament import TournamentConfig, run_tournament
from meduris_rl.agents.registry import make_agent
from meduris_rl.cli.main import main
from meduris_rl.kit.games import game_spec
from meduris_rl.kit.records import GameRecord, RecordError
from stoneage_env.envs import StoneAgeSingleAgentEnv, env

REPO = Path(__file__).resolve().parent.parent
PY = sys.executable


def test_the_row_and_its_options():
    row = game_spec("stone_age")
    assert row.player_counts == (2, 3, 4) and row.score_unit == "VP"
    assert row.option_names == ("mammoth_herd", "tiles", "max_rounds")
    game = row.make(3, {"mammoth_herd": True, "max_rounds": 40})
    assert game.mammoth_herd and game.max_rounds == 40 and game.num_players == 3
    assert row.parse_options(["mammoth_herd=yes"]) == {"mammoth_herd": True}
    with pytest.raises(Exception, match="mammoth_herd") as err:
        row.parse_options(["mammoth_herd=maybe"])
    assert "\n" not in str(err.value)
    with pytest.raises(Exception, match="tiles"):
        row.make(2, {"tiles": "/no/such/file.json"})


def test_play_game_and_its_record_round_trip(tmp_path):
    game = SA.StoneAgeGame(3, mammoth_herd=True)
    agents = [make_agent("greedy", "stone_age"), make_agent("random", "stone_age"),
              make_agent("greedy", "stone_age")]
    r = play_game(game, agents, 11, keep_record=True)
    assert r.record == play_game(game, agents, 11, keep_record=True).record
    rec = GameRecord.from_dict(r.record)
    assert rec.game_name == "stone_age" and r.record["game"]["tiles"]["reconstructed"]
    final = rec.replay()
    assert final.scores() == r.vp and final.is_terminal()
    loaded = GameRecord.load(rec.save(tmp_path / "g.json"))
    assert loaded.replay() == final
    bad = json.loads((tmp_path / "g.json").read_text())
    bad["events"][5]["data"]["seat"] = "x"
    with pytest.raises(RecordError, match=r"events\[5\]"):
        GameRecord.from_dict(bad)


def test_tournament_with_the_expansion_in_workers(tmp_path, capsys):
    out = tmp_path / "t"
    assert main(["tournament", "--game", "stone_age", "--option", "mammoth_herd=true",
                 "--agents", "greedy,random", "--games", "8", "--workers", "2", "--out",
                 str(out), "--no-progress", "--save-records", "0", "--seed", "3"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["config"]["game"] == "stone_age"
    assert summary["config"]["options"]["mammoth_herd"] is True
    assert summary["agents"]["greedy"]["win_rate"] >= 0.75
    rec = GameRecord.load(out / "records" / "game-00000.json")
    assert rec.replay().game.mammoth_herd
    capsys.readouterr()
    assert main(["replay", str(out / "records" / "game-00000.json"), "--all"]) == 0
    text = capsys.readouterr().out
    assert "(replayed exactly)" in text and "places" in text and "VP" in text


def test_tournament_config_and_duel_from_python(capsys):
    cfg = TournamentConfig(agents=["greedy", "random"], games=6, game="stone_age", seed=1,
                           workers=1)
    results, summary = run_tournament(cfg)
    assert len(results) == 6 and summary["agents"]["greedy"]["wins"] >= 5
    assert main(["duel", "--game", "stone_age", "greedy", "random", "--workers", "1",
                 "--max-games", "24", "--elo1", "200", "--json", "--no-progress",
                 "--seed", "2"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["config"]["game"] == "stone_age" and out["score"] > 0.8


def test_a_cmd_bot_is_told_only_its_seats_view(tmp_path):
    heard = tmp_path / "heard.jsonl"
    bot = f"cmd:{PY} {REPO / 'tests/data/bots/recorder_bot.py'} {heard}"
    game = SA.StoneAgeGame(2, mammoth_herd=True)
    r = play_game(game, [make_agent(bot, "stone_age"), make_agent("greedy", "stone_age")], 5)
    assert not r.forfeit, r.forfeit
    messages = [json.loads(line) for line in heard.read_text().splitlines()]
    hello = next(m for m in messages if m["type"] == "new_game")
    assert hello["game"] == "stone_age" and hello["mammoth_herd"] is True
    decides = [m for m in messages if m["type"] == "decide"]
    assert decides
    for m in decides:
        position = m["state"]["position"]
        assert "deck" not in position and "secret" not in position
        assert position["cards"] and m["state"]["viewer"] == m["seat"]


def test_state_files_round_trip_and_hostile_ones_are_one_line():
    game = SA.StoneAgeGame(2)
    s = game.new_initial_state()
    play = np.random.default_rng(0)
    while not s.is_terminal() and len(s.history()) < 400:
        legal = s.legal_actions()
        s.apply_action(legal[int(play.integers(len(legal)))] if not s.is_chance_node()
                       else s.chance_outcomes()[0][0])
    text = s.to_json()
    assert game.state_from_json(text) == s
    doc = json.loads(text)
    for edit in ({"history": doc["history"][:-1] + [9999]},
                 {"position": {**doc["position"], "score": [500, 0, 0, 0]}},
                 {"game": {**doc["game"], "num_players": 7}}, {"format": "x"},
                 {"extra": 1}):
        bad = json.dumps({**doc, **edit})
        with pytest.raises(SA.StateFileError) as err:
            game.state_from_json(bad)
        assert "\n" not in str(err.value)
    for text in ("[" * 100_000, '{"a": NaN}', "\xff", ""):
        with pytest.raises(SA.StateFileError):
            game.state_from_json(text)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_openspiel_random_sim_test_passes(n):
    pyspiel = pytest.importorskip("pyspiel")
    import stoneage_env.envs.openspiel  # noqa: F401 (registers python_stone_age)
    game = pyspiel.load_game(f"python_stone_age(players={n},mammoth_herd=True,max_rounds=6)")
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)
    info = game.get_type()
    assert info.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert game.num_distinct_actions() == 100 and game.max_chance_outcomes() == 82


def test_the_env_repeats_by_seed_and_pays_the_engines_returns():
    def run(seed):
        e = env(num_players=3, mammoth_herd=True)
        e.reset(seed=seed)
        seen = []
        for agent in e.agent_iter():
            obs, reward, term, trunc, _ = e.last()
            seen.append((agent, reward))
            e.step(None if term or trunc else e.action_space(agent).sample(obs["action_mask"]))
        return seen, e.unwrapped.state
    first, state = run(4)
    again, _ = run(4)
    assert first == again and state.is_terminal()
    final = {agent: r for agent, r in first[-3:]}
    assert [final[f"player_{s}"] for s in range(3)] == pytest.approx(state.returns())


def test_the_single_agent_env_truncates_at_the_round_limit_without_reward():
    e = StoneAgeSingleAgentEnv(num_players=2, max_rounds=2)
    e.reset(seed=1)
    done = False
    while not done:
        _, reward, term, trunc, _ = e.step(e.action_space.sample())
        done = term or trunc
    assert trunc and not term and reward == 0.0


def test_meduris_play_stone_age_shows_the_seat_its_own_secrets_only(tmp_path):
    """``meduris play --game stone_age`` driven by scripted input (refused lines, then always
    the first action): the game ends with its record saved; the person's lines count another
    seat's face-down card (S24) but never name it, and the final position is the seat's own."""
    import io

    from meduris_rl.cli.commands.play import play

    out = io.StringIO()
    path = tmp_path / "sa.json"
    script = "abc\n999\nplace 99 on the moon\nhelp\nboard\n" + "1\n" * 3000
    status = play(2, "greedy", 0, 1, path, io.StringIO(script), out, game="stone_age",
                  options={"mammoth_herd": True})
    text = out.getvalue()
    assert status == 0 and "Payments go one resource at a time" in text
    assert "is neither a number nor an action" in text
    record = GameRecord.load(path)
    final = record.replay()
    assert final.is_terminal() and "The final position, as you know it:" in text
    drawn = [ev for ev in final.events() if ev.kind == "card_drawn" and ev.data["seat"] == 1]
    assert drawn, "choose a seed where the greedy seat draws a card face down"
    for ev in drawn:  # the greedy seat's face-down draws: counted, never named
        assert ev.describe(final.game.tile_table) not in text
    assert text.count("seat 1 draws a card face down (S24)") == len(drawn)
    assert text.count("Your move") >= 20
