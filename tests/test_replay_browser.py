"""The HTML replay in headless Chromium: it loads without console errors, draws the board as
SVG with the renderer the web game uses (``board.js``), its controls work, and a 4-player game
is a small page that opens fast.

Skipped only where no Chromium is installed; CI installs it (``make test`` does) and sets
MEDURIS_REQUIRE_BROWSER=1, which turns the skip into a failure.
"""

import time

import pytest
from helpers import watched_page

from meduris_env import MedurisGame
from meduris_env.records.replay import write_html
from meduris_rl.agents.arena.match import play_game
from meduris_rl.agents.registry import make_agent
from meduris_rl.kit.records import GameRecord
from meduris_rl.kit.replay import frames


def open_page(browser, url):
    """A page at ``url`` and the list its console errors and uncaught exceptions go to."""
    page, problems = watched_page(browser)
    page.goto(url)
    page.wait_for_load_state("load")
    return page, problems


@pytest.fixture(scope="module")
def replay_page(tmp_path_factory):
    game = MedurisGame(3)
    agents = [make_agent(n) for n in ("greedy", "random", "mcts:20")]
    result = play_game(game, agents, 17, keep_record=True)
    record = GameRecord.from_dict(result.record)
    path = write_html(record, tmp_path_factory.mktemp("html") / "replay.html")
    return record, path


def test_html_replay_opens_without_console_errors_and_steps(browser, replay_page):
    record, path = replay_page
    fs = frames(record)
    last = len(fs) - 1
    page, problems = open_page(browser, path.as_uri())

    def step():
        return int(page.evaluate("document.body.dataset.step"))

    def turn():
        return int(page.get_attribute("#board svg", "data-turn"))

    assert step() == 0
    assert page.locator("#board svg").count() == 1
    assert page.get_attribute("#board svg", "viewBox") == "0 0 1060 664"
    assert page.locator("#board .field").count() == record.game.num_fields
    assert page.text_content("#caption") == fs[0].caption
    page.click("#next")
    page.click("#next")
    assert step() == 2 and page.text_content("#caption") == fs[2].caption
    page.click("#prev")
    assert step() == 1
    page.fill("#slider", str(last))  # dragging the slider to the end
    assert step() == last and page.text_content("#caption") == fs[last].caption
    assert page.locator("#events li").all_text_contents() == fs[last].events
    final = fs[last].state
    assert turn() == final.turn
    assert page.locator("#board .hut").count() == int((final.board_occupant == 1).sum())
    assert page.locator("#board .temple").count() == int((final.board_occupant == 2).sum())
    assert page.locator("#board .seat").count() == 3
    assert page.locator("#board .screen").count() == 0  # a replay shows every material
    assert page.locator("#board .legal").count() == 0  # and nothing to click
    assert final.scores().tolist()[0] == int(page.text_content(
        "#board .seat[data-seat='0'] text:nth-of-type(2)"))
    assert page.text_content("#counter") == f"{last} / {last}"
    page.click("#next")  # already at the end: stays
    assert step() == last
    page.fill("#slider", "40")
    page.keyboard.press("ArrowLeft")
    assert step() == 39
    page.click("#play")
    page.wait_for_function("Number(document.body.dataset.step) >= 41", timeout=5000)
    page.click("#play")  # pause
    assert page.text_content("#play") == "play"
    assert turn() == fs[step()].state.turn
    assert problems == []


def test_a_four_player_replay_is_small_and_opens_in_under_a_second(browser, tmp_path):
    game = MedurisGame(4)
    result = play_game(game, [make_agent("greedy") for _ in range(4)], 5, keep_record=True)
    record = GameRecord.from_dict(result.record)
    path = write_html(record, tmp_path / "four.html")
    size = path.stat().st_size
    assert size <= 300_000, f"{size} bytes"
    text = path.read_text()
    assert "data:image" not in text and "http://" not in text and "https://" not in text
    t0 = time.perf_counter()
    page, problems = open_page(browser, path.as_uri())
    page.wait_for_function("document.body.dataset.step === '0'")
    opened = time.perf_counter() - t0
    assert opened < 1.0, f"{opened:.2f} s"
    last = len(record.actions)
    page.fill("#slider", str(last))
    assert page.get_attribute("#board svg", "data-turn") == str(result.turns)
    assert page.locator("#board .seat").count() == 4
    assert problems == []


def test_the_harness_does_catch_page_errors(browser, tmp_path):
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><html><body><script>console.error('boom');"
                   "missingFunction();</script></body></html>")
    _, problems = open_page(browser, bad.as_uri())
    assert "console.error: boom" in problems
    assert any(p.startswith("uncaught: ") and "missingFunction" in p for p in problems)
