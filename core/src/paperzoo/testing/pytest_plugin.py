"""pytest plugin ``paperzoo``: makes the fixtures of :mod:`paperzoo.testing.fixtures`
available to every test suite once paperzoo is installed."""

from paperzoo.testing.fixtures import paperzoo_home, paperzoo_host

__all__ = ["paperzoo_home", "paperzoo_host"]
