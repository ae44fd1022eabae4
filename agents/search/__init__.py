"""Game-neutral search: Gumbel AlphaZero's root selection and its batched tree search."""
