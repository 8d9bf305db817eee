"""paperzoo-fairpp: Meta Optimality for Demographic Parity Constrained Regression via Post-Processing.

Importing this package is cheap; the plugin module (``paperzoo_fairpp.plugin``) names
everything else by ``"module:attr"`` targets, loaded on first use.
"""
