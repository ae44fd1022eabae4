"""The live page of ``meduris serve`` against the real server (issue 30), in headless Chromium:
the thinking indicator with a disabled board while an mcts opponent thinks, a second tab
following a move live, and a server killed (SIGKILL) and restarted mid-game (the notice, then
the game resumes). Reuses test_web_browser.py's server and page helpers; skipped only where no
Chromium is installed, as those are. No console errors or failed requests, except those of the
event stream the killed server cut (named in the test).
"""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.request

from test_web_browser import (
    Server,
    click_a_legal_action,
    click_first_legal,
    open_page,
    start_game,
    step_of,
)


def stream_cut(problem: str, game_id: str) -> bool:
    """A problem caused by the stopped server cutting (or refusing) the event stream."""
    return (problem.endswith(f"/api/games/{game_id}/events")
            or "ERR_INCOMPLETE_CHUNKED_ENCODING" in problem
            or "ERR_CONNECTION_REFUSED" in problem)


def test_a_thinking_mcts_opponent_shows_a_spinner_and_disables_the_board(browser, server):
    page, problems = open_page(browser, server.url)
    start_game(page, opponents=("mcts:200",), seat=0, seed=4)
    before = step_of(page)
    click_first_legal(page)
    page.wait_for_function("() => document.body.dataset.thinking === '1'", timeout=30000)
    assert page.is_visible("#spinner")
    assert "mcts:200" in page.text_content("#status")
    assert page.locator("#board .legal").count() == 0
    assert page.get_attribute("#board", "aria-disabled") == "true"
    page.wait_for_function("() => document.body.dataset.thinking === '0'", timeout=90000)
    assert step_of(page) > before + 1  # the opponent's move arrived on the stream
    assert not page.is_visible("#spinner") and page.locator("#board .legal").count() > 0
    assert problems == []


def test_a_second_tab_follows_a_move_live(browser, server):
    context = browser.new_context()
    one, problems_one = open_page(context, server.url)
    game_id = start_game(one, seed=6)
    two, problems_two = open_page(context, server.url + f"#game={game_id}")
    two.wait_for_function(f"() => document.body.dataset.gameId === '{game_id}'")
    assert step_of(two) == step_of(one)
    one.bring_to_front()
    click_a_legal_action(one, random.Random(6))
    two.wait_for_function(f"() => Number(document.body.dataset.step) === {step_of(one)}",
                          timeout=30000, polling=50)
    assert two.evaluate("state.game.view") == one.evaluate("state.game.view")
    context.close()
    assert problems_one == [] and problems_two == []


class KillableServer:
    """The app served by uvicorn in a process of its own on 127.0.0.1 (a cold thinking pool, as
    the in-thread Server), so that the test can SIGKILL it: no shutdown, no goodbye."""

    def __init__(self, db):
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()
        code = ("import sys, uvicorn; from meduris_rl.cli.meduris.web.app import create_app; "
                "uvicorn.run(create_app(sys.argv[1]), host='127.0.0.1', port=int(sys.argv[2]), "
                "log_level='warning')")
        self.proc = subprocess.Popen([sys.executable, "-c", code, str(db), str(self.port)],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{self.port}/"
        deadline = time.monotonic() + 60
        while True:
            assert self.proc.poll() is None and time.monotonic() < deadline, "did not start"
            try:
                urllib.request.urlopen(self.url + "api/agents", timeout=2).close()
                return
            except OSError:
                time.sleep(0.1)

    def kill(self) -> list[int]:
        """SIGKILL; its children (the thinking worker) that outlive it by 10 s."""
        kin = children(self.proc.pid)
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)
        deadline = time.monotonic() + 10  # (the worker dies with its parent: die_with_parent)
        while any(map(alive, kin)) and time.monotonic() < deadline:
            time.sleep(0.05)
        return [pid for pid in kin if alive(pid)]


def alive(pid: int) -> bool:
    """Is ``pid`` running (a zombie, dead but not yet reaped by its new parent, is not)?"""
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def children(pid: int) -> list[int]:
    path = f"/proc/{pid}/task/{pid}/children"
    return [int(x) for x in open(path).read().split()] if os.path.exists(path) else []


