"""Meduris's own players: greedy and its heuristics, MCTS, the network-guided searches, the
policy's features, the human seat."""
