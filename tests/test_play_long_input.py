"""``meduris play`` with hostile typed input (issue 31): a number of thousands of digits, digits
that are not ASCII, a line of a megabyte. Each is refused with a short line and asked again; the
game goes on to the end of input and its record is saved; nothing is echoed whole."""

import io
import subprocess
import sys

import pytest

from meduris_rl.agents.human import MAX_LINE, parse_common
from meduris_rl.agents.meduris.human import HumanAgent
from meduris_rl.kit.records import GameRecord

HOSTILE = ["9" * 5000, "-" + "9" * 5000, "²", "٣" * 40, "x" * 1_000_000, "0" * 20 + "1"]


@pytest.mark.parametrize("game", ["meduris", "druids"])
def test_hostile_numbers_and_huge_lines_are_refused_and_the_record_saved(tmp_path, game):
    path = tmp_path / "me.json"
    run = subprocess.run([sys.executable, "-m", "meduris_rl.cli", "play", "--game", game,
                          "--opponents", "random", "--seed", "1", "--record", str(path)],
                         input="\n".join(HOSTILE) + "\n", capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 1, run.stderr[-500:]  # the input ended mid-game
    assert "Traceback" not in run.stderr and "Error" not in run.stderr, run.stderr[-500:]
    refusals = [line for line in run.stdout.splitlines() if "not accepted" in line]
    assert len(refusals) == len(HOSTILE) - 1, refusals  # "0..01" is the choice 1
    assert all(len(line) < 200 for line in refusals), max(map(len, refusals))
    assert len(run.stdout) < 200_000
    assert "999999999999... (4,096+ digits) is not on the list" in run.stdout
    assert GameRecord.load(path).actions  # saved, with the choice "0...01" played


def test_a_number_of_any_length_is_an_answer_not_a_crash():
    legal = [10, 11, 12]
    assert parse_common("3", legal) == (12, "")
    assert parse_common("0" * 29 + "2", legal) == (11, "")
    for text in ("9" * 5000, "-1", "0", "4", "²", "٣", "1" * 31):
        choice, reason = parse_common(text, legal)
        assert choice is None and reason.endswith("is not on the list (1-3)"), reason
        assert len(reason) < 80, reason


def test_a_huge_line_is_read_in_pieces_and_cut():
    inp = io.StringIO("y" * (10 * MAX_LINE) + "\n1\n")
    agent = HumanAgent(inp, io.StringIO())
    first = agent.read_line()
    assert len(first) == MAX_LINE + 1 and first.endswith("\n")
    assert agent.read_line() == "1\n"
