"""Hostile Druids files (issue 46, "every reader strict"): state files holding impossible
positions (8-card hands, a gem twice, card 999, NaN or 10^30 scores, ``to_move`` 7, phase 99,
unknown, missing or duplicated keys, 100,000-deep nesting) are refused with one line of
:class:`~druids_env.engine.errors.StateFileError` naming the problem, never a traceback or a
state that crashes later; every position the engine makes (random games at 2, 3 and 4 players,
redeals, positions built by hand) still reads back equal. Tampered Druids game records (an
illegal action, an entry of the wrong type, a wrong player count or seed, an event the engine
never logs) are one ``meduris: error:`` line from ``meduris replay`` (exit status 2), as
Meduris's are (tests/test_hostile_files.py)."""

from __future__ import annotations

import copy
import io
import json
import pickle
import random
import time

import pytest

import druids_env as D
from druids_env.engine import DruidsGame, StateFileError, rules, state_from_json
from druids_env.engine.cards import NUM_GEMS, gem, servant
from druids_env.engine.events import KINDS
from druids_env.engine.game import MAX_TURNS_LIMIT
from druids_env.engine.information import information_state_string, observation_tensor
from druids_env.engine.state import POSITION
from druids_env.engine.statefile import EVENT_FIELDS, MAX_TURN
from meduris_rl.cli import main
from meduris_rl.kit.errors import InputError
from meduris_rl.kit.records import GameRecord, RecordError
from meduris_rl.kit.replay import terminal_replay

DEEP = "[" * 100_000 + "]" * 100_000


def _played(n: int, seed: int, steps: int | None = None):
    """A Druids state of ``n`` players after ``steps`` random actions and outcomes (None: the
    whole game)."""
    st = DruidsGame(n).new_initial_state()
    rng = random.Random(seed)
    stop = None if steps is None else (lambda s: len(s.history()) >= steps)
    D.play(st, D.random_decide(rng), rng, until=stop)
    return st


def _after_setup(n: int = 2, seed: int = 1):
    """The first decision of the game: seat 0 to collect or play, every hand of 7 cards."""
    return _played(n, seed, len(rules.setup_schedule(n)))


