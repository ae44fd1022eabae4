"""Druids' training: its league on the single-agent environment."""
