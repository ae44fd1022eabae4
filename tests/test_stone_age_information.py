"""What each Stone Age player knows (rules section 3): every view of a seat (observation
tensor and string, information state string and rows, the position a ``cmd:`` bot is sent) is
a function of that seat's knowledge only — the paired-state test: two states that differ only
in another seat's face-down cards look the same to it — while its own face-down cards are in
its views; and ``resample_hidden`` keeps all a seat knows."""

import json
import random

import numpy as np
import pytest
from stone_age_positions import states_with_secrets, swap_secret

import stoneage_env as SA
from stoneage_env.engine.information import information_state_rows, known_cards, unseen_cards


def views(st, p):
    return (SA.observation_tensor(st, p), SA.observation_string(st, p),
            SA.information_state_string(st, p), information_state_rows(st, p),
            json.dumps(SA.seat_state(st, p)))


def same(a, b):
    return all(np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y
               for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("n", [2, 3, 4])
def test_paired_states_look_the_same_to_the_player(n):
    rng = random.Random(n)
    states = states_with_secrets(n, 10, 7)
    differ = 0
    for s in states:
        holders = [q for q in range(n) if s.secret[q].sum()]
        p = rng.choice([q for q in range(n) if q != holders[0]] or [0])
        r = SA.resample_hidden(s, p, rng)
        assert same(views(s, p), views(r, p)), (p, len(s.history()))
        assert SA.violations(r) == [] and r.current_player() == s.current_player()
        if s.current_player() == p:
            assert r.legal_actions() == s.legal_actions()
        others = [q for q in range(n) if q != p]
        differ += any(not np.array_equal(s.secret[q], r.secret[q]) for q in others)
        fast = SA.resample_hidden(s, p, rng, rewrite_log=False)
        assert np.array_equal(SA.observation_tensor(fast, p), SA.observation_tensor(s, p))
        assert SA.violations(fast) == []
    assert len(states) >= 8 and differ >= len(states) // 3


@pytest.mark.parametrize("n", [2, 4])
def test_paired_states_built_by_hand_look_the_same_to_the_others_and_differ_to_the_owner(n):
    checked = 0
    for s in states_with_secrets(n, 8, 3):
        q = next(q for q in range(n) if s.secret[q].sum())
        twin = swap_secret(s, q)
        if twin is None:
            continue
        for p in range(n):
            tensors = SA.observation_tensor(s, p), SA.observation_tensor(twin, p)
            seats = SA.seat_state(s, p)["position"], SA.seat_state(twin, p)["position"]
            if p == q:  # its own card changed: it sees that
                assert not np.array_equal(*tensors) and seats[0] != seats[1]
            else:
                assert np.array_equal(*tensors) and seats[0] == seats[1]
        checked += 1
    assert checked >= 3


def test_the_seat_view_names_only_its_own_face_down_cards():
    s = states_with_secrets(3, 6, 11)[-1]
    q = next(q for q in range(3) if s.secret[q].sum())
    p = (q + 1) % 3
    view = SA.seat_state(s, p)
    assert view["position"]["cards"][q] == known_cards(s, p)[q].tolist()
    assert view["position"]["secret_counts"][q] == int(s.secret[q].sum())
    assert view["position"]["unseen_cards"] == unseen_cards(s, p).tolist()
    assert "deck" not in view["position"] and "secret" not in view["position"]
    drawn = [e for e in view["events"] if e[1] == "card_drawn"]
    assert drawn and all(e[2]["card"] == -1 for e in drawn if e[2]["seat"] == q)
    mine = SA.seat_state(s, q)
    assert mine["position"]["my_secret"] == s.secret[q].tolist()
    assert any(e[2]["card"] >= 0 for e in mine["events"] if e[1] == "card_drawn"
               and e[2]["seat"] == q)
    text = SA.information_state_string(s, p)
    assert "draws a card face down" in text
