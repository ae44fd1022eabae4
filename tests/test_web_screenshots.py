"""The screenshots of docs/web.md, taken from the real page by these tests:
``MEDURIS_SCREENSHOTS=docs pytest tests/test_web_screenshots.py`` writes them into that folder
(when the page changes; they are looked at before they are committed). Without it the suite
takes them into a temporary folder: the states they show (the first move, a menu open, the
opponents' moves marked, the spinner while an opponent thinks, the phone's bar, the end in
sight with the score by source) are asserted either way.

The desktop at 1280x800: ``play-start.png`` (a 3-player game at your first move),
``play.png`` (the same game mid-way, the opponents' last moves marked, a menu open),
``play-end.png`` (its end, in sight when it ends: the score by source, the screens lifted) and
``play-thinking.png`` (the spinner while openspiel-mcts:800 thinks, the board disabled). The
phone (390x844, at twice its pixels): ``play-phone-start.png`` (a 4-player game at your first
move), ``play-phone.png`` (your offering, its buttons in the bar at the bottom of the screen,
best first) and ``play-phone-end.png`` (its end).
"""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from PIL import Image
from test_web_browser import (
    click_a_legal_action,
    click_first_legal,
    fast_forward,
    open_a_menu,
    open_page,
    start_game,
)

DESKTOP = {"viewport": {"width": 1280, "height": 800}}
PHONE = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True,
         "device_scale_factor": 2}


@pytest.fixture
def out(tmp_path) -> Path:
    """The folder the screenshots go to: MEDURIS_SCREENSHOTS, else a temporary one."""
    folder = Path(os.environ.get("MEDURIS_SCREENSHOTS") or tmp_path / "shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def shot(page, out: Path, name: str, size: tuple[int, int]) -> Path:
    path = out / name
    if size[0] > 800:
        page.mouse.move(0, 0)  # (no hover on the desktop's pictures)
    page.screenshot(path=str(path))
    assert Image.open(path).size == size
    return path


def the_end(page, out: Path, name: str, size: tuple[int, int]) -> None:
    """On to the end (the page's own moves), and its picture: the end screen in sight."""
    assert not fast_forward(page, "false")
    page.wait_for_selector("#end", state="visible")
    assert page.evaluate("document.getElementById('end').getBoundingClientRect().top") >= 0
    assert page.is_visible("#breakdown-table") and page.is_visible("#rematch")
    shot(page, out, name, size)


def test_the_desktop_screenshots(browser, server, out):
    context = browser.new_context(**DESKTOP)
    page, problems = open_page(context, server.url)
    start_game(page, players=3, opponents=("greedy", "mcts:50"), seed=8)
    assert page.evaluate("state.game.view.turn") == 0
    shot(page, out, "play-start.png", (1280, 800))
    rng = random.Random(8)
    for _ in range(200):  # on until a field offers a hut and a temple, late enough to show
        if (page.evaluate("state.game.view.turn") >= 14 and page.locator("#board .mark").count()
                and open_a_menu(page)):
            break
        click_a_legal_action(page, rng)
    assert page.locator("#board .menu-item").count() > 1 and page.locator("#board .mark").count()
    page.locator("#board .menu-item").first.hover()
    page.screenshot(path=str(out / "play.png"))  # (the pointer on the menu: its hint shown)
    assert Image.open(out / "play.png").size == (1280, 800)
    page.keyboard.press("Escape")
    the_end(page, out, "play-end.png", (1280, 800))
    context.close()
    assert problems == []


def test_the_thinking_screenshot(browser, server, out):
    context = browser.new_context(**DESKTOP)
    page, problems = open_page(context, server.url)
    start_game(page, opponents=("openspiel-mcts:800",), seed=3)
    rng = random.Random(3)
    for _ in range(6):
        click_a_legal_action(page, rng)
    for _ in range(20):  # a move after which the opponent thinks (not a second decision)
        before = page.evaluate("Number(document.body.dataset.step)")
        click_first_legal(page)
        page.wait_for_function(f"() => document.body.dataset.busy === '0' && "
                               f"Number(document.body.dataset.step) > {before}")
        if page.evaluate("document.body.dataset.thinking") == "1":
            break
        page.wait_for_function("() => document.body.dataset.thinking === '0'", timeout=60000)
    shot(page, out, "play-thinking.png", (1280, 800))
    assert page.evaluate("document.body.dataset.thinking") == "1"  # still, when it was taken
    assert page.is_visible("#spinner")
    context.close()
    assert problems == []


def test_the_phone_screenshots(browser, server, out):
    context = browser.new_context(**PHONE)
    page, problems = open_page(context, server.url)
    start_game(page, players=4, opponents=("greedy", "random", "greedy"), seed=5)
    shot(page, out, "play-phone-start.png", (780, 1688))
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
    the_end(page, out, "play-phone-end.png", (780, 1688))
    context.close()
    assert problems == []
