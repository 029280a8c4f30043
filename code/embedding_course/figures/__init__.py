"""Figures: the plots and precomputed slider explorers of each lesson, one module per lesson.

The concept modules (``positional``, ``lookup``, ``pipeline``, ...) hold the maths; the
modules here draw it. ``live/`` holds the widget versions of the same views for a running
kernel, and ``exercises/`` the checkers.
"""
