"""Stone Age's own players for the shared tools: the documented greedy heuristic
(:mod:`.greedy`) and the rows of the agent table (:mod:`.kinds`), named by Stone Age's row in
the table of games."""
