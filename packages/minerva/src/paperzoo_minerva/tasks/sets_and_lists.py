"""Minerva tasks: sets_and_lists (to be written)."""