def _positions(count: int, seed: int) -> list:
    """``count`` positions of random games at 2, 3 and 4 players, stopped anywhere (the
    setup, mid-turn, chance nodes, the end)."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        n = (2, 3, 4)[i % 3]
        out.append(_played(n, rng.randrange(10**6), rng.choice((None, rng.randrange(400)))))
    return out


def _refused(text, words: str = "", game=None) -> str:
    """The one line a hostile state file is refused with (fast, of the error class)."""
    start = time.perf_counter()
    with pytest.raises(StateFileError) as err:
        (game.state_from_json if game else state_from_json)(text)
    assert time.perf_counter() - start < 2
    message = str(err.value)
    assert "\n" not in message and len(message) < 300 and message.startswith("state file: "), \
        message[:400]
    assert words in message, message
    return message


# --- every position the engine makes reads back ---------------------------------------------
def test_200_random_positions_at_2_3_and_4_players_read_back_equal():
    for st in _positions(200, 46):
        text = st.to_json()
        back = state_from_json(text)
        assert back == st and back.to_json() == text
        assert st.game.state_from_json(text.encode()) == st  # bytes too
        assert pickle.loads(pickle.dumps(st)) == st


def test_redealt_positions_read_back_equal():
    for st in _positions(30, 7):
        if st.is_terminal():
            continue
        for seat in range(st.game.num_players):
            for rewrite_log in (True, False):
                new = D.resample_hidden(st, seat, random.Random(seat), rewrite_log=rewrite_log)
                assert state_from_json(new.to_json()) == new


def _hand_built():
    """A position built by hand (as the rules tests build them): its history does not lead to
    it, yet it keeps every rule, so it reads back, and so does every position played from it."""
    game = DruidsGame(2)
    st = game.new_initial_state()
    st.setup_i, st.turn, st.seat, st.phase = len(st.schedule), 1, 0, rules.P_COLLECT
    st.row = [0, 1, 2, 3, 4, 5]
    st.place_deck = list(range(6, 12))
    st.above[0] = [(gem(1, 7), 1), (gem(1, 2), 1)]
    st.under[0] = [servant(1, 3)]
    st.hands = [[gem(0, 1), gem(2, 5), servant(0, 1)], [gem(3, 3), servant(1, 6)]]
    used = {c for h in st.hands for c in h} | {gem(1, 7), gem(1, 2), servant(1, 3)}
    st.gem_deck = [g for g in range(NUM_GEMS) if g not in used]
    st.servant_sets = [[c for c in range(servant(q, 1), servant(q, 6) + 1) if c not in used]
                       for q in range(2)]
    st.resettle()
    assert not D.check(st), D.check(st)
    return st


def test_positions_built_by_hand_and_played_on_read_back_equal():
    st = _hand_built()
    rng = random.Random(3)
    while True:
        assert state_from_json(st.to_json()) == st and pickle.loads(pickle.dumps(st)) == st
        if st.is_terminal():
            break
        st.apply_action(st.sample_chance(rng) if st.is_chance_node()
                        else rng.choice(st.legal_actions()))


def test_every_event_kind_has_its_fields_checked_and_the_turn_bound_is_the_games():
    assert set(EVENT_FIELDS) == set(KINDS)
    assert MAX_TURN == MAX_TURNS_LIMIT


# --- the impossible positions of the issue, one line each ---------------------------------------
def _set(*path, value):
    """A change of the file: the value at ``path`` (keys and indices) set to ``value``."""
    def change(doc):
        where = doc
        for key in path[:-1]:
            where = where[key]
        where[path[-1]] = value(where[path[-1]]) if callable(value) else value
    return change


def _eight_cards(doc):
    doc["position"]["hands"][0].append(doc["position"]["gem_deck"].pop())


def _gem_twice(doc):
    doc["position"]["hands"][1][0] = doc["position"]["hands"][0][0]


def _gem_lost(doc):
    doc["position"]["gem_deck"].pop()


def _foreign_servant(doc):
    pos = doc["position"]
    mine = next(c for c in pos["hands"][0] if c >= NUM_GEMS)
    theirs = pos["servant_sets"][1][0]
    pos["hands"][0][pos["hands"][0].index(mine)] = theirs
    pos["servant_sets"][1][0] = mine
    pos["servant_sets"][1].sort()


HOSTILE = {  # name: (change of the document after the setup, words of the one line)
    "eight_card_hand": (_eight_cards, "hands[0] holds 8 cards, more than the hand limit of 7"),
    "gem_twice": (_gem_twice, "is in hands[0] and in hands[1]: each card is in one place"),
    "gem_lost": (_gem_lost, "is missing: each card is in one of hands, above or under"),
    "card_999": (_set("position", "hands", 0, 2, value=999), "hands[0][2] must be an integer "
                 "0..65, got 999"),
    "gem_under_a_place": (_set("position", "under", 0, value=[3]), "under[0][0] must be an "
                          "integer 54..65"),
    "servant_of_another_seat": (_foreign_servant, "another player's servant"),
    "nan_score": (_set("position", "score", 0, value=float("nan")), "NaN is not a number"),
    "infinite_score": (_set("position", "score", 1, value=float("-inf")), "-Infinity is not"),
    "score_10_30": (_set("position", "score", 0, value=10**30), "beyond 64 bits"),
    "score_2_62": (_set("position", "score", 0, value=2**62), "score[0] must be an integer "
                   "0..270"),
    "score_not_shared_out": (_set("position", "score", 0, value=3), "amulets shared out"),
    "float_turn": (_set("position", "turn", value=1.0), "turn must be an integer"),
    "bool_turn": (_set("position", "turn", value=True), "got True"),
    "string_flag": (_set("position", "acted", value="no"), "acted must be true or false"),
    "to_move_7": (_set("to_move", value=7), "to_move must be an integer -4..1, got 7"),
    "to_move_wrong_seat": (_set("to_move", value=1), "to_move is 1, but in phase"),
    "to_move_chance": (_set("to_move", value=-1), "to_move is -1"),
    "phase_99": (_set("position", "phase", value=99), "phase must be an integer 0..10, got 99"),
    "phase_of_the_setup": (_set("position", "phase", value=rules.P_DEAL_GEM),
                           "after the setup"),
    "seat_5": (_set("position", "seat", value=5), "seat must be an integer 0..1, got 5"),
    "forced_decision_left": (_set("position", "phase", value=rules.P_DRAW),
                             "the engine takes it by itself"),
    "extra_key": (_set("position", "cheat", value=1), "position: unknown key(s) 'cheat'"),
    "extra_top_key": (_set("comment", value="x"), "the file: unknown key(s) 'comment'"),
    "missing_key": (lambda doc: doc["position"].pop("score"), "missing key(s) ['score']"),
    "unsorted_deck": (_set("position", "gem_deck", value=lambda d: d[::-1]), "must be sorted"),
    "row_slots": (_set("position", "row", value=[0, 1]), "row must list 6 items, got 2"),
    "unknown_event": (_set("events", 0, 1, value="teleport"), "unknown kind 'teleport'"),
    "event_missing_field": (_set("events", 0, 2, value={"slot": 0}), "needs the data fields"),
    "event_owner": (_set("events", 6, 3, value=-1), "owner must be"),
    "history_id": (_set("history", 0, value=10**6), "history[0] must be an integer 0..495"),
    "history_not_its_events": (_set("history", 0, value=lambda a: 424 + (a - 423) % 12),
                               "does not match its first event"),
    "players_5": (_set("params", "num_players", value=5), "params: num_players"),
    "players_string": (_set("params", "circles", value="5"), "params: circles must be an"),
    "not_druids": (_set("game", value="meduris"), "not a Druids state"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_an_impossible_position_is_refused_with_one_line_naming_it(name):
    change, words = HOSTILE[name]
    st = _after_setup()
    doc = json.loads(st.to_json())
    change(doc)
    _refused(json.dumps(doc), words)


def test_hostile_texts_are_refused_with_one_line():
    text = _after_setup().to_json()
    _refused(text.replace('"turn":1,', '"turn":1,"turn":1,'), "the key 'turn' is given twice")
    _refused(text[:-1] + ',"x":' + DEEP + "}", "nested 100001 levels deep")
    _refused(DEEP, "nested 100000 levels deep")
    _refused('{"a":' * 50_000 + "1" + "}" * 50_000, "levels deep")
    _refused(text[: len(text) // 2], "not JSON")
    _refused(b"\xff\xfe" + text.encode(), "not UTF-8")
    _refused("[]", "not a Druids state")
    _refused(text, "cannot load into DruidsGame(num_players=3", DruidsGame(3))
    from meduris_env import MedurisGame
    _refused(MedurisGame(2).new_initial_state().to_json(), "not a Druids state")


# --- fuzz: each field mutated, random mutations ----------------------------------------------
WRONG = {  # of every value: a type a field never holds
    "int": [None, "x", 1.5, 1.0, True, [], {}],
    "bool": [None, "x", 0, 1, [], {}],
    "list": [None, "x", 5, {}, True],
}
OUT_OF_RANGE = [-7, 10**6, 2**40, -(2**40)]
BOOLS = ("servant_played", "acted")


def _paths(value, path=()):
    yield path, value
    if isinstance(value, dict):
        for key, v in value.items():
            yield from _paths(v, (*path, key))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _paths(v, (*path, i))


def _put(doc, path, value):
    where = doc
    for key in path[:-1]:
        where = where[key]
    where[path[-1]] = value


def _field(path) -> str:
    """The name a message must hold for a change at ``path``: the position's field, or the
    file's key."""
    return str(path[1] if path[0] == "position" and len(path) > 1 else path[0])


