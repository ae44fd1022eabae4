"""Game records: exact replay, tamper detection, clear errors, tournament records and the
``meduris replay`` viewers (terminal and HTML)."""

import csv
import io
import json
import os
import pty
import re
import select
import subprocess
import sys
import time

import pytest

from meduris_env import MedurisGame
from meduris_env.records.codec import action_text
from meduris_env.records.replay import html_replay
from meduris_rl.agents.arena.match import play_game
from meduris_rl.agents.arena.tournament import (
    TournamentConfig,
    TournamentError,
    run_tournament,
    write_results,
)
from meduris_rl.agents.registry import make_agent
from meduris_rl.cli import main
from meduris_rl.kit.records import GameRecord, RecordError
from meduris_rl.kit.replay import frames, terminal_replay


def record_of(players=2, seed=7, agents=("greedy", "random"), exchange="auto"):
    names = list(agents)[:players] + ["random"] * (players - len(agents))
    game = MedurisGame(players, exchange=exchange)
    result = play_game(game, [make_agent(n) for n in names], seed, keep_record=True)
    return result, GameRecord.from_dict(result.record)


@pytest.mark.parametrize("players,exchange,seed", [(2, "auto", 1), (3, "auto", 2), (4, "auto", 3),
                                                   (2, "manual", 4), (4, "manual", 5)])
def test_a_saved_record_replays_to_the_same_final_scores(tmp_path, players, exchange, seed):
    result, record = record_of(players, seed, ("greedy", "random", "greedy"), exchange)
    path = record.save(tmp_path / "game.json")
    loaded = GameRecord.load(path)
    final = loaded.replay()
    assert final.is_terminal()
    assert final.scores().tolist() == result.vp == loaded.result["scores"]
    assert final.winners() == result.winners == loaded.result["winners"]
    assert loaded.result["end_reason"] == result.end_reason
    assert loaded.seed == seed and loaded.agents == result.agents
    assert len(loaded.actions) == len(final.history()) == len(list(loaded.states())) - 1
    # the record's VP events add up to the score, from the 5 each seat starts with (R1)
    for s in range(players):
        assert 5 + sum(e.data.get("vp", 0) for e in loaded.events if e.data.get("seat") == s) \
            == result.vp[s]


def test_the_same_seed_gives_the_same_record_bit_for_bit():
    a = record_of(seed=11)[1].to_json()
    b = record_of(seed=11)[1].to_json()
    c = record_of(seed=12)[1].to_json()
    assert a == b and a != c


def test_the_record_file_is_readable_json_in_the_games_words(tmp_path):
    _, record = record_of(seed=3)
    doc = json.loads(record.save(tmp_path / "r.json").read_text())
    assert doc["format"] == "meduris-record" and doc["version"] == 1
    assert doc["game"]["num_players"] == 2 and doc["game"]["board"]["fields"]
    assert doc["agents"] == ["greedy", "random"]
    first = doc["actions"][0]
    assert first["seat"] == -1 and first["text"].startswith("bonus chip")  # R4 setup by chance
    assert any(a["text"].startswith("build hut on field") for a in doc["actions"])
    assert {"step", "kind"} <= set(doc["events"][0])
    assert doc["result"]["terminal"] is True


def _tampered(record, edit) -> GameRecord:
    doc = record.to_dict()
    edit(doc)
    return GameRecord.from_dict(json.loads(json.dumps(doc)))


