"""``meduris serve`` in a player's words (issue 30): the log told by one sentence per event, in
the second person for your seat, never beside the action's text; each entry naming the places
its action changed (``targets``, what the page rings); "Your move" and "you" in the status
line; the offering "nothing" saying what it costs at 0 VP (R19); opponents checked by the one
agent-name parser without building any agent in the server process, the trivial ones played
in it. Through FastAPI's TestClient (test_web.py's helpers)."""

from __future__ import annotations

import random
import re

import pytest
from test_web import client_for, new_game, play_moves, stop_clients  # noqa: F401

from meduris_env import MedurisGame
from meduris_env.engine.actions import action_to_string, decode_action
from meduris_env.engine.chance import sample_chance
from meduris_env.engine.constants import NUM_ACTIONS
from meduris_env.engine.events import EVENT_KINDS, SENTENCES, Event
from meduris_rl.agents.registry import AgentSpec
from meduris_rl.cli.meduris.web import store
from meduris_rl.cli.meduris.web.words import VERBS, in_your_words

SAMPLE = {"seat": 0, "field": 3, "chip": 1, "plain": 1, "level": 0, "face": 0, "material": 0,
          "amount": 1, "give": 0, "take": 1, "automatic": 0, "from_plain": 0, "from_level": 0,
          "to_plain": 1, "settlement_size": 2, "cost": 2, "vp": 1, "area": 0,
          "previous_holder": 0, "stone": 1, "from_field": 1, "to_field": 2, "crossed_river": 0,
          "rune_stones": 2, "choice": 0, "extra_turns": 1, "first_field": 0, "huts": 2,
          "reason": 0}


@pytest.fixture
def client(tmp_path):
    return client_for(tmp_path / "games.sqlite")


def test_every_event_sentence_reads_in_the_second_person_for_your_seat():
    assert set(SENTENCES) == {name for name, _ in EVENT_KINDS.values()}
    for name, cols in EVENT_KINDS.values():
        event = Event(0, name, {c: SAMPLE[c] for c in cols if c is not None})
        said = event.describe()
        assert "=" not in said, said  # the sentence, not the fallback (SAMPLE fits it)
        mine = in_your_words(said, 0)
        assert not re.search(r"\bseat 0\b", mine), mine
        if re.search(r"\bseat 0\b", said):
            assert re.search(r"\byou(r)?\b", mine), mine
        # a sentence starting with the seat starts with "you" and a verb of yours
        if said.startswith("seat 0 "):
            verb = said.split()[2]
            assert verb in VERBS, f"{name}: add {verb!r} to words.VERBS"
            assert mine.startswith(f"you {VERBS[verb]} "), mine
        assert in_your_words(said, 1) == said  # another seat's sentence is left alone
    assert in_your_words("seat 0 frobs 1 wood", 0) == "seat 0 (you) frobs 1 wood"
    assert in_your_words("seat 0's temple on field 3 scores +2 VP (R24)", 0) == \
        "your temple on field 3 scores +2 VP (R24)"
    assert in_your_words("seat 2 takes the rune stone of area c from seat 0 (R12)", 0) == \
        "seat 2 takes the rune stone of area c from you (R12)"


FORCED = " (your only choice: played for you)"
MANY = re.compile(r" (twice|(\d+) times)( \(R\d+\))$")


def check_entry(entry: dict, you: int, labels: list[str]) -> int:
    """One entry of the log: a line per event (a run of one sentence told once, with how
    often), the action's own event first, your seat as "you", the action's text never beside
    its events. The number of lines that merged a run."""
    lines, events, seat = entry["lines"], entry["events"], entry["seat"]
    assert lines and events, entry  # every action of Meduris causes an event
    if entry.get("forced"):  # your only choice, played for you: said after its first line
        assert seat == you and lines[0].endswith(FORCED)
        lines = [lines[0][:-len(FORCED)], *lines[1:]]
    told, counted = set(), 0
    for k, line in enumerate(lines):
        m = MANY.search(line)
        counted += 1 if m is None else 2 if m[1] == "twice" else int(m[2])
        plain = line if m is None else line[:m.start()] + m[3]
        if k == 0 and seat >= 0 and seat != you:
            plain = plain.replace(f"seat {seat} ({labels[seat]}) ", f"seat {seat} ", 1)
        told.add(plain)
    assert counted == len(events), (lines, events)  # each event once, none left out
    assert told == {in_your_words(e, you) for e in events}, (lines, events)
    assert entry["text"] not in lines and f"{entry['who']}: {entry['text']}" not in lines
    # no line said twice in a row
    assert all(a != b for a, b in zip(lines, lines[1:], strict=False)), lines
    assert not any(re.search(rf"\bseat {you}\b", t) for t in lines), lines
    if seat == you:
        assert lines[0].startswith("you "), lines
    elif seat >= 0:
        assert lines[0].startswith(f"seat {seat} ({labels[seat]}) "), lines
    if seat >= 0:  # the action itself first: "builds a hut" before "pays 2 wood"
        kind = decode_action(TEXTS[entry["text"]]).kind
        own = {"place": "place", "take": "take", "return": "return|ha(s|ve) nothing",
               "move": "move", "hut": "build a hut|builds a hut",
               "temple": "build a temple|builds a temple", "offer": "offer",
               "exchange": "exchange"}[kind]
        assert re.match(rf"(you|seat \d \(\S+\)) ({own})", lines[0]), (kind, lines)
    return sum(MANY.search(t) is not None for t in lines)


