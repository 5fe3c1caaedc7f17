"""tensorc.overrides (being written)."""
