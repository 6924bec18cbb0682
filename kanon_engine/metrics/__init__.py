"""Information-loss and risk metrics."""
