"""ltrfs: feature selection for learning to rank, reproducible end to end."""

__version__ = "0.1.0"
