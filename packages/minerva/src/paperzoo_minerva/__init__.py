"""paperzoo-minerva: Minerva: A Programmable Memory Test Benchmark for Language Models.

Importing this package is cheap; the plugin module (``paperzoo_minerva.plugin``) names
everything else by ``"module:attr"`` targets, loaded on first use.
"""
