"""The screenshots of docs/web.md, taken from the real page: ``MEDURIS_SCREENSHOTS=docs pytest
tests/test_web_screenshots.py`` writes them into that folder (when the page changes; they are
looked at before they are committed). Without it the suite takes them into a temporary folder:
the states they show (a menu open, the opponents' moves marked, the spinner while an opponent
thinks, the phone's viewport, the score by source) are asserted either way.

``play.png`` (1420x900, a 3-player game mid-way, the opponents' last moves marked, a menu
open), ``play-thinking.png`` (the spinner while openspiel-mcts:800 thinks, the board
disabled), ``play-phone.png`` (the 390x844 viewport of a phone, at twice its pixels: a
4-player game at your offering, its buttons in the bar at the bottom of the screen) and
``play-end.png`` (a finished 2-player game: the score by source, the screens lifted).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from PIL import Image
from test_web_browser import click_a_legal_action, open_page, start_game


@pytest.fixture
def out(tmp_path) -> Path:
    """The folder the screenshots go to: MEDURIS_SCREENSHOTS, else a temporary one."""
    folder = Path(os.environ.get("MEDURIS_SCREENSHOTS") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def shot(page, out: Path, name: str, size: tuple[int, int] | None = None, **kw) -> Path:
    path = out / name
    page.screenshot(path=str(path), **kw)
    if size is not None:
        assert Image.open(path).size == size
    return path


def open_a_menu(page) -> bool:
    """Click a field with two actions (a hut or a temple): its menu opens; True if one did."""
    targets = page.eval_on_selector_all(
        "#board .legal[data-target^='field:']",
        "els => els.filter(e => (e.getAttribute('data-words') || '').includes('\\n'))"
        ".map(e => e.getAttribute('data-target'))")
    if not targets:
        return False
    node = page.locator(f'#board [data-target="{targets[0]}"]').first
    node.click()
    node.hover()
    return page.locator("#board .menu-item").count() > 1


def test_the_desktop_screenshots(browser, server, out):
    context = browser.new_context(viewport={"width": 1420, "height": 900})
    page, problems = open_page(context, server.url)
    start_game(page, players=3, opponents=("greedy", "mcts:50"), seed=5)
    rng = random.Random(5)
    for _ in range(200):  # on until a field offers a hut and a temple, late enough to show
        if page.evaluate("state.game.view.turn") >= 14 and open_a_menu(page):
            break
        click_a_legal_action(page, rng)
    assert page.locator("#board .menu-item").count() > 1 and page.locator("#board .mark").count()
    shot(page, out, "play.png", (1420, 900))
    context.close()
    assert problems == []


def test_the_thinking_screenshot(browser, server, out):
    context = browser.new_context(viewport={"width": 1420, "height": 900})
    page, problems = open_page(context, server.url)
    start_game(page, opponents=("openspiel-mcts:800",), seed=3)
    rng = random.Random(3)
    for _ in range(6):
        click_a_legal_action(page, rng)
    for _ in range(20):  # a move after which the opponent thinks (not a second decision)
        before = page.evaluate("Number(document.body.dataset.step)")
        page.locator("#board .legal[data-target]").first.click(position={"x": 20, "y": 15})
        if page.locator("#board .menu-item").count():
            page.locator("#board .menu-item").first.click()
        page.wait_for_function(f"() => document.body.dataset.busy === '0' && "
                               f"Number(document.body.dataset.step) > {before}")
        if page.evaluate("document.body.dataset.thinking") == "1":
            break
        page.wait_for_function("() => document.body.dataset.thinking === '0'", timeout=60000)
    page.mouse.move(0, 0)
    shot(page, out, "play-thinking.png", (1420, 900))
    assert page.evaluate("document.body.dataset.thinking") == "1"  # still, when it was taken
    assert page.is_visible("#spinner")
    context.close()
    assert problems == []


def test_the_phone_and_end_screenshots(browser, server, out):
    context = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True,
                                  is_mobile=True, device_scale_factor=2)
    page, problems = open_page(context, server.url)
    start_game(page, players=4, opponents=("greedy", "random", "greedy"), seed=5)
    rng = random.Random(5)
    for _ in range(300):  # on to an offering of yours, late enough to show a built board
        if (page.evaluate("state.game.view.turn") >= 12
                and page.locator("#controls button.offer").count() >= 2):
            break
        click_a_legal_action(page, rng)
    page.evaluate("window.scrollTo(0, 0)")
    offers = page.locator("#controls button.offer")
    assert offers.count() >= 2 and all(
        0 <= box["y"] and box["y"] + box["height"] <= 844
        for box in (offers.nth(k).bounding_box() for k in range(offers.count())))
    shot(page, out, "play-phone.png", (780, 1688))
    context.close()
    assert problems == []
    context = browser.new_context(viewport={"width": 1420, "height": 900})
    page, problems = open_page(context, server.url)
    start_game(page, seed=7)
    while page.evaluate("document.body.dataset.status") == "running":
        click_a_legal_action(page, rng)
    page.locator("#end").scroll_into_view_if_needed()
    shot(page, out, "play-end.png", full_page=True)
    assert page.is_visible("#breakdown-table")
    context.close()
    assert problems == []