def _plays_on(st, rng) -> None:
    """An accepted state is a position the engine can take on: it reads back, every seat's
    view of it renders, it plays to the end keeping every invariant."""
    assert state_from_json(st.to_json()) == st
    str(st)
    for seat in range(st.game.num_players):
        information_state_string(st, seat)
        observation_tensor(st, seat)
        if not st.is_terminal():
            D.resample_hidden(st, seat, rng)
    D.play(st, D.random_decide(rng), rng,
           observer=lambda s, cur, a: None if not D.check(s) else pytest.fail(str(D.check(s))))


def test_each_field_given_a_wrong_value_is_refused_naming_it():
    """Every field of the file (each of the position's, their elements, the events', the
    history's and the parameters') given a value of a type it never holds, or a number out of
    its range, is refused in one line naming the field."""
    rng = random.Random(46)
    named = set()
    for st in _positions(9, 5):
        doc = json.loads(st.to_json())
        paths = [(p, v) for p, v in _paths(doc) if p and p[0] != "game"]
        fields = [(p, v) for p, v in paths  # each field itself, and a sample
                  if len(p) == 1 or len(p) == 2 and p[0] in ("position", "params")]
        for path, value in fields + rng.sample(paths, min(len(paths), 80)):  # of its elements
            kind = "bool" if path[-1] in BOOLS else "list" if isinstance(value, list) else \
                "int" if type(value) is int else None
            if kind is None:
                continue
            bad = WRONG[kind] + (OUT_OF_RANGE if kind == "int" else [])
            for wrong in rng.sample(bad, 2):
                changed = copy.deepcopy(doc)
                _put(changed, path, wrong)
                _refused(json.dumps(changed), _field(path))
                named.add(_field(path))
    assert named == set(POSITION) | {"to_move", "history", "events", "params"}


