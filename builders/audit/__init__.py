"""Audits that show a benchmark needs temporal reasoning: pixel verification, validity, sampling."""
