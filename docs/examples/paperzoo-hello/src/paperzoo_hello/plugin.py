"""The manifest of paperzoo-hello: names, lazy targets and settings; no heavy imports."""

from paperzoo import Plugin, Setting

plugin = Plugin("hello", framework="numpy", paper="Hello, paperzoo (tutorial example)")

plugin.estimator("shrunk_mean", ".mean:ShrunkMean", "Sample mean shrunk towards zero.")
plugin.metric("abs_error", ".mean:abs_error", "Absolute error of an estimate.",
              formula="|estimate - truth|", greater_is_better=False)  # fmt: skip
plugin.experiment(
    "mean",
    ".experiments:mean",
    "Estimate the mean of N(loc, 1) from n samples.",
    settings={
        "n": Setting(1_000, low=1, help="number of samples"),
        "loc": Setting(2.0, low=-1e6, high=1e6, help="the true mean"),
        "shrinkage": Setting(0.0, low=0, high=1),
    },
    scales={"smoke": {"n": 100}, "paper": {"n": 100_000}},
    test_scale={"n": 50},  # keeps the contract test under a second
    reproduces="the law of large numbers",
)
