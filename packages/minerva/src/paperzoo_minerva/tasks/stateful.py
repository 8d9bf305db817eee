"""Minerva tasks: stateful (to be written)."""
