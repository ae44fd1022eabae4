#!/usr/bin/env node
// A bot in JavaScript (node, no packages): it plays a seeded random legal move.
//
// Run it as an agent with: meduris tournament --agents "cmd:node examples/random_bot.js,greedy"
// (add --game druids for Druids: it picks among the "legal" ids only, so it plays any game;
// the "game" field of "hello" and "new_game" names the game).
// It speaks protocol 1 of docs/bring_your_own_agent.md on stdin/stdout, one JSON object per
// line: it answers "hello" with its name and every "decide" with {"action": <a legal id>},
// seeds its random stream from each "new_game"'s seed, ignores "game_over" and leaves on
// "quit" or at the end of its input. Diagnostics go to stderr (kept in a log file).
"use strict";

const readline = require("readline");

// mulberry32: a small seeded generator (Math.random cannot be seeded)
function seeded(seed) {
  let a = Number(BigInt(seed) % 4294967296n) >>> 0;
  return function () {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let random = seeded(0);
const input = readline.createInterface({ input: process.stdin, terminal: false });

function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

input.on("line", (line) => {
  if (!line.trim()) return;
  const message = JSON.parse(line);
  switch (message.type) {
    case "hello":
      send({ type: "hello", name: "random_bot.js", protocol: 1 });
      break;
    case "new_game":
      random = seeded(message.seed);
      process.stderr.write(`new game: seat ${message.seat} of ${message.players}\n`);
      break;
    case "decide": {
      const legal = message.legal;
      const [id] = legal[Math.floor(random() * legal.length)];
      send({ action: id });
      break;
    }
    case "quit":
      process.exit(0);
      break;
    default: // game_over, and whatever a later protocol adds
      break;
  }
});
input.on("close", () => process.exit(0));
