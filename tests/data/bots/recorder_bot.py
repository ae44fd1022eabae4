"""A well-behaved bot that appends every line it receives to the file named by its first
argument, then answers as protocol 1 asks (the first legal action): tests/test_external.py
reads the file to check the messages against the documented protocol."""

import json
import sys


def main() -> None:
    with open(sys.argv[1], "a") as log:
        for line in sys.stdin:
            log.write(line)
            log.flush()
            message = json.loads(line)
            if message["type"] == "hello":
                answer = {"type": "hello", "name": "recorder", "protocol": 1}
            elif message["type"] == "decide":
                answer = {"action": message["legal"][0][0]}
            elif message["type"] == "quit":
                return
            else:
                continue
            sys.stdout.write(json.dumps(answer) + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
