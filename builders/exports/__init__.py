"""Benchmark layouts written from a manifest: TOMATO, Video-TT, Vinoground, lmms-eval, Hugging Face.

Exports do not import each other; what they share lives in the core (``tempogen.io``).
"""
