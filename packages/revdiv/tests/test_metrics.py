from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from paperzoo.errors import ConfigError
from paperzoo_revdiv.metrics import max_envy, pay_per_stream, relative_pps
from paperzoo_revdiv.rules import GlobalProp, UserProp

W = np.array([[10.0, 0.0, 0.0, 0.0], [1.0, 1.0, 0.0, 0.0], [0.0, 1.0, 3.0, 0.0]])  # artist 3: no streams


def test_pay_per_stream_closed_form_and_nan_for_unstreamed() -> None:
    pps = pay_per_stream(np.array([1.5, 0.75, 0.75, 0.0]), W)
    np.testing.assert_allclose(pps[:3], [1.5 / 11, 0.75 / 2, 0.75 / 3])
    assert np.isnan(pps[3])
    np.testing.assert_allclose(
        pay_per_stream(np.array([1.5, 0.75, 0.75, 0.0]), sp.csr_matrix(W))[:3], pps[:3]
    )


def test_global_prop_pays_everyone_the_same_rate() -> None:
    gp = GlobalProp(alpha=0.7).fit(W).payments_
    assert relative_pps(gp, W, gp, k=2) == pytest.approx((1.0, 1.0))
    assert max_envy(gp, W) == pytest.approx(1.0)


def test_relative_pps_ranks_by_the_rules_pps() -> None:
    up = UserProp().fit(W).payments_  # PPS: 1.5/11, 0.75/2, 0.75/3 ; GP PPS: 3/16
    gp = GlobalProp().fit(W).payments_
    top, bottom = relative_pps(up, W, gp, k=1)
    assert top == pytest.approx((0.75 / 2) / (3 / 16))
    assert bottom == pytest.approx((1.5 / 11) / (3 / 16))
    assert max_envy(up, W) == pytest.approx((0.75 / 2) / (1.5 / 11))


def test_bad_arguments() -> None:
    gp = GlobalProp().fit(W).payments_
    with pytest.raises(ConfigError, match="k must be in"):
        relative_pps(gp, W, gp, k=4)  # only 3 artists have streams
    with pytest.raises(ConfigError, match="3 payments for 4 artists"):
        pay_per_stream(gp[:3], W)
    assert max_envy(np.array([1.0, 0.0, 1.0, 0.0]), W) == float("inf")
