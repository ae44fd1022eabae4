#!/usr/bin/env python3
"""A bot in plain Python (no import of the project): it plays a seeded random legal move.

Run it as an agent with ``meduris tournament --agents "cmd:python examples/random_bot.py,greedy"``
(add ``--game druids`` for Druids: it picks among the ``legal`` ids only, so it plays any game;
the ``game`` field of ``hello`` and ``new_game`` names the game). It speaks protocol 1 of
docs/bring_your_own_agent.md on stdin/stdout, one JSON object per line: it answers ``hello``
with its name and every ``decide`` with ``{"action": <a legal id>}``, seeds its random stream
from each ``new_game``'s seed (the same tournament gives the same moves), ignores ``game_over``
and leaves on ``quit`` or at the end of its input. Diagnostics go to stderr, which the
tournament keeps in a log file; stdout carries protocol lines only.
"""

import json
import random
import sys


def main() -> None:
    rng = random.Random(0)
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            answer = {"type": "hello", "name": "random_bot.py", "protocol": 1}
        elif kind == "new_game":
            rng = random.Random(message["seed"])
            print(f"new game: seat {message['seat']} of {message['players']}", file=sys.stderr)
            continue
        elif kind == "decide":
            action_id, _text = rng.choice(message["legal"])
            answer = {"action": action_id}
        elif kind == "quit":
            break
        else:  # game_over, and whatever a later protocol adds
            continue
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