def test_a_tampered_record_is_refused_with_the_first_difference():
    _, record = record_of(seed=5)
    # a recorded score that the actions do not give
    bad = _tampered(record, lambda d: d["result"]["scores"].__setitem__(0, 99))
    with pytest.raises(RecordError, match=r"replayed scores \[.*\], the record says \[99"):
        bad.replay()
    # an action by the wrong seat
    step = next(i for i, s in enumerate(record.seats) if s == 1)
    bad = _tampered(record, lambda d: d["actions"][step].__setitem__("seat", 0))
    with pytest.raises(RecordError, match=rf"step {step} .*seat 0 is not to move: seat 1 is"):
        bad.replay()
    # an illegal action
    build = next(i for i, a in enumerate(record.to_dict()["actions"])
                 if a["text"].startswith("build hut"))
    bad = _tampered(record, lambda d: d["actions"][build].update(action=0, text=action_text(0)))
    with pytest.raises(RecordError,
                       match=rf"step {build} \(place worker on wood\) does not replay"):
        bad.replay()
    # a forged event: the third bonus chip placed on another field
    field = record.events[2].data["field"]
    bad = _tampered(record, lambda d: d["events"][2].__setitem__("field", field + 1))
    with pytest.raises(RecordError,
                       match=rf"replayed event 2 is 'a bonus chip \(.*\) is placed on "
                             rf"field {field} \(R4\)', the record says .*field {field + 1} "):
        bad.replay()


@pytest.mark.parametrize("text,message", [
    ("{not json", "not JSON"),
    ('{"format": "meduris-state"}', "'format' must be 'meduris-record'"),
    ('{"format": "meduris-record", "version": 9}', "version 9 is not supported"),
    ('{"format": "meduris-record", "version": 1, "game": {"num_players": 5}}',
     "game: num_players must be 2, 3 or 4"),
])
def test_malformed_record_files_raise_record_error(text, message):
    with pytest.raises(RecordError, match=message):
        GameRecord.from_json(text)


def test_record_fields_are_checked(tmp_path):
    _, record = record_of(seed=2)
    with pytest.raises(RecordError, match="'agents' must list 2 labels"):
        _tampered(record, lambda d: d.__setitem__("agents", ["x"]))
    with pytest.raises(RecordError, match=r"actions\[4\] needs integer 'action' and 'seat'"):
        _tampered(record, lambda d: d["actions"][4].__setitem__("action", "take wood"))
    with pytest.raises(RecordError, match=r"events\[3\]: unknown kind 'dance'"):
        _tampered(record, lambda d: d["events"][3].__setitem__("kind", "dance"))
    with pytest.raises(RecordError, match=r"events\[0\] \(chip_placed\) needs the integers"):
        _tampered(record, lambda d: d["events"][0].pop("field"))
    with pytest.raises(RecordError, match="cannot read record"):
        GameRecord.load(tmp_path / "missing.json")


def test_an_unfinished_game_has_a_record_too():
    game = MedurisGame(2)
    state = game.new_initial_state()
    import random

    from meduris_rl.kit.loop import resolve_chance
    rng = random.Random(0)
    for _ in range(30):
        resolve_chance(state, rng)
        state.apply_action(state.legal_actions()[0])
    record = GameRecord.from_state(state, ["a", "b"], seed=None)
    final = GameRecord.from_json(record.to_json()).replay()
    assert final == state and not record.result["terminal"] and record.result["winners"] == []


def test_a_position_edited_by_hand_cannot_be_recorded():
    from helpers import e3_position
    with pytest.raises(ValueError, match="edited by hand"):
        GameRecord.from_state(e3_position())


# --- tournaments -------------------------------------------------------------------------------
def test_a_tournament_saves_records_of_the_chosen_games(tmp_path):
    cfg = TournamentConfig(agents=["greedy", "random"], games=4, seed=9, save_records="1,3")
    results, summary = run_tournament(cfg)
    paths = write_results(tmp_path, results, summary)
    assert [p.name for p in paths] == ["game-00001.json", "game-00003.json"]
    rows = list(csv.DictReader((tmp_path / "games.csv").open()))
    for p in paths:
        i = int(p.stem.split("-")[1])
        record = GameRecord.load(p)
        final = record.replay()
        assert record.seed == int(rows[i]["seed"])
        assert final.scores().tolist() == [int(rows[i]["seat0_vp"]), int(rows[i]["seat1_vp"])]
        assert record.agents == [rows[i]["seat0_agent"], rows[i]["seat1_agent"]]
        assert record.meta["tournament_game"] == i
    # the same records, byte for byte, when the games are played in two processes
    cfg.workers = 2
    results2, summary2 = run_tournament(cfg)
    (tmp_path / "two").mkdir()
    again = write_results(tmp_path / "two", results2, summary2)
    assert [p.read_bytes() for p in again] == [p.read_bytes() for p in paths]


