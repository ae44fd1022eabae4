"""The browser game, round two (issue 47): what the server must do for a player and for a
careful operator. Each test failed before its fix; the page's side is in
``tests/test_web_round_two_browser.py``.

* item 1: a finished game's last ``move`` message carries ``record_url`` and ``replay_url``
  whoever made the last move (the end screen's links were ``/undefined`` after an AI's);
* item 2: ``meduris serve`` answers the page within 3 s of starting while the thinking workers
  warm up; ``/api/agents`` says which opponents are ready, and later that all are;
* item 5: a decision with one choice is played for you (stored as yours, said in the log, the
  same after a restart); a building the engine pays for with exchanges says which, before;
* item 9: Ctrl-C (SIGINT) with event streams open stops the server at once, no traceback;
* item 10: a request naming another host is refused (DNS rebinding), ``serve --allow-host``
  adds a name; a half-sent body is
  dropped after the body timeout; a move without ``step`` is refused (a retry would be played
  twice); ``GET /api/games/`` is a JSON 404, not an empty 307.
"""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from test_web_browser import Server
from test_web_hardening import client_for, new_game
from test_web_live import Stream, first_legal, free_port, play_through

from meduris_env import MedurisGame
from meduris_env.engine.chance import sample_chance
from meduris_env.render.view import legal_view
from meduris_rl.cli.meduris.web import app as web_app
from meduris_rl.cli.meduris.web.app import host_name
from meduris_rl.kit.records import GameRecord

ROOT = Path(__file__).resolve().parent.parent


# --- item 10: server hygiene ----------------------------------------------------------------
@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.nip.io",
                                  "localhost.evil.example", "[::2]:80", "", "a:b"])
def test_a_request_naming_another_host_is_refused(tmp_path, host):
    client = client_for(tmp_path / "g.sqlite")
    for method, path in (("get", "/"), ("get", "/api/agents"), ("post", "/api/games")):
        r = getattr(client, method)(path, headers={"host": host})
        assert r.status_code == 400, (host, path, r.status_code)
        assert "does not name this server" in r.json()["error"]
        assert r.headers["x-frame-options"] == "DENY"
    assert client.get("/api/games").json() == {"games": []}  # nothing was created


@pytest.mark.parametrize("host", ["localhost:8000", "127.0.0.1", "[::1]:8000", "LOCALHOST"])
def test_the_local_names_and_allowed_ones_are_served(tmp_path, host):
    client = client_for(tmp_path / "g.sqlite",
                        hosts=("localhost", "127.0.0.1", "::1", "mybox.local"))
    assert client.get("/api/agents", headers={"host": host}).status_code == 200
    assert client.get("/api/agents", headers={"host": "mybox.local:80"}).status_code == 200
    assert host_name(b"[::1") is None and host_name(b"localhost:x") is None


def test_serve_checks_its_allowed_hosts_in_one_line(tmp_path, capsys):
    from helpers import run_cli
    for bad in ("http://x.example", "x.example/a", "x.example:80", "a b", ""):
        code, _, err = run_cli(capsys, "serve", "--db", str(tmp_path / "g.sqlite"),
                               "--port", str(free_port()), "--allow-host", bad)
        assert code == 2 and "--allow-host" in err and len(err.strip().splitlines()) == 1


def test_a_half_sent_body_is_dropped_after_the_body_timeout(tmp_path, monkeypatch):
    monkeypatch.setattr(web_app, "BODY_TIMEOUT", 0.5)
    server = Server(tmp_path / "g.sqlite")
    try:
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=10)
        start = time.monotonic()
        sock.sendall(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"pla")
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
            chunk = sock.recv(4096)
            if not chunk:
                break
            answer += chunk
        took = time.monotonic() - start
        sock.close()
        assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
        assert b"did not arrive within 0.5 s" in answer
        assert 0.4 < took < 5, took
        assert server.get_json("/api/games") == {"games": []}  # nothing half-made
    finally:
        server.stop()


