import importlib.util
import os
import shutil
import signal
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))

# The Ctrl-C tests (test_interrupt, test_duel, test_external, test_ladder, test_tournament) send
# SIGINT to the commands they start. A suite started as a background job of a non-interactive
# shell (`.ci/run &`) inherits SIGINT ignored, its children would too, and Python then installs
# no KeyboardInterrupt at all: give the suite, and so the commands it starts, Python's own
# handler back (exec resets a handled signal to its default in the child).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# Ray and RLlib live in their own environment (RLlib pins gymnasium 1.2.2): `make test` runs
# these files there (.venv-ray); an environment without Ray does not collect them.
collect_ignore = [] if importlib.util.find_spec("ray") else ["test_rllib.py", "test_ray.py",
                                                               "test_plugins_ray.py",
                                                               "test_ray_address_ray.py"]


# Headless Chromium for the browser tests (the HTML replay, `meduris serve`), one per module.
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update",
                  "--disable-sync"]


@pytest.fixture(scope="module")
def browser():
    """A Playwright browser on the system's Chromium; skipped only where none is installed,
    and MEDURIS_REQUIRE_BROWSER=1 (set by `make test`) turns that skip into a failure."""
    path = next(filter(None, map(shutil.which, ("chromium", "chromium-browser",
                                                  "google-chrome"))), None)
    if path is None:
        if os.environ.get("MEDURIS_REQUIRE_BROWSER") == "1":
            pytest.fail("MEDURIS_REQUIRE_BROWSER=1 but no chromium is installed "
                        "(make test installs Debian's chromium)")
        pytest.skip("no Chromium installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=CHROMIUM_FLAGS)
        yield b
        b.close()


@pytest.fixture
def server(tmp_path):
    """``meduris serve``'s app in a thread on 127.0.0.1 (test_web_browser.Server), games in a
    fresh database; stopped after the test. The web tests' one server."""
    from test_web_browser import Server
    s = Server(tmp_path / "games.sqlite")
    yield s
    s.stop()
