"""One module per method; each reads top to bottom like the paper's algorithm."""
