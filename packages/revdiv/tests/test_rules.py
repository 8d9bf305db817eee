"""The four rules against exact, closed-form cases."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from paperzoo.errors import ConfigError
from paperzoo_revdiv.engagement import EngagementError, check_engagement
from paperzoo_revdiv.rules import RULES, GlobalProp, ScaledUserProp, UserEq, UserProp, solve_gamma

# 3 users, 3 artists: user 0 streams only artist 0 a lot; users 1, 2 split.
W3 = np.array([[10.0, 0.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, 3.0]])


def engagement_matrices(max_users: int = 8, max_artists: int = 6) -> st.SearchStrategy[np.ndarray]:
    """Random instances in which every user engages with at least one artist."""

    @st.composite
    def build(draw: st.DrawFn) -> np.ndarray:
        n = draw(st.integers(1, max_users))
        m = draw(st.integers(1, max_artists))
        W = draw(arrays(np.float64, (n, m), elements=st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0, 7.0, 50.0])))
        favourite = draw(arrays(np.int64, n, elements=st.integers(0, m - 1)))
        W[np.arange(n), favourite] += 1.0
        return W

    return build()


def test_global_prop_closed_form() -> None:
    phi = GlobalProp(alpha=0.5).fit(W3).payments_
    np.testing.assert_allclose(phi, 0.5 * 3 * np.array([11.0, 2.0, 3.0]) / 16.0)


def test_user_prop_closed_form() -> None:
    phi = UserProp(alpha=1.0).fit(W3).payments_
    np.testing.assert_allclose(phi, [1.0 + 0.5, 0.5 + 0.25, 0.75])


def test_user_eq_closed_form_ignores_intensity() -> None:
    phi = UserEq(alpha=1.0).fit(W3).payments_
    np.testing.assert_allclose(phi, [1.0 + 0.5, 0.5 + 0.5, 0.5])


def test_scaled_user_prop_closed_form() -> None:
    # L = (10, 2, 4), αn = 1.8: user 0 is capped, 1 + 6γ = 1.8 → γ = 2/15
    model = ScaledUserProp(alpha=0.6).fit(W3)
    assert model.gamma_ == pytest.approx(2 / 15)
    np.testing.assert_array_equal(model.capped_, [True, False, False])
    np.testing.assert_allclose(model.budgets_, [1.0, 4 / 15, 8 / 15])
    np.testing.assert_allclose(model.payments_, [1 + 2 / 15, 4 / 15, 6 / 15])


def test_scaled_user_prop_with_nobody_capped_is_global_prop() -> None:
    # αn = 1.5 < f(1/10) = 1.6: nobody capped, γ = 1.5 / 16
    model = ScaledUserProp(alpha=0.5).fit(W3)
    assert model.gamma_ == pytest.approx(1.5 / 16)
    assert not model.capped_.any()
    np.testing.assert_allclose(model.payments_, GlobalProp(alpha=0.5).fit(W3).payments_)


@settings(max_examples=200, deadline=None)
@given(engagement_matrices(), st.floats(0.01, 1.0))
def test_every_rule_pays_out_exactly_alpha_n(W: np.ndarray, alpha: float) -> None:
    for rule in RULES.values():
        phi = rule(alpha=alpha).fit(W).payments_
        assert phi.sum() == pytest.approx(alpha * W.shape[0], rel=1e-12)
        assert (phi >= 0).all()


@settings(max_examples=200, deadline=None)
@given(engagement_matrices())
def test_scup_at_alpha_one_is_user_prop(W: np.ndarray) -> None:
    np.testing.assert_allclose(
        ScaledUserProp(alpha=1.0).fit(W).payments_, UserProp().fit(W).payments_, rtol=1e-12
    )


@settings(max_examples=200, deadline=None)
@given(engagement_matrices(), st.floats(0.01, 1.0))
def test_scup_is_global_prop_when_no_user_exceeds_the_threshold(W: np.ndarray, alpha: float) -> None:
    L = W.sum(axis=1)
    if not (L.sum() / (W.shape[0] * alpha) >= L).all():
        alpha = float(L.sum() / (W.shape[0] * L.max()))  # the largest α where the condition holds
    np.testing.assert_allclose(
        ScaledUserProp(alpha=alpha).fit(W).payments_, GlobalProp(alpha=alpha).fit(W).payments_, rtol=1e-9
    )


@settings(max_examples=300, deadline=None)
@given(arrays(np.float64, st.integers(1, 50), elements=st.floats(1e-3, 1e3)), st.floats(1e-3, 1.0))
def test_solve_gamma_solves_the_budget_equation(L: np.ndarray, alpha: float) -> None:
    gamma = solve_gamma(L, alpha)
    assert np.minimum(gamma * L, 1.0).sum() == pytest.approx(alpha * L.size, rel=1e-10)
    # the smallest such γ: a little less pays out less
    assert np.minimum(gamma * (1 - 1e-6) * L, 1.0).sum() < alpha * L.size


def test_sparse_dense_and_list_inputs_agree() -> None:
    for rule in RULES.values():
        dense = rule(alpha=0.8).fit(W3).payments_
        np.testing.assert_allclose(rule(alpha=0.8).fit(sp.csr_matrix(W3)).payments_, dense)
        np.testing.assert_allclose(rule(alpha=0.8).fit(sp.coo_array(W3)).payments_, dense)
        np.testing.assert_allclose(rule(alpha=0.8).fit(W3.tolist()).payments_, dense)


def test_explicit_zeros_do_not_count_as_engagement() -> None:
    W = sp.csr_matrix(([1.0, 0.0, 2.0], ([0, 0, 1], [0, 1, 1])), shape=(2, 2))
    np.testing.assert_allclose(UserEq().fit(W).payments_, [1.0, 1.0])
    assert W.nnz == 3  # the caller's matrix is untouched


def test_input_matrix_is_not_modified() -> None:
    W = sp.csr_matrix(([1.0, 0.0, 2.0, 2.0], ([0, 0, 1, 1], [0, 1, 1, 1])), shape=(2, 2))
    before = (W.data.copy(), W.indices.copy(), W.indptr.copy())
    ScaledUserProp(alpha=0.5).fit(W)
    for a, b in zip(before, (W.data, W.indices, W.indptr)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("alpha", [0.0, -0.1, 1.01, float("nan"), "half"])
def test_rejects_alpha_outside_unit_interval(alpha: object) -> None:
    with pytest.raises(ConfigError, match="alpha must be"):
        ScaledUserProp(alpha=alpha).fit(W3)  # type: ignore[arg-type]


def test_rejects_negative_and_nan_weights() -> None:
    with pytest.raises(EngagementError, match="1 negative weights"):
        UserProp().fit([[1.0, -1.0]])
    with pytest.raises(EngagementError, match="NaN or infinite"):
        UserProp().fit([[1.0, np.nan]])
    with pytest.raises(EngagementError, match="2-d"):
        UserProp().fit([1.0, 2.0])
    with pytest.raises(EngagementError, match="numeric"):
        UserProp().fit([["a", "b"]])
    with pytest.raises(EngagementError, match="at least one user"):
        UserProp().fit(np.zeros((0, 3)))


def test_zero_engagement_users_raise_or_are_dropped() -> None:
    W = np.array([[1.0, 0.0], [0.0, 0.0], [0.0, 2.0], [0.0, 0.0]])
    with pytest.raises(EngagementError, match=r"2 users have zero total engagement \(rows 1, 3\)") as info:
        UserProp().fit(W)
    assert info.value.hint == "drop them or pass on_empty='drop'"
    model = UserProp(on_empty="drop").fit(W)
    np.testing.assert_array_equal(model.users_, [0, 2])
    assert model.payments_.sum() == pytest.approx(2.0)
    with pytest.raises(ConfigError, match="on_empty"):
        check_engagement(W, on_empty="ignore")  # type: ignore[arg-type]


@pytest.mark.parametrize("dtype", [np.int64, np.float32, np.float64])
def test_non_canonical_sparse_input_of_any_dtype_is_never_modified(dtype: type) -> None:
    # unsorted indices, a duplicate entry and an explicit zero, in one CSR matrix
    W = sp.csr_matrix(
        (np.array([2, 1, 0, 3, 1], dtype=dtype), np.array([2, 0, 1, 0, 0]), np.array([0, 3, 5])), shape=(2, 3)
    )
    before = (W.data.copy(), W.indices.copy(), W.indptr.copy())
    expected = UserProp().fit(W.toarray()).payments_
    np.testing.assert_allclose(UserProp().fit(W).payments_, expected)
    for a, b in zip(before, (W.data, W.indices, W.indptr)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize(
    "L", [[1e308, 1e308], [1e-300, 1e-300, 1.0], [1e150, 1.0, 1e-150], [5.0], [1.0] * 7]
)  # fmt: skip
@pytest.mark.parametrize("alpha", [1e-12, 0.3, 1.0])
def test_solve_gamma_at_extreme_scales(L: list[float], alpha: float) -> None:
    model = ScaledUserProp(alpha=alpha).fit(np.array(L)[:, None])
    assert model.payments_.sum() == pytest.approx(alpha * len(L), rel=1e-12)
    assert np.isfinite(model.budgets_).all()


def test_solve_gamma_rejects_invalid_engagement() -> None:
    with pytest.raises(ConfigError, match="at least one user"):
        solve_gamma(np.array([]), 0.5)
    with pytest.raises(ConfigError, match="L_i > 0"):
        solve_gamma(np.array([1.0, 0.0]), 0.5)
    with pytest.raises(EngagementError, match="below float64's range"):
        UserProp().fit([[1e-310]])


def test_dropping_users_is_reported(caplog: pytest.LogCaptureFixture) -> None:
    UserProp(on_empty="drop").fit([[1.0], [0.0]])
    assert "dropped 1 of 2 users with zero total engagement (rows 1)" in caplog.text