def _mutations(doc, rng):
    """One change of the file's structure or numbers: a number moved by one, an element
    dropped, doubled or two swapped, a key dropped, a list reversed."""
    path, value = rng.choice([(p, v) for p, v in _paths(doc) if p])
    changed = copy.deepcopy(doc)
    parent = changed
    for key in path[:-1]:
        parent = parent[key]
    key = path[-1]
    how = rng.randrange(5)
    if type(value) is int:
        parent[key] = value + rng.choice((-1, 1))
    elif isinstance(value, list) and value and how < 3:
        items = parent[key]
        if how == 0:
            del items[rng.randrange(len(items))]
        elif how == 1:
            items.insert(rng.randrange(len(items) + 1), rng.choice(items))
        else:
            i, j = rng.randrange(len(items)), rng.randrange(len(items))
            items[i], items[j] = items[j], items[i]
    elif isinstance(parent, dict):
        del parent[key]
    else:
        parent[key] = [value]
    return path, changed


def test_each_field_mutated_is_refused_in_one_line_or_is_a_legal_position():
    """Numbers moved by one, elements dropped, doubled or swapped, keys dropped, from real
    positions: each is refused in one line of StateFileError, or it still is a position the
    engine can take on (:func:`_plays_on`)."""
    rng = random.Random(7)
    positions = _positions(30, 11)
    outcomes = {"refused": 0, "accepted": 0}
    for i in range(1500):
        doc = json.loads(rng.choice(positions).to_json())
        _, changed = _mutations(doc, rng)
        text = json.dumps(changed)
        try:
            st = state_from_json(text)
        except StateFileError as err:
            assert "\n" not in str(err) and str(err).startswith("state file: "), str(err)
            outcomes["refused"] += 1
            continue
        outcomes["accepted"] += 1
        _plays_on(st, random.Random(i))
    assert outcomes["refused"] > 4 * outcomes["accepted"], outcomes


def test_random_text_mutations_raise_nothing_but_the_error_class():
    rng = random.Random(3)
    texts = [st.to_json() for st in _positions(6, 2)]
    alphabet = '[]{},:"-0123456789.eE truefalsnNI'
    for i in range(1500):
        text = rng.choice(texts)
        for _ in range(rng.randint(1, 3)):
            at = rng.randrange(len(text))
            how = rng.randrange(3)
            if how == 0:
                text = text[:at] + text[at + 1:]
            elif how == 1:
                text = text[:at] + rng.choice(alphabet) + text[at:]
            else:
                text = text[:at] + rng.choice(alphabet) + text[at + 1:]
        try:
            st = state_from_json(text)
        except StateFileError as err:
            assert "\n" not in str(err), str(err)
            continue
        _plays_on(st, random.Random(i))


# --- tampered game records through `meduris replay` ------------------------------------------
def _record(n: int = 3, seed: int = 3, steps: int | None = None) -> dict:
    st = _played(n, seed, steps)
    return GameRecord.from_state(st, [f"agent {s}" for s in range(n)], seed=seed).to_dict()


def _action(i: int, action):
    def change(doc):
        doc["actions"][i]["action"] = action
        doc["actions"][i]["text"] = D.action_to_string(action) if type(action) is int else "x"
    return change


def _event(i: int, **fields):
    def change(doc):
        doc["events"][i].update(fields)
    return change


def _truncated(doc):
    doc["actions"] = doc["actions"][:60]


