import json
import random
import sys

rng = random.Random(0)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        print(json.dumps({"type": "hello", "name": "mybot", "protocol": 1}), flush=True)
    elif message["type"] == "new_game":
        rng = random.Random(message["seed"])
    elif message["type"] == "decide":
        action, _text = rng.choice(message["legal"])
        print(json.dumps({"action": action}), flush=True)
    elif message["type"] == "quit":
        break
