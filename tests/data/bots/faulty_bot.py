"""A bot that breaks protocol 1 in the way its first argument names (tests/test_external.py).

crash      exits with code 3 at its third decision when it sits at seat 1 (plays well at seat 0)
hang       sleeps at its first decision (past any move time)
slow       answers every decision after 0.1 s (legal moves: for the game-time limit)
garbage    answers its first decision with text that is not JSON
flood      answers its first decision with 2 MB and no newline
illegal    answers its first decision with action 999
handshake  answers hello with protocol 99
silent     exits at once, without a word
percent    answers its first decision with text full of % signs (a format string's)
bytes      answers its first decision with 200 random bytes (seeded) and a newline
once       exits (code 0) right after each answer
killed     is killed (SIGKILL) 0.05 s after its first answer, while the other seat thinks
stderr     writes 50 MB to its stderr at each new game, then plays legal moves
ahead      answers its first decision twice (the second line before it is asked)
twice      answers with the key "action" given twice
truthy     answers hello with "protocol": true
escape     starts a grandchild that leaves its session (setsid sleep 600), then plays legal moves
launcher   as escape, then exits after its first answer, leaving the grandchild behind
"""

import json
import os
import random
import signal
import sys
import threading
import time

MODE = sys.argv[1]
# the modes that answer their first decision with one line that is not a JSON object
NOT_JSON = {"garbage": "I think I will build a hut\n", "percent": "100% sure: %d %s %(x)s %\n"}


def send(obj) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def main() -> None:
    if MODE == "silent":
        sys.exit(0)
    if MODE in ("escape", "launcher"):
        import subprocess
        subprocess.Popen(["setsid", "sleep", "600"], stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    seat, decisions = 0, 0
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            send({"type": "hello", "name": f"faulty-{MODE}",
                  "protocol": {"handshake": 99, "truthy": True}.get(MODE, 1)})
        elif kind == "new_game":
            seat, decisions = message["seat"], 0
            if MODE == "stderr":
                chunk = "x" * 1023 + "\n"
                for _ in range(50 * 1024):
                    sys.stderr.write(chunk)
                sys.stderr.flush()
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
            if MODE in NOT_JSON:
                sys.stdout.write(NOT_JSON[MODE])
                sys.stdout.flush()
                continue
            if MODE == "flood":
                sys.stdout.write("x" * 2_000_000)
                sys.stdout.flush()
                time.sleep(600)
            if MODE == "bytes":
                junk = bytes(random.Random(7).randrange(256) for _ in range(200))
                sys.stdout.buffer.write(junk.replace(b"\n", b" ") + b"\n")
                sys.stdout.flush()
                continue
            if MODE == "twice":
                sys.stdout.write(f'{{"action": {legal[0]}, "action": 999}}\n')
                sys.stdout.flush()
                continue
            if MODE == "ahead":  # (both lines in one write: they arrive together)
                sys.stdout.write(json.dumps({"action": legal[0]}) + "\n" +
                                 json.dumps({"action": legal[0]}) + "\n")
                sys.stdout.flush()
                continue
            send({"action": 999 if MODE == "illegal" else legal[0]})
            if MODE in ("once", "launcher"):
                sys.exit(0)
            if MODE == "killed":
                threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGKILL)).start()
        elif kind == "quit":
            return


if __name__ == "__main__":
    main()
