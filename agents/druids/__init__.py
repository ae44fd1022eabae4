"""Druids' own players: greedy, IS-MCTS, PPO and its features, the human seat."""