@pytest.mark.parametrize("spec,message", [("7", "'7' is outside the games 0..3"),
                                          ("a-b", "write 'all' or game numbers"),
                                          ("3-1", "'3-1' is outside")])
def test_bad_record_selections_are_refused_before_playing(spec, message):
    with pytest.raises(TournamentError, match=message):
        run_tournament(TournamentConfig(agents=["random", "random"], games=4, save_records=spec))


# --- viewers -----------------------------------------------------------------------------------
def test_frames_show_each_action_and_its_events():
    _, record = record_of(seed=4)
    fs = frames(record)
    assert len(fs) == len(record.actions) + 1
    assert fs[0].caption.startswith("start: 2 players")
    build = next(f for f in fs if ": build hut on field" in f.caption)
    assert build.caption.startswith(f"step {build.index}/{len(record.actions)}: seat ")
    field = int(build.caption.rsplit(" ", 1)[1])
    assert any(e.startswith("seat ") and f"builds a hut on field {field}: a settlement of " in e
               for e in build.events)
    assert fs[-1].state.is_terminal()


def test_terminal_replay_steps_with_scripted_keys():
    _, record = record_of(seed=4)
    last = len(record.actions)
    keys = io.StringIO(f"\n\nb\n5\n{last + 1}\nzz\ne\n\nq\n")
    out = io.StringIO()
    terminal_replay(record, out, keys)
    text = out.getvalue()
    prompts = re.findall(r"\[(\d+)/\d+\] > ", text)
    # start 0, Enter -> 1, Enter -> 2, b -> 1, 5, refused, refused, e -> last, Enter refused, q
    assert prompts == ["0", "1", "2", "1", "5", "5", "5", str(last), str(last)]
    assert f"no step {last + 1}: steps are 0..{last}" in text
    assert "unknown command 'zz'" in text
    assert "this is the last step" in text
    assert "(replayed exactly)" in text


def test_cli_replay_prints_every_step_and_writes_html(tmp_path, capsys):
    _, record = record_of(seed=6)
    path = record.save(tmp_path / "g.json")
    assert main(["replay", str(path), "--all"]) == 0
    out = capsys.readouterr().out
    assert out.count("\nstep ") == len(record.actions)
    assert "(replayed exactly)" in out
    page = tmp_path / "g.html"
    assert main(["replay", str(path), "--html", str(page)]) == 0
    text = page.read_text()
    assert "data:image" not in text and "MedurisBoard.render" in text  # drawn, not embedded
    assert f'max="{len(record.actions)}"' in text
    assert "http://" not in text and "https://" not in text  # self-contained
    assert html_replay(record) == text  # deterministic


