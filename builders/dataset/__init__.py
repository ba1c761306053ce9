"""Build a dataset: render clips, edit variants and run caption retrieval over them."""
