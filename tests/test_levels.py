"""Difficulty levels for people (issue 27, item 5): five agents whose ratings are read from the
shipped ladder of the anchors, increasing with the level; ``meduris play --level``, ``meduris
agents`` and the web server's ``/api/agents`` offer them."""

from __future__ import annotations

import io
import json
import sys

import pytest
from helpers import LOCAL

from meduris_rl.agents.arena.ladder import fit_ratings, ladder_of, open_ladder
from meduris_rl.agents.levels import LevelError, describe, level, ratings
from meduris_rl.agents.meduris.levels import LEVELS
from meduris_rl.cli import main
from meduris_rl.kit.records import GameRecord


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_five_levels_are_measured_on_the_ladder_and_increase(players):
    """At every player count each level's agent is an anchor of the shipped ladder of that
    count, its rating read from the ladder's games by the ladder's own fit (never typed in),
    increasing with the level."""
    got = ratings(players)
    assert [lv.number for lv in LEVELS] == [1, 2, 3, 4, 5]
    elos = [got[lv.number][0] for lv in LEVELS]
    assert elos == sorted(elos) and len(set(elos)) == 5, elos
    assert elos[0] == 0.0  # level 1 is the ladder's reference, random
    with open_ladder(SHIPPED, read_only=True) as store:
        fit = fit_ratings([(g.agents, g.ranks) for g in store.games(players)],
                          players).by_name()
    for lv in LEVELS:
        assert got[lv.number][0] == fit[lv.agent_for(players)].elo
    if players == 2:  # roughly evenly spaced: no gap more than 2.5 times another
        gaps = [b - a for a, b in zip(elos, elos[1:], strict=False)]
        assert max(gaps) <= 2.5 * min(gaps), gaps

SHIPPED = ladder_of("meduris").shipped


def test_a_level_that_does_not_exist_is_one_line():
    with pytest.raises(LevelError, match=r"^level 6 does not exist; the levels are 1 beginner"):
        level(6)
    with pytest.raises(LevelError):
        level(True)
    assert level(3).agent == "mcts:200" and "rated" in describe(level(3))


def play_at(number: int, players: int, tmp_path, capsys, monkeypatch) -> tuple[str, list]:
    """``meduris play --level N`` quit at once: (what it printed, the record's agents)."""
    path = tmp_path / f"level{number}.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    assert main(["play", "--level", str(number), "--players", str(players), "--seed", "4",
                 "--record", str(path)]) == 0
    return capsys.readouterr().out, GameRecord.load(path).agents


def test_play_at_a_level_seats_its_agent_and_says_its_rating(tmp_path, capsys, monkeypatch):
    out, agents = play_at(2, 3, tmp_path, capsys, monkeypatch)
    assert out.startswith("opponents: level 2 (casual): greedy, rated ")
    assert agents == ["human", "greedy", "greedy"]
    assert main(["play", "--level", "2", "--opponents", "random"]) == 2
    assert main(["play", "--level", "0"]) == 2
    err = capsys.readouterr().err
    assert "give --level or --opponents, not both" in err and "level 0 does not exist" in err
    # a player count the game does not have is refused before a level's rating is looked up
    # (a hypothesis run found `--players 0 --level 1` a KeyError)
    assert main(["play", "--level", "1", "--players", "0"]) == 2
    assert "--players" in capsys.readouterr().err
    with pytest.raises(LevelError, match=r"^Meduris's shipped ladder of 7 players does not rate"):
        ratings(7)


def test_meduris_agents_lists_the_levels(capsys):
    assert main(["agents", "--json"]) == 0
    levels = json.loads(capsys.readouterr().out)["levels"]
    assert [(x["level"], x["agent"]) for x in levels] == [(lv.number, lv.agent) for lv in LEVELS]
    assert levels[-1]["elo_2p"] == round(ratings()[5][0], 1)
    assert [x["elo_3p"] for x in levels] == [round(ratings(3)[n][0], 1) for n in range(1, 6)]
    assert levels[-1]["agent_3_4"] == "mcts:800"


def test_the_web_server_offers_the_levels(tmp_path):
    from fastapi.testclient import TestClient

    from meduris_rl.cli.meduris.web.app import create_app

    with TestClient(create_app(tmp_path / "games.sqlite"), base_url=LOCAL) as client:
        offer = client.get("/api/agents").json()
    names = {a["name"] for a in offer["agents"]}
    assert [x["agent"] for x in offer["levels"]] == [lv.agent for lv in LEVELS]
    assert all(x["agent"].partition(":")[0] in names for x in offer["levels"])


def test_the_top_level_is_the_shipped_search_and_mcts_800_at_3_and_4_players(tmp_path, capsys,
                                                                              monkeypatch):
    """Level 5 is the strongest shipped agent: the 2-player search (its file of 2 players), rated
    above every other anchor by the ladder's games; at 3 and 4 players, where no search ships,
    the level seats the strongest anchor of those ladders, mcts:800, with its rating there; the
    search itself refuses a 3-player game in one line."""
    from meduris_rl.agents.arena.ladder import fit_ratings
    from meduris_rl.agents.registry import make_agent

    top = level(5)
    assert (top.agent, top.agent_for(2), top.agent_for(3), top.agent_for(4)) == (
        "search", "search", "mcts:800", "mcts:800")
    with open_ladder(SHIPPED, read_only=True) as store:
        fit = fit_ratings([(g.agents, g.ranks) for g in store.games(2)], 2)
    assert fit.ratings[0].name == "search"  # the best of the anchors
    with open_ladder(SHIPPED, read_only=True) as store:
        for n in (3, 4):
            best = fit_ratings([(g.agents, g.ranks) for g in store.games(n)], n).ratings[0]
            assert best.name == "mcts:800", n
    out, agents = play_at(5, 3, tmp_path, capsys, monkeypatch)
    assert out.startswith(f"opponents: level 5 (expert): mcts:800, rated {ratings(3)[5][0]:.0f} "
                          "Elo (95% ") and "on the 3-player ladder" in out
    assert agents == ["human", "mcts:800", "mcts:800"]
    with pytest.raises(Exception, match=r"search_2p\.pt is a 2-player policy: it cannot play a "
                                         r"3-player game"):
        make_agent("search").check_players(3)


def test_the_web_server_offers_the_search_for_two_players_only(tmp_path):
    """The strongest shipped agent is offered (by name: a request never names a file), for the
    player count its file is of; a 3-player game asking for it is refused (400) saying why."""
    from fastapi.testclient import TestClient

    from meduris_rl.cli.meduris.web.app import create_app

    with TestClient(create_app(tmp_path / "games.sqlite"), base_url=LOCAL) as client:
        offer = {a["name"]: a for a in client.get("/api/agents").json()["agents"]}
        assert offer["search"]["players"] == [2] and "search" in offer["search"]["examples"]
        refused = client.post("/api/games", json={"players": 3, "opponents": ["search"] * 2,
                                                  "seat": 0, "seed": 1})
        assert refused.status_code == 400
        assert "plays games of 2 players, not 3" in refused.json()["error"]
        assert client.post("/api/games", json={"players": 2, "opponents": ["search"],
                                               "seat": 0, "seed": 1}).status_code == 201
