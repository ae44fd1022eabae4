"""A hypothesis fuzz test of the web API's JSON bodies (issue 31): ``POST /api/games`` and the
move endpoint with arbitrary JSON (hypothesis' recursive JSON values) and near-valid bodies
(wrong types, huge integers, floats, NaN and Infinity, deep nesting, long strings, raw bytes,
other content types), through the app in-process (FastAPI's TestClient).

Every response must be the documented JSON (``application/json``, ``{"error", "status"}`` for
an error, one short line) with a 2xx or 4xx status: never a 500, never text. Afterwards the
store must be consistent: one stored game per 201, each game's step count equal to its stored
moves, and every game resumed by a restarted server at the step it was left at.

The budget is fixed (:data:`EXAMPLES` per endpoint, ``derandomize=True``, no deadline), so the
run is the same every time. Each example's problems are collected rather than raised, so one
run counts every finding by class (the test then fails listing them)."""

from __future__ import annotations

import json
import sqlite3
import warnings
from collections import Counter

import pytest
from helpers import LOCAL
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from meduris_rl.cli.meduris.web.app import create_app

with warnings.catch_warnings():  # starlette would rather have httpx2; httpx works
    warnings.simplefilter("ignore")
    from fastapi.testclient import TestClient

EXAMPLES = 300
FUZZ = settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
                suppress_health_check=list(HealthCheck))
JSON_TYPE = {"content-type": "application/json"}

scalars = (st.none() | st.booleans() | st.integers() | st.floats()
           | st.text(max_size=40))
json_values = st.recursive(
    scalars, lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.text(max_size=12), inner, max_size=4), max_leaves=12)
odd_scalars = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70), st.sampled_from(
        [2**63, 2**63 - 1, -(2**63) - 1, 2**64, 10**30, -1, 0, 1.0, 2.5, -0.0, 1e308,
         float("nan"), float("inf"), float("-inf"), True, False, None, "", "2", " ", "\x00",
         "x" * 5000, "é" * 300, [], {}, [2], {"a": 1}]))


def field(good):
    """Mostly a good value, else an odd one or any JSON."""
    return st.one_of(good, good, good, odd_scalars, json_values)


opponent_names = st.sampled_from(["greedy", "random", "mcts:5", "greedy ", "mcts:0", "mcts:",
                                  "mcts:5.5", "mcts:1e308", "ppo:/etc/passwd", "gredy",
                                  "MCTS", "random:3", "mcts:99999999999999999999"])
game_fields = {
    "players": field(st.sampled_from([2, 3, 4])),
    "opponents": field(opponent_names | st.lists(opponent_names, max_size=4)),
    "seat": field(st.integers(0, 3)),
    "seed": field(st.integers(0, 2**63 - 1) | st.none())}
game_bodies = st.one_of(
    st.fixed_dictionaries(game_fields),
    st.fixed_dictionaries({}, optional={**game_fields, "extra": json_values}), json_values)
move_fields = {"action": field(st.integers(-2, 245)),
               "step": field(st.integers(0, 40) | st.none())}
move_bodies = st.one_of(
    st.fixed_dictionaries(move_fields), st.fixed_dictionaries({"action": move_fields["action"]}),
    st.fixed_dictionaries({}, optional={**move_fields, "pad": json_values}), json_values)


def encode(value) -> bytes:
    """``value`` as JSON text; NaN and Infinity written as Python's json writes them."""
    return json.dumps(value).encode()


def nested(depth: int) -> bytes:
    return b'{"players": ' + b"[" * depth + b"]" * depth + b"}"


raw_bodies = st.one_of(
    st.binary(max_size=64),
    st.integers(1, 3000).map(nested),
    st.integers(20, 6000).map(lambda n: b'{"seed": ' + b"9" * n + b"}"),
    st.integers(20, 6000).map(lambda n: b'{"action": -' + b"7" * n + b"}"),
    st.text(max_size=60).map(lambda t: t.encode("utf-8", "surrogatepass")),
    st.sampled_from([b"", b"null", b"[]", b"{", b'{"action": 1,}', b'{"action": 1e400}',
                     b'{"players": 2, "players": 3}', b"\xef\xbb\xbf{}", b'{"a":"\\ud800"}']))
content_types = st.sampled_from(["application/json"] * 12 + [
    "application/json; charset=utf-8", "text/plain", "", "application/x-www-form-urlencoded",
    "multipart/form-data; boundary=x", "APPLICATION/JSON"])


