"""The `dla` accelerator: seed 004's coarse-grained deep-learning accelerator (see accelerator.py)."""
