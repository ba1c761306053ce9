"""Pages people look at: the dataset index and the HTML report."""
