"""Minerva tasks: search (to be written)."""
