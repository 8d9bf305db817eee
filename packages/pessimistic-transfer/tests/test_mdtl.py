"""MDTL in JAX: against the numpy loop, the exact fixed points, on sharded devices, with MLMC."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from paperzoo.errors import ConfigError
from paperzoo_pessimistic_transfer.mdps import garnet, sources_at_discrepancy
from paperzoo_pessimistic_transfer.mdtl import MDTL, mdtl, mdtl_numpy, mlmc_max
from paperzoo_pessimistic_transfer.operators import solve

TARGET = garnet(12, 3, 3, seed=4)
RADII = np.array([0.1, 0.2, 0.4, 1.2])
SOURCES = sources_at_discrepancy(TARGET, RADII, 3, seed=5)


@pytest.mark.parametrize("aggregation", ["avg", "max"])
def test_jax_mdtl_equals_the_numpy_loop(aggregation: str) -> None:
    kw = dict(aggregation=aggregation, local_steps=5, step_size=0.05, rounds=40)
    ours = mdtl(SOURCES, TARGET.r, RADII, TARGET.gamma, **kw).Q
    ref = mdtl_numpy(SOURCES, TARGET.r, RADII, TARGET.gamma, **kw)
    np.testing.assert_allclose(ours, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("aggregation", ["avg", "max"])
def test_one_local_step_converges_to_the_exact_fixed_point(aggregation: str) -> None:
    out = mdtl(SOURCES, TARGET.r, RADII, TARGET.gamma, aggregation=aggregation, local_steps=1, step_size=1.0,
               rounds=500)  # fmt: skip
    exact = solve(SOURCES, TARGET.r, RADII, TARGET.gamma, aggregation)
    np.testing.assert_allclose(out.Q, exact, rtol=1e-4, atol=1e-3)


@pytest.mark.slow
@pytest.mark.parametrize("aggregation", ["avg", "max"])
def test_sample_based_mdtl_approaches_model_based_as_samples_grow(aggregation: str) -> None:
    kw = dict(aggregation=aggregation, local_steps=5, step_size=0.05, rounds=40, mlmc_levels=3)
    model = mdtl(SOURCES, TARGET.r, RADII, TARGET.gamma, **kw).Q
    errors = [
        np.abs(
            mdtl(SOURCES, TARGET.r, RADII, TARGET.gamma, sampling="samples", n_samples=n, **kw).Q - model
        ).max()
        for n in (1, 256)
    ]
    # the error shrinks with the draws (noise ~ 1/√n and the bias of max_a over noisy Q with it)
    assert errors[1] < 0.25 * errors[0], errors
    assert errors[1] < 0.02 * np.abs(model).max(), errors


def test_mlmc_estimate_is_unbiased_for_the_max_of_expectations() -> None:
    import jax

    means = jax.numpy.array([0.0, 0.5, 0.2])
    levels, n = 7, 20_000

    def draw(key: jax.Array) -> tuple[jax.Array, jax.Array]:
        kx, kl = jax.random.split(key)
        X = means[:, None] + jax.random.normal(kx, (3, 2 ** (levels + 1)))
        return mlmc_max(X, kl, levels), X[:, 0].max()

    z, plug_in = jax.jit(jax.vmap(draw))(jax.random.split(jax.random.key(0), n))
    z = np.asarray(z, dtype=float)
    se = z.std() / np.sqrt(n)
    assert abs(z.mean() - 0.5) < 4 * se, (z.mean(), se)
    assert float(np.mean(plug_in)) > 0.5 + 20 * se  # the plug-in max of single draws is far above


@pytest.mark.parametrize("backup", ["exact", "exact-simplex"])
@pytest.mark.parametrize("aggregation", ["avg", "max"])
def test_jax_exact_backup_equals_the_numpy_loop(aggregation: str, backup: str) -> None:
    kw = dict(aggregation=aggregation, local_steps=3, step_size=0.5, rounds=30, backup=backup)
    ours = mdtl(SOURCES, TARGET.r, RADII, TARGET.gamma, **kw).Q
    ref = mdtl_numpy(SOURCES, TARGET.r, RADII, TARGET.gamma, **kw)
    np.testing.assert_allclose(ours, ref, rtol=1e-4, atol=1e-4)


def test_rejects_exact_backup_with_samples() -> None:
    with pytest.raises(ConfigError, match="needs the source kernels"):
        mdtl(SOURCES, TARGET.r, RADII, TARGET.gamma, sampling="samples", backup="exact", rounds=1)


@pytest.mark.slow
def test_sharded_path_on_four_cpu_devices_equals_vmap_path() -> None:
    code = textwrap.dedent(
        """
        import numpy as np
        from paperzoo_pessimistic_transfer.mdps import garnet, sources_at_discrepancy
        from paperzoo_pessimistic_transfer.mdtl import mdtl
        g = garnet(12, 3, 3, seed=4)
        radii = np.array([0.1, 0.2, 0.4, 1.2])
        Ps = sources_at_discrepancy(g, radii, 3, seed=5)
        for agg, sampling in [("avg", "model"), ("max", "model"), ("max", "samples")]:
            kw = dict(aggregation=agg, sampling=sampling, rounds=30, mlmc_levels=2, seed=1)
            a = mdtl(Ps, g.r, radii, g.gamma, devices=4, **kw).Q
            b = mdtl(Ps, g.r, radii, g.gamma, **kw).Q
            assert np.allclose(a, b, rtol=1e-4, atol=1e-4), (agg, sampling, np.abs(a - b).max())
        print("ok")
        """
    )
    env = {**os.environ, "XLA_FLAGS": "--xla_force_host_platform_device_count=4", "JAX_PLATFORMS": "cpu"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "ok"


def test_rejects_more_devices_than_available() -> None:
    with pytest.raises(ConfigError, match="devices=64"):
        mdtl(SOURCES, TARGET.r, RADII, TARGET.gamma, devices=64, rounds=1)


def test_rejects_unknown_aggregation() -> None:
    with pytest.raises(ConfigError, match="aggregation must be 'avg' or 'max'"):
        mdtl(SOURCES, TARGET.r, RADII, TARGET.gamma, aggregation="mean")  # type: ignore[arg-type]


def test_rejects_radii_of_the_wrong_length() -> None:
    with pytest.raises(ConfigError, match=r"radii must have shape \(K,\) = \(4,\)"):
        MDTL(rounds=2).fit(SOURCES, RADII[:2], TARGET.r)
