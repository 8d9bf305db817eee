"""Minerva tasks: composite (to be written)."""