TEXTS = {action_to_string(a): a for a in range(NUM_ACTIONS)}


def test_a_whole_greedy_game_logs_every_event_once_in_the_players_words(client):
    g = new_game(client, players=3, opponents=["greedy", "random"], seat=1, seed=6)
    done = play_moves(client, g, random.Random(6))
    assert done["status"] == "finished"
    log = client.get(f"/api/games/{g['id']}").json()["log"]
    labels = done["config"]["labels"]
    assert len(log) == done["step"]
    merged = sum(check_entry(entry, 1, labels) for entry in log)
    assert merged > 0  # the engine's repeated exchanges, told once each
    # a resumed game tells the same log (rebuilt from the stored moves)
    again = client_for(client.app.state.store.path).get(f"/api/games/{g['id']}").json()
    assert again["log"] == log


def zero_vp_offering() -> tuple[object, int]:
    """A 2-player state where the seat to move must make an offering with 0 VP: seat 0
    offers nothing whenever it can, the rest plays at random (found within a few seeds)."""
    for seed in range(50):
        state, rng = MedurisGame(2).new_initial_state(), random.Random(seed)
        while not state.is_terminal():
            seat = state.current_player()
            if seat < 0:
                state.apply_action(sample_chance(state, rng))
                continue
            legal = state.legal_actions()
            offers = [a for a in legal if decode_action(a).kind == "offer"]
            if offers and state.scores()[seat] == 0:
                return state, seat
            nothing = [a for a in offers if decode_action(a).choice == 0]
            state.apply_action(nothing[0] if nothing else rng.choice(legal), seat)
    raise AssertionError("no offering at 0 VP in 50 games")


def test_offering_nothing_says_it_costs_nothing_at_0_vp(tmp_path):
    state, seat = zero_vp_offering()
    config = store.GameConfig(players=2, seat=seat, opponents=("greedy",), seed=1)
    g = store.LiveGame("0" * 16, config)
    g.state = state
    offers = {a["choice"]: a["words"] for a in g.view()["legal"] if a["kind"] == "offer"}
    assert offers[0] == "offer nothing (0 VP, you have none to lose, R19)"
    assert all("-1 VP" not in w for w in offers.values())
    # with VP to lose, the engine's words: -1 VP
    other = store.LiveGame("1" * 16, config)
    other.state = MedurisGame(2).new_initial_state()
    assert other.view()["seats"][seat]["vp"] > 0
    from meduris_rl.cli.meduris.web.words import with_offer_words
    view = {"viewer": 0, "seats": [{"vp": 3}],
            "legal": [{"kind": "offer", "choice": 0, "words": "offer nothing (-1 VP, R19)"}]}
    assert with_offer_words(view)["legal"][0]["words"] == "offer nothing (-1 VP, R19)"
    view["seats"][0]["vp"] = 0
    assert "0 VP" in with_offer_words(view)["legal"][0]["words"]


def test_no_agent_is_built_in_the_server_for_a_thinking_opponent(client, monkeypatch):
    """A game against ppo, az or mcts checks the names and loads nothing in the server
    process: its decisions are the thinking workers' (greedy is built when it first moves)."""
    built = []

    def build(spec):
        built.append(str(spec))
        return real(spec)

    real = AgentSpec.build
    monkeypatch.setattr(AgentSpec, "build", build)
    r = client.post("/api/games", json={"players": 3, "opponents": ["ppo", "az:50"],
                                        "seat": 2, "seed": 3})
    assert r.status_code == 201, r.text
    r = client.post("/api/games", json={"players": 2, "opponents": "mcts:800", "seat": 1,
                                        "seed": 3})
    assert r.status_code == 201, r.text
    assert built == []
    g = new_game(client, players=2, opponents="greedy", seat=1, seed=3)
    assert g["step"] > 0 and built == ["greedy"]  # the instant one: in the server, once


@pytest.mark.parametrize("name,canonical", [("greedy", "greedy"), (" mcts:200 ", "mcts:200"),
                                            ("az:50", "az:50"), ("ppo", "ppo")])
def test_opponent_names_are_read_by_the_agent_spec_parser(name, canonical):
    spec = store.opponent_spec(name, 2)
    assert isinstance(spec, AgentSpec) and str(spec) == canonical
    assert spec == AgentSpec.parse(canonical)


