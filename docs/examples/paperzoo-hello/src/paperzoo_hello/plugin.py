"""Hook implementations of paperzoo-hello: names and lazy targets, no heavy imports."""

from paperzoo import EstimatorSpec, ExperimentSpec, MetricSpec, PluginInfo, hookimpl


@hookimpl
def paperzoo_plugin_info():
    return PluginInfo(id="hello", framework="numpy", paper="Hello, paperzoo (tutorial example)")


@hookimpl
def paperzoo_register_estimators(register):
    register(
        EstimatorSpec(
            name="hello.shrunk_mean",
            target="paperzoo_hello.mean:ShrunkMean",
            summary="Sample mean shrunk towards zero.",
        )
    )


@hookimpl
def paperzoo_register_metrics(register):
    register(
        MetricSpec(
            name="hello.abs_error",
            target="paperzoo_hello.mean:abs_error",
            summary="Absolute error of an estimate.",
            formula="|estimate - truth|",
            greater_is_better=False,
        )
    )


@hookimpl
def paperzoo_register_experiments(register):
    register(
        ExperimentSpec(
            name="hello.mean",
            target="paperzoo_hello.experiments:mean",
            summary="Estimate the mean of N(loc, 1) from n samples.",
            settings={"n": 1_000, "loc": 2.0, "shrinkage": 0.0},
            scales={"smoke": {"n": 100}, "paper": {"n": 100_000}},
            reproduces="the law of large numbers",
        )
    )
