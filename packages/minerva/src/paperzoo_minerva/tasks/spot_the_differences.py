"""Minerva tasks: spot_the_differences (to be written)."""
