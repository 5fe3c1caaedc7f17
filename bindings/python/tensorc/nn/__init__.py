"""tensorc.nn (being written)."""
