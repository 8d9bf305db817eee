"""paperzoo-hello: the example plugin of the paperzoo tutorial."""

__version__ = "0.1.0"