RECORDS = {  # name: (change of a finished 3-player game's record, words of the one line)
    "illegal_action_id": (_action(40, 9999), "step 40 (no such action (9999)) does not replay"),
    "illegal_action": (_action(60, 0), "step 60"),
    "negative_action": (_action(40, -3), "does not replay"),
    "action_of_wrong_type": (_set("actions", 40, value="collect place 1"),
                             "actions[40] needs integer 'action' and 'seat'"),
    "action_float": (_set("actions", 40, "action", value=427.0), "needs integer 'action'"),
    "wrong_seat": (_set("actions", 40, "seat", value=7), "step 40"),
    "two_players": (_set("game", "num_players", value=2), "'agents' must list 2 labels"),
    "five_players": (_set("game", "num_players", value=5), "num_players (D2: 2, 3 or 4)"),
    "players_string": (_set("game", "num_players", value="3"), "needs the integers"),
    "seed_string": (_set("seed", value="seven"), "'seed' must be an integer or null"),
    "seed_float": (_set("seed", value=3.5), "'seed' must be an integer or null"),
    "seed_huge": (_set("seed", value=10**30), "beyond 64 bits"),
    "truncated_mid_game": (_truncated, "replayed event"),
    "event_without_its_data": (_event(30, kind="turn", data={}), "events[30]: turn needs the "
                               "data fields ['seat', 'turn']"),
    "event_card_999": (_event(8, data={"seat": 0, "card": 999}), "events[8]: gem_dealt: card "
                       "must be an integer 0..53"),
    "event_seat_99": (_event(8, data={"seat": 99, "card": 3}), "seat must be an integer"),
    "event_of_no_kind": (_event(8, kind="teleport"), "unknown kind 'teleport'"),
    "event_owner": (_event(8, owner=2), "owner must be"),
    "event_hidden": (_event(8, hidden=[["card"]]), "hidden must be ['card']"),
    "event_step": (_event(8, step=-5), "events[8] needs step"),
    "result_scores": (_set("result", "scores", value="x"), "replayed scores"),
    "deep": (_set("meta", value=json.loads("[" * 100 + "]" * 100)), "levels deep"),
    "nan": (_set("seed", value=float("nan")), "NaN is not a number"),
}


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_a_tampered_druids_record_is_one_line_from_replay(tmp_path, capsys, name):
    change, words = RECORDS[name]
    doc = _record()
    change(doc)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(doc))
    assert main(["replay", str(path), "--all"]) == 2
    captured = capsys.readouterr()
    err = captured.err
    assert err.startswith("meduris: error: record: ") and len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err and words in err, err
    assert captured.out == ""


def test_a_druids_record_with_a_duplicate_key_is_one_line_from_replay(tmp_path, capsys):
    text = json.dumps(_record()).replace('"seed": 3,', '"seed": 3, "seed": 4,')
    path = tmp_path / "game.json"
    path.write_text(text)
    assert main(["replay", str(path), "--all"]) == 2
    assert capsys.readouterr().err.strip() == (
        "meduris: error: record: the key 'seed' is given twice in one object (not a file this "
        "project writes); keep one")


def test_the_record_of_an_unfinished_game_replays(tmp_path, capsys):
    """A record may hold a game stopped midway (its result says so): it replays; cut short by
    hand, a finished game's record does not (see truncated_mid_game)."""
    path = tmp_path / "game.json"
    path.write_text(json.dumps(_record(steps=80)))
    assert main(["replay", str(path), "--all"]) == 0
    out = capsys.readouterr().out
    assert out.count("\nstep ") == 80 and "unfinished after turn" in out


def test_random_record_mutations_raise_nothing_but_the_error_family():
    rng = random.Random(5)
    docs = [_record(n, seed=n) for n in (2, 3, 4)]
    wrong = [None, True, -1, 0, 2, 7, 999, 10**18, 1.5, "x", [], [1], {}, {"a": 1}]
    refused = 0
    for _ in range(600):
        doc = copy.deepcopy(rng.choice(docs))
        path, _ = rng.choice([(p, v) for p, v in _paths(doc) if p])
        _put(doc, path, rng.choice(wrong))
        try:
            record = GameRecord.from_json(json.dumps(doc))
            terminal_replay(record, io.StringIO())
        except InputError as err:
            assert isinstance(err, RecordError) and "\n" not in str(err), str(err)
            refused += 1
    assert refused > 400
