"""The arena: games between agents (match), tournaments, duels (SPRT) and the rating ladder."""