def bodies(structured):
    encoded = structured.map(encode)
    return st.tuples(st.one_of(encoded, encoded, encoded, raw_bodies), content_types)


def problems(r) -> list[str]:
    """What is wrong with a response (empty: it is as documented), each as a class name."""
    if r.status_code >= 500:
        return [f"status {r.status_code}"]
    if not 200 <= r.status_code < 500:
        return [f"status {r.status_code}"]
    if r.headers.get("content-type") != "application/json":
        return [f"content-type {r.headers.get('content-type')}"]
    try:
        body = r.json()
    except ValueError:
        return ["a body that is not JSON"]
    if r.status_code >= 400:
        shape = {"error", "status"} | ({"game"} if r.status_code == 409 else set())  # issue 30
        if not (isinstance(body, dict) and set(body) == shape
                and body["status"] == r.status_code and isinstance(body["error"], str)):
            return ["an error not shaped {error, status}"]
        if "\n" in body["error"] or len(body["error"]) > 400:
            return ["an error reason over one short line"]
    return []


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    db = tmp_path_factory.mktemp("fuzz_web") / "games.sqlite"
    return db, TestClient(create_app(db), raise_server_exceptions=False, base_url=LOCAL)


def stored(db) -> int:
    with sqlite3.connect(db) as con:
        return con.execute("SELECT COUNT(*) FROM games").fetchone()[0]


def assert_consistent(db, client, created: int) -> None:
    """One stored game per 201; step counts equal the stored moves; a restarted server resumes
    every game at the step it was left at."""
    with sqlite3.connect(db) as con:
        rows = con.execute("SELECT id, steps, (SELECT COUNT(*) FROM moves WHERE game = id) "
                           "FROM games").fetchall()
    assert len(rows) == created
    assert all(steps == moves for _, steps, moves in rows), rows
    restarted = TestClient(create_app(db), raise_server_exceptions=False, base_url=LOCAL)
    for gid, steps, _ in rows:
        r = restarted.get(f"/api/games/{gid}")
        assert r.status_code == 200 and r.json()["step"] == steps, r.text


class Findings:
    """The problems found, counted by class, with the first body that showed each."""

    def __init__(self):
        self.count: Counter = Counter()
        self.example: dict[str, str] = {}

    def check(self, r, raw: bytes, kind: str) -> None:
        for p in problems(r):
            self.count[p] += 1
            self.example.setdefault(p, f"{raw[:60]!r} as {kind!r}: {r.text[:80]!r}")

    def __bool__(self) -> bool:
        return bool(self.count)

    def __str__(self) -> str:
        return "; ".join(f"{n} x {what} (e.g. {self.example[what]})"
                         for what, n in self.count.most_common())


def test_fuzzed_new_game_bodies_answer_documented_json_and_keep_the_store_whole(served):
    db, client = served
    before = stored(db)
    findings = Findings()
    statuses: Counter = Counter()
    created = []

    @FUZZ
    @given(bodies(game_bodies))
    def post(sent):
        raw, kind = sent
        r = client.post("/api/games", content=raw, headers={"content-type": kind})
        statuses[r.status_code] += 1
        findings.check(r, raw, kind)
        if r.status_code == 201:
            created.append(r.json()["id"])

    post()
    print("POST /api/games:", sum(statuses.values()), "examples, statuses", dict(statuses))
    assert sum(statuses.values()) >= EXAMPLES  # the whole budget ran
    assert not findings, str(findings)
    assert created, "no valid body was generated: the fuzz test would test refusals only"
    assert_consistent(db, client, before + len(created))


def test_fuzzed_move_bodies_answer_documented_json_and_keep_the_store_whole(served):
    db, client = served
    games = [client.post("/api/games", json={"players": p, "opponents": "greedy", "seat": s,
                                             "seed": 11 + p}).json()["id"]
             for p, s in ((2, 0), (3, 2))]
    count = stored(db)
    findings = Findings()
    statuses: Counter = Counter()

    @FUZZ
    @given(bodies(move_bodies), st.sampled_from(games + ["0123456789abcdef"]))
    def move(sent, gid):
        raw, kind = sent
        r = client.post(f"/api/games/{gid}/actions", content=raw,
                        headers={"content-type": kind})
        statuses[r.status_code] += 1
        findings.check(r, raw, kind)

    move()
    print("POST /api/games/{id}/actions:", sum(statuses.values()), "examples, statuses",
          dict(statuses))
    assert sum(statuses.values()) >= EXAMPLES
    assert not findings, str(findings)
    assert_consistent(db, client, count)