def test_cli_replay_errors_are_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    assert main(["replay", str(bad)]) == 2
    assert capsys.readouterr().err.strip() == \
        "meduris: error: record: 'format' must be 'meduris-record' (is this a game record?)"
    assert main(["replay", str(tmp_path / "none.json")]) == 2
    assert "cannot read record" in capsys.readouterr().err
    _, record = record_of(seed=6)
    good = record.save(tmp_path / "g.json")
    assert main(["replay", str(good), "--html", str(tmp_path / "no" / "dir.html")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_an_environment_episode_becomes_a_record_that_replays(tmp_path):
    from meduris_env import env as make_env
    e = make_env(num_players=3)
    e.reset(seed=13)
    rng = __import__("random").Random(13)
    for _agent in e.agent_iter():
        obs, _, terminated, truncated, _ = e.last()
        legal = [a for a, ok in enumerate(obs["action_mask"]) if ok]
        e.step(None if terminated or truncated else rng.choice(legal))
    record = e.unwrapped.game_record(["me", "you", "them"])
    final = GameRecord.load(record.save(tmp_path / "env.json")).replay()
    assert final == e.unwrapped.state and final.is_terminal()
    assert record.seed == 13 and record.agents == ["me", "you", "them"]


def test_a_single_agent_episode_becomes_a_record_with_the_seats_labelled(tmp_path):
    from meduris_env import MedurisSingleAgentEnv
    from meduris_rl.agents import make_agent
    e = MedurisSingleAgentEnv(num_players=3, opponents=[make_agent("greedy"), "random"], seat=1)
    e.reset(seed=4)
    done = False
    while not done:
        _, _, terminated, truncated, _ = e.step(e.action_space.sample())
        done = terminated or truncated
    record = e.game_record("ppo-in-training")
    assert record.agents == ["random", "ppo-in-training", "greedy"]  # clockwise from seat 1
    final = GameRecord.load(record.save(tmp_path / "sa.json")).replay()
    assert final == e.state and record.seed == 4


def test_every_event_kind_reads_as_a_sentence():
    from meduris_env.engine.events import EVENT_KINDS, SENTENCES
    assert set(SENTENCES) == {name for name, _ in EVENT_KINDS.values()}
    seen = set()
    for players in (2, 3, 4):
        _, record = record_of(players, seed=players, agents=("greedy", "random", "random"))
        for e in record.events:
            text = e.describe()
            assert "=" not in text and "{" not in text, text  # no raw key=value fallback
            seen.add(e.kind)
    assert {"build_hut", "offering", "rune_scoring", "temple_scoring", "game_end"} <= seen
    hut = next(e for e in record.events if e.kind == "build_hut")
    assert hut.describe() == (f"seat {hut.data['seat']} builds a hut on field {hut.data['field']}: "
                              f"a settlement of {hut.data['settlement_size']}, costing "
                              f"{hut.data['cost']} of each material (R12)")


def test_cli_replay_in_a_real_terminal_waits_for_keys(tmp_path):
    """On a TTY, ``meduris replay`` is interactive (the isatty branch of the CLI)."""
    _, record = record_of(seed=6)
    path = record.save(tmp_path / "g.json")
    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "meduris_rl.cli", "replay", str(path)],
                            stdin=slave, stdout=slave, stderr=slave, close_fds=True)
    os.close(slave)
    seen = b""

    def read_until(marker: bytes, timeout=60.0):
        nonlocal seen
        end = time.time() + timeout
        while marker not in seen and time.time() < end:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    seen += os.read(master, 65536)
                except OSError:
                    break
        return marker in seen

    try:
        assert read_until(b"[0/"), seen[-500:]
        os.write(master, b"3\n")
        assert read_until(b"[3/")
        os.write(master, b"q\n")
        assert proc.wait(timeout=30) == 0
    finally:
        proc.kill()
        os.close(master)
    assert b"step 3/" in seen and b"Enter: next step" in seen


# --- labels a terminal would obey; keys given twice ------------------------------------------
ESCAPES = ["\x1b[2J\x1b[31m", "red\x1b]0;title\x07", "bell\x07", "tab\there", "nbsp\xa0x",
           "\u202eevil", "del\x7f"]


