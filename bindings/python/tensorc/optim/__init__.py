"""tensorc.optim (being written)."""
