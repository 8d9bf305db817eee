"""Minerva tasks: recall_and_edit (to be written)."""