def test_a_killed_and_restarted_server_shows_the_notice_then_the_game_resumes(browser,
                                                                             tmp_path):
    """SIGKILL mid-think (the opponent's search running in the worker), then a new server on
    the same database and port: the page shows the notice, reconnects, resyncs, the
    opponent's move is thought after the restart, and the game is played on to its end by
    clicking (issue 47), its end screen's links answering."""
    db = tmp_path / "games.sqlite"
    first = KillableServer(db)
    try:
        page, problems = open_page(browser, first.url)
        game_id = start_game(page, opponents=("mcts:200",), seat=0, seed=9)
        click_first_legal(page)
        page.wait_for_function("() => document.body.dataset.thinking === '1'", timeout=30000)
        step = step_of(page)
    finally:  # (a failure before the kill leaves no server behind)
        assert first.kill() == []  # mid-think; no search left running
    page.wait_for_function("() => !document.getElementById('notice').hidden", timeout=30000)
    assert "connection lost" in page.text_content("#notice")
    second = Server(db, port=first.port)
    try:
        page.wait_for_function("() => document.getElementById('notice').hidden",
                               timeout=60000)  # the reconnect's sync
        page.wait_for_function("() => document.body.dataset.thinking === '0'", timeout=120000)
        assert step_of(page) > step  # the opponent's move, thought after the restart
        assert second.get_json(f"/api/games/{game_id}")["step"] == step_of(page)
        rng = random.Random(9)
        while page.evaluate("document.body.dataset.status") == "running":
            click_a_legal_action(page, rng)
        page.wait_for_selector("#end", state="visible")
        assert second.get_json(f"/api/games/{game_id}")["status"] == "finished"
        for link in ("#replay-link", "#record-link"):
            href = page.get_attribute(link, "href")
            assert page.request.get(second.url + href.lstrip("/")).status == 200
    finally:
        second.stop()
    assert [p for p in problems if not stream_cut(p, game_id)] == []


def test_a_click_while_the_server_is_down_shows_the_notice_then_the_game_goes_on(
        browser, tmp_path):
    """No "Failed to fetch": a move the server cannot receive shows the reconnecting notice
    and says the move was not sent (issue 47: the notice alone left the player believing it
    was), the page fetches the game again with a backoff until the server is back, says the
    move was not played, and the game goes on from the server's position."""
    db = tmp_path / "games.sqlite"
    first = Server(db)
    page, problems = open_page(browser, first.url)
    game_id = start_game(page, seed=8)  # greedy: your move at once
    step = step_of(page)
    first.stop()
    click_first_legal(page)  # the POST cannot reach the server
    page.wait_for_function("() => !document.getElementById('notice').hidden && "
                           "document.body.dataset.busy === '0'", timeout=30000)
    assert page.text_content("#notice") == "connection lost, reconnecting..."
    assert "Failed to fetch" not in page.inner_text("body")  # (what is shown)
    unsent = "Your move was not sent: the server cannot be reached."
    assert page.text_content("#message").startswith(unsent) and page.is_visible("#message")
    assert step_of(page) == step
    page.wait_for_timeout(2500)  # a few tries meanwhile (0.5 s, 1 s, ...), the same words
    assert page.is_visible("#notice") and page.text_content("#message").startswith(unsent)
    second = Server(db, port=first.port)
    try:
        page.wait_for_function("() => document.getElementById('notice').hidden",
                               timeout=30000)  # a try (or the stream) got the game again
        assert page.text_content("#message") == ("The server is back. Your move was not "
                                                  "played: play it again.")
        assert step_of(page) == step == second.get_json(f"/api/games/{game_id}")["step"]
        click_a_legal_action(page, random.Random(8))  # and the game goes on
        assert second.get_json(f"/api/games/{game_id}")["step"] == step_of(page) > step
    finally:
        second.stop()
    # what the outage cut or refused (the move, the tries, the stream); nothing else
    assert [p for p in problems if not (stream_cut(p, game_id) or p.startswith(
        f"request failed: {first.url}api/games/{game_id}"))] == []