def test_a_plug_in_file_is_never_imported_from_a_request(tmp_path, monkeypatch):
    (tmp_path / "bot.py").write_text("raise SystemExit('imported')\n")
    monkeypatch.chdir(tmp_path)
    for name in ("bot.py:Bot", "./bot.py:Bot", "cmd:ls", "rllib", "az-fast:10"):
        with pytest.raises(store.WebError) as err:
            store.opponent_spec(name, 2)
        assert err.value.status == 400 and "unknown agent" in err.value.reason


# --- where an entry happened, and "you" in the status line -----------------------------------
MATERIAL_NAMES = ["wood", "wool", "copper", "stone"]


def places_in_the_text(text: str) -> set[str]:
    """The places an action's own text names as changed, read from the text (not from
    words.PLACES): the target keys the page rings for it."""
    plain = {m: k for k, m in enumerate(MATERIAL_NAMES)}
    if m := re.fullmatch(r"(?:build (?:hut|temple)|bonus chip \S+) on field (\d+)", text):
        return {f"field:{m[1]}"}
    if m := re.fullmatch(r"(?:place worker on|move worker from \w+ level \d to) (\w+)", text):
        return {f"plain:{plain[m[1]]}"}
    if m := re.fullmatch(r"(?:take|return) (\w+)", text):
        return {f"supply:{plain[m[1]]}"}
    if m := re.fullmatch(r"exchange (\S+) for (\w+)", text):
        return {f"supply:{plain[x]}" for x in m[1].split("+") + [m[2]]}
    return set()  # an offering, a roll of the die, the start player


def test_each_log_entry_names_the_places_its_action_changed(client):
    """``targets``: the keys of the places the entry's action changed (a hut's field, the
    supply taken from, the plain a worker went to), never a field its sentences merely
    mention (the druid walking away from it, a settlement counted through it)."""
    g = new_game(client, players=2, opponents="greedy", seat=0, seed=9)
    done = play_moves(client, g, random.Random(9))
    log = client.get(f"/api/games/{g['id']}").json()["log"]
    assert done["status"] == "finished" and len(log) == done["step"]
    kinds = set()
    for entry in log:
        assert len(entry["targets"]) == len(set(entry["targets"])), entry
        assert set(entry["targets"]) == places_in_the_text(entry["text"]), entry
        kinds |= {t.split(":")[0] for t in entry["targets"]}
    assert kinds == {"field", "plain", "supply"}
    # e.g. "seat 1 (greedy) builds a hut on field 12" taking the druid "from field 9"
    mentioned = [(e, set(re.findall(r"field (\d+)", " ".join(e["lines"])))) for e in log]
    elsewhere = [e for e, fields in mentioned
                 if {f"field:{f}" for f in fields} - set(e["targets"])]
    assert elsewhere  # what the page's reading of the sentences would have rung wrongly


def test_the_status_line_says_your_move_and_you(client):
    g = new_game(client, players=3, opponents=["greedy", "random"], seat=1, seed=4)
    status = g["view"]["status"]
    assert re.fullmatch(r"Your move: place worker \(turn \d+(, die \w+)?\)", status), status
    done = play_moves(client, g, random.Random(4))
    end = done["view"]["status"]
    assert "won by" in end and "seat 1" not in end and "human" not in end, end
    from meduris_rl.cli.meduris.web.words import with_your_status
    view = {"seats": [{"label": "greedy"}, {"label": "human"}],
            "status": "turn 3, die wool: seat 0 (greedy) to decide: place worker"}
    assert with_your_status(view, 1)["status"] == view["status"]  # not yours: as it was
    view["status"] = "turn 9: game over (finale (R22)), won by seat 0 (greedy) and seat 1 (human)"
    assert with_your_status(view, 1)["status"].endswith("won by seat 0 (greedy) and you")


def test_every_trivial_kind_the_page_offers_moves_in_the_server_process():
    """An offered kind of ours (built in, or of the project's example plug-in package, whose
    bots declare ``instant = True``) with no budget and nothing to load (no model, no library)
    decides in well under a millisecond: it is played in-process (thinking.is_instant), never
    queued in the thinking pool behind the searches. A plug-in that says nothing is not known
    to be quick."""
    from meduris_rl.agents.registry import kind_named
    from meduris_rl.cli.meduris.web.thinking import is_instant

    ours = [kind_named(a["name"]) for a in store.available_agents()
            if kind_named(a["name"]).source == "built-in"
            or kind_named(a["name"]).package == "meduris-bot-example"]
    trivial = [k.name for k in ours if k.budget is None and not k.needs]
    assert {"random", "greedy"} <= set(trivial)
    assert [n for n in trivial if not is_instant(n)] == []
    assert [k.name for k in ours if k.name not in trivial and is_instant(k.name)] == []
    assert not is_instant("mcts:50") and not is_instant("cautious:7")
