"""Agents that play a trained network: the network file, PPO, batched opponents, RLlib policies."""