@pytest.mark.parametrize("label", ESCAPES, ids=repr)
def test_a_record_label_that_is_not_printable_is_refused_when_read(label, tmp_path, capsys):
    _, record = record_of(seed=3)
    doc = record.to_dict()
    doc["agents"][1] = label
    path = tmp_path / "game.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(RecordError) as err:
        GameRecord.load(path)
    text = str(err.value)
    assert text.startswith("record: agents[1]: a label must be printable text (no control "
                           "characters such as terminal escapes), got ") and text.isprintable()
    assert main(["replay", str(path), "--all"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert "\x1b" not in captured.err and "\x07" not in captured.err
    assert captured.err.startswith("meduris: error: record: agents[1]: a label must be "
                                   "printable")


@pytest.mark.parametrize("label", ESCAPES, ids=repr)
def test_a_record_is_not_written_with_a_label_that_is_not_printable(label, tmp_path):
    game = MedurisGame(2)
    state = game.new_initial_state()
    with pytest.raises(RecordError, match=r"record: agents\[0\]: a label must be printable"):
        GameRecord.from_state(state, [label, "random"])
    agents = [make_agent("random"), make_agent("greedy")]
    with pytest.raises(RecordError, match=r"agents\[1\]: a label must be printable"):
        play_game(game, agents, 1, labels=["random", label], keep_record=True)
    # without a record the labels are the caller's business, as before
    assert play_game(game, agents, 1, labels=["random", label]).agents == ["random", label]


def test_printable_labels_of_any_script_are_kept():
    state = MedurisGame(2).new_initial_state()
    labels = ["Zoë ✓ 名人", "mcts:200 (seat #2)"]
    record = GameRecord.from_state(state, labels)
    assert GameRecord.from_json(record.to_json()).agents == labels


@pytest.mark.parametrize("where,dup,key", [
    ("top", '"version":1,', "'version'"),
    ("top", '"agents":["a","b"],', "'agents'"),
    ("game", '"exchange":"auto",', "'exchange'"),
    ("action", '"seat":0,', "'seat'"),
])
def test_a_key_given_twice_in_a_record_is_refused_naming_it(where, dup, key, tmp_path, capsys):
    _, record = record_of(seed=4)
    text = record.to_json()
    anchor = {"top": '{"format":', "game": '"game":{', "action": '"actions":[{'}[where]
    assert text.count(anchor) == 1
    text = text.replace(anchor, anchor + dup if where != "top" else '{' + dup + '"format":')
    with pytest.raises(RecordError) as err:
        GameRecord.from_json(text)
    assert str(err.value) == (f"record: the key {key} is given twice in one object (not a file "
                              "this project writes); keep one")
    path = tmp_path / "dup.json"
    path.write_text(text)
    assert main(["replay", str(path), "--all"]) == 2
    assert capsys.readouterr().err == f"meduris: error: {err.value}\n"
    assert GameRecord.from_json(record.to_json()).agents == record.agents  # once each: read


def test_a_key_given_twice_in_a_state_file_is_refused_naming_it():
    from meduris_env import StateFileError, load_state

    state = MedurisGame(3).new_initial_state()
    text = state.to_json()
    assert load_state(text) == state
    for anchor, dup, name in (("{", '"format":"meduris-state",', "format"),
                              ("{", '"version":1,', "version"),
                              ('"game":{', '"exchange":"manual",', "exchange"),
                              ('"arrays":{', '"turn":0,', "turn")):
        assert anchor in text and dup.split(":")[0] in text
        doubled = text.replace(anchor, anchor + dup, 1)
        with pytest.raises(StateFileError) as err:
            load_state(doubled)
        assert str(err.value) == (f"state file: the key '{name}' is given twice in one object "
                                  "(not a file this project writes); keep one")


def test_a_record_made_directly_is_not_written_with_a_label_that_is_not_printable(tmp_path):
    _, record = record_of(seed=3)
    record.agents = ["greedy", "\x1b[31mred"]
    with pytest.raises(RecordError, match=r"agents\[1\]: a label must be printable"):
        record.save(tmp_path / "r.json")
    assert not (tmp_path / "r.json").exists()
    record.agents = ["greedy", "x" * 1000]  # too long: cut, as from_state does, so it reads back
    assert len(GameRecord.load(record.save(tmp_path / "r.json")).agents[1]) == 200
