"""Decision rules as pure functions (no I/O), one module per family, tested exhaustively."""

from .majority import majority_vote

__all__ = ["majority_vote"]