def test_a_move_without_step_is_refused_so_a_retry_is_never_played_twice(tmp_path):
    client = client_for(tmp_path / "g.sqlite")
    g = new_game(client).json()
    legal = g["view"]["legal"][0]["id"]
    r = client.post(f"/api/games/{g['id']}/actions", json={"action": legal})
    assert r.status_code == 422 and "step is required" in r.json()["error"]
    assert client.get(f"/api/games/{g['id']}").json()["step"] == g["step"]
    body = {"action": legal, "step": g["step"]}
    first = client.post(f"/api/games/{g['id']}/actions", json=body)
    again = client.post(f"/api/games/{g['id']}/actions", json=body)  # the same move resent
    assert first.status_code == 200 and again.status_code == 409
    assert client.get(f"/api/games/{g['id']}").json()["step"] == first.json()["step"]


def test_a_trailing_slash_is_a_json_404_not_an_empty_redirect(tmp_path):
    client = client_for(tmp_path / "g.sqlite")
    for path in ("/api/games/", "/api/agents/"):
        r = client.get(path, follow_redirects=False)
        assert r.status_code == 404 and r.json() == {"error": "not found", "status": 404}


# --- item 1: the last move's message has the end screen's links -------------------------------
def test_the_last_move_message_carries_the_record_and_replay_links(tmp_path):
    """Against a searching opponent (its moves arrive on the stream) the game is played to
    its end through the API; the stream's last ``move`` (finished) has both links, and they
    answer."""
    server = Server(tmp_path / "g.sqlite")
    base = server.url
    try:
        g = httpx.post(f"{base}api/games", json={"players": 2, "opponents": "mcts:2",
                                                 "seat": 0, "seed": 5}, timeout=30).json()
        stream = Stream(base, g["id"])
        try:
            assert play_through(base, g, first_legal)["status"] == "finished"
            moves = [data for event, data in stream.until("end", timeout=120)
                     if event == "move"]
        finally:
            stream.close()
        last = moves[-1]
        assert last["status"] == "finished"
        assert last["record_url"] == f"/api/games/{g['id']}/record"
        assert last["replay_url"] == f"/games/{g['id']}/replay"
        for url in (last["record_url"], last["replay_url"]):
            assert httpx.get(base + url.lstrip("/"), timeout=30).status_code == 200
    finally:
        server.stop()


