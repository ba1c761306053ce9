"""Score model predictions: answer parsing and each benchmark's metrics."""
