"""A bot that breaks protocol 1 in the way its first argument names (tests/test_external.py).

crash      exits with code 3 at its third decision when it sits at seat 1 (plays well at seat 0)
hang       sleeps at its first decision (past any move time)
slow       answers every decision after 0.1 s (legal moves: for the game-time limit)
garbage    answers its first decision with text that is not JSON
flood      answers its first decision with 2 MB and no newline
illegal    answers its first decision with action 999
handshake  answers hello with protocol 99
silent     exits at once, without a word
"""

import json
import sys
import time

MODE = sys.argv[1]


def send(obj) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main() -> None:
    if MODE == "silent":
        sys.exit(0)
    seat, decisions = 0, 0
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            send({"type": "hello", "name": f"faulty-{MODE}",
                  "protocol": 99 if MODE == "handshake" else 1})
        elif kind == "new_game":
            seat, decisions = message["seat"], 0
        elif kind == "decide":
            decisions += 1
            legal = [action for action, _text in message["legal"]]
            if MODE == "crash" and seat == 1 and decisions == 3:
                print("faulty bot: crashing on purpose", file=sys.stderr)
                sys.exit(3)
            if MODE == "hang":
                time.sleep(600)
            if MODE == "slow":
                time.sleep(0.1)
            if MODE == "garbage":
                sys.stdout.write("I think I will build a hut\n")
                sys.stdout.flush()
                continue
            if MODE == "flood":
                sys.stdout.write("x" * 2_000_000)
                sys.stdout.flush()
                time.sleep(600)
            send({"action": 999 if MODE == "illegal" else legal[0]})
        elif kind == "quit":
            return


if __name__ == "__main__":
    main()
