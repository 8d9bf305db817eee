"""Minerva tasks: match_and_compare (to be written)."""