# --- items 2 and 9: serve answers at once, warms in the background, stops at once ------------
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="signals a process group")
def test_serve_answers_within_3_s_warms_in_the_background_and_stops_at_once(tmp_path):
    port = free_port()
    base = f"http://127.0.0.1:{port}/"
    start = time.monotonic()
    proc = subprocess.Popen([str(Path(sys.executable).parent / "meduris"), "serve", "--db",
                             str(tmp_path / "g.sqlite"), "--port", str(port), "--thinkers", "1",
                             "--allow-host", "mybox.local"],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        page = None
        while time.monotonic() - start < 3.0 and page is None:
            try:
                page = httpx.get(base, timeout=1)
            except httpx.HTTPError:
                time.sleep(0.05)
        assert page is not None and page.status_code == 200, "no page within 3 s"
        # item 10: --allow-host adds a name the server answers to; others are refused
        assert httpx.get(base, headers={"host": f"mybox.local:{port}"}).status_code == 200
        assert httpx.get(base, headers={"host": "evil.example"}).status_code == 400
        first = httpx.get(f"{base}api/agents", timeout=5).json()
        ready = {a["name"]: a["ready"] for a in first["agents"]}
        assert first["thinking"]["warming"] and ready["greedy"] and not ready["mcts"]
        # a greedy game plays at once meanwhile
        g = httpx.post(f"{base}api/games", json={"players": 2, "opponents": "greedy",
                                                 "seed": 2}, timeout=10).json()
        r = httpx.post(f"{base}api/games/{g['id']}/actions", timeout=10, json={
            "action": g["view"]["legal"][0]["id"], "step": g["step"]})
        assert r.status_code == 200 and time.monotonic() - start < 10
        deadline = time.monotonic() + 300
        while (now := httpx.get(f"{base}api/agents", timeout=5).json())["thinking"]["warming"]:
            assert time.monotonic() < deadline, "the workers never warmed up"
            time.sleep(0.5)
        assert now["thinking"] == {"ready": True, "warming": False, "error": None}
        assert all(a["ready"] for a in now["agents"])
        # item 9: Ctrl-C with a game's event stream open
        m = httpx.post(f"{base}api/games", json={"players": 2, "opponents": "mcts:50",
                                                 "seed": 2}, timeout=10).json()
        stream = socket.create_connection(("127.0.0.1", port), timeout=10)
        stream.sendall(f"GET /api/games/{m['id']}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                       .encode())
        got = b""
        while b"event: sync" not in got:
            chunk = stream.recv(65536)
            assert chunk, got
            got += chunk
        stopped = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
        took = time.monotonic() - stopped
        stream.close()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert "Traceback" not in err and "CancelledError" not in err, err[-3000:]
    assert took < 3.0, took


# --- item 5: no prompt with one choice; no exchange without a word before ---------------------
def test_a_decision_with_one_choice_is_played_for_you_and_said_so(tmp_path):
    """A whole game (you play your last legal action each time): no answer ever asks you a
    decision with one choice; those were played for you as your own moves, marked "forced"
    and said so in the log, each one the only legal action where it was played (the record
    replays them); a restarted server says the same of them."""
    db = tmp_path / "g.sqlite"
    client = client_for(db)
    g = new_game(client, seed=0).json()
    game_id, asked = g["id"], 0
    while g["status"] == "running":
        legal = g["view"]["legal"]
        assert len(legal) >= 2, g["view"]["decision"]  # never a prompt with one choice
        asked += 1
        g = client.post(f"/api/games/{game_id}/actions",
                        json={"action": legal[-1]["id"], "step": g["step"]}).json()
    log = client.get(f"/api/games/{game_id}").json()["log"]
    forced = [e for e in log if e.get("forced")]
    assert len(forced) >= 3 and asked > 20
    for e in forced:
        assert e["who"] == "you" and e["seat"] == 0
        assert e["lines"][0].endswith(" (your only choice: played for you)")
    record = GameRecord.from_json(client.get(f"/api/games/{game_id}/record").content)
    states = list(record.states())
    for e in forced:
        assert len(states[e["step"]].legal_actions()) == 1
    again = client_for(db).get(f"/api/games/{game_id}").json()["log"]  # a restarted server
    assert [e.get("forced", False) for e in again] == [e.get("forced", False) for e in log]


def test_a_building_paid_with_exchanges_says_which_before_it_is_played():
    """Random 2-player games (exchange="auto", R15): every legal building or offering the engine
    would pay for with exchanges lists them ("exchanges") and its words say so; playing it
    makes exactly those exchanges; every other legal action makes none (offerings too)."""
    rng, warned = __import__("random").Random(4), 0
    for _ in range(6):
        state = MedurisGame(2).new_initial_state()
        while not state.is_terminal():
            if state.current_player() < 0:
                state.apply_action(sample_chance(state, rng))
                continue
            entries = legal_view(state, state.current_player())
            for entry in entries:
                trial = state.clone()
                trial.apply_action(entry["id"])
                made = [e for e in trial.last_events()
                        if e.kind == "exchange" and e.data["automatic"]]
                assert len(made) == len(entry.get("exchanges", [])), entry
                if made:
                    warned += 1
                    words = " and ".join(entry["exchanges"])
                    assert entry["words"].endswith(f", first exchanging {words} (R15)")
                    assert all(" for 1 " in x and x.count("+") == 2 for x in entry["exchanges"])
            state.apply_action(rng.choice(entries)["id"])
    assert warned >= 5


def test_an_entry_point_plug_in_that_fails_to_import_does_not_stop_the_server(tmp_path,
                                                                              monkeypatch):
    """Issue 46: one installed entry-point plug-in that fails to import stopped ``meduris
    serve`` starting (the server warmed every offered entry point). Now the server starts,
    offers the rest, warms none of the plug-ins, and plays."""
    from meduris_rl.agents import registry
    from meduris_rl.agents.plugins import load
    from meduris_rl.cli.meduris.web.app import warm_agents

    installed = load.entry_points()
    monkeypatch.setattr(load, "entry_points", lambda: sorted(
        [*installed, ("brokenbot", "no_such_module_at_all:Agent", "broken-pkg")]))
    monkeypatch.setattr(registry, "FOUND", {})
    assert "brokenbot" in {k.name for k in registry.kinds(None)}  # (found, offered)
    assert "brokenbot" not in {name.split(":")[0] for name, _ in warm_agents()}
    client = client_for(tmp_path / "g.sqlite")
    offer = client.get("/api/agents")
    assert offer.status_code == 200 and "greedy" in {a["name"] for a in offer.json()["agents"]}
    g = new_game(client)
    assert g.status_code == 201 and g.json()["status"] == "running"
