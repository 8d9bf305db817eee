"""Node-classification graphs: Cora, CiteSeer, Amazon Photo, Coauthor CS, and an SBM generator.

Every loader returns a :class:`~paperzoo_graph.graph.Graph` processed as PyTorch
Geometric processes it, so that numbers are comparable with papers that use PyG:

* **Planetoid** (Cora, CiteSeer; ``torch_geometric.io.read_planetoid_data``): the
  raw ``ind.<name>.*`` pickles; features ``vstack(allx, tx)`` with the test rows
  put back in ``test.index`` order; CiteSeer's 15 nodes that are missing from
  ``tx``/``ty`` (PyG calls them isolated, yet each has an edge or two) get zero
  features; self-loops removed, duplicate edges
  dropped (the raw graphs are already symmetric, so the result is undirected);
  public split ``train = 0..len(y)-1``, ``val`` = the next 500, ``test`` =
  ``test.index``. One deliberate difference: PyG labels a node whose one-hot row
  is all zeros (CiteSeer's 15 missing nodes) ``argmax = 0``; here it is ``-1``
  (unlabelled), so no protocol trains or tests on a made-up label.
* **Shchur et al.'s npz** (Amazon Photo, Coauthor CS; ``torch_geometric.io.read_npz``
  as used by ``Amazon`` and ``Coauthor``): binary features (``x > 0 → 1``), self-loops
  removed, made undirected and deduplicated; no public split.

No loader normalises features: methods that row-normalise (GRACE's
``NormalizeFeatures``) do it themselves.
"""

from __future__ import annotations

import io
import pickle
import warnings
import zipfile
from itertools import chain
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from paperzoo.base import check_int, check_number
from paperzoo.data import fetch
from paperzoo.errors import ConfigError, DataError, UnknownNameError
from paperzoo_graph.graph import Graph
from paperzoo_graph.plugin import NPZ_FILES, NPZ_MEMBERS, PLANETOID_FILES

__all__ = [
    "GRAPH_NAMES",
    "load_amazon_photo",
    "load_citeseer",
    "load_coauthor_cs",
    "load_cora",
    "load_graph",
    "load_npz",
    "load_planetoid",
    "sbm_graph",
]

PLANETOID_NAMES = ("cora", "citeseer")
NPZ_NAMES = ("amazon-photo", "coauthor-cs")
GRAPH_NAMES = PLANETOID_NAMES + NPZ_NAMES
"""Names :func:`load_graph` knows."""


def _check_name(name: str, known: tuple[str, ...], loader: str) -> str:
    key = str(name).lower()
    if key not in known:
        raise UnknownNameError(f"{loader} has no dataset {name!r}", hint=f"choose one of: {', '.join(known)}")
    return key


# ------------------------------------------------------------------ Planetoid


def _unpickle(path: Path) -> object:
    """One Planetoid pickle (Python 2, hence latin1); scipy warns about its old module names.

    The file's sha256 was checked by :func:`paperzoo.data.fetch` before it is unpickled.
    """
    with open(path, "rb") as fh, warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return pickle.load(fh, encoding="latin1")


def _edges_from_dict(adjacency: dict[int, list[int]]) -> np.ndarray:
    """``(2, E)`` edges of a dict of neighbour lists (without a Python loop over nodes)."""
    counts = np.fromiter(map(len, adjacency.values()), dtype=np.int64, count=len(adjacency))
    sources = np.repeat(np.fromiter(adjacency.keys(), dtype=np.int64, count=len(adjacency)), counts)
    targets = np.fromiter(chain.from_iterable(adjacency.values()), dtype=np.int64, count=int(counts.sum()))
    return np.stack([sources, targets])


def _undirected_without_loops(edges: np.ndarray) -> np.ndarray:
    """Self-loops dropped, each edge's reverse added (the Graph removes duplicates)."""
    edges = edges[:, edges[0] != edges[1]]
    return np.concatenate([edges, edges[::-1]], axis=1)


def load_planetoid(name: str) -> Graph:
    """Cora or CiteSeer from the raw Planetoid files, with the public split as ``masks``.

    Processing follows PyG's ``read_planetoid_data`` (see the module docstring);
    nodes without a label (CiteSeer: 15) get ``y = -1``.

    Args:
        name: ``"cora"`` or ``"citeseer"`` (case-insensitive).

    Returns:
        A Graph with masks ``train`` (20 per class), ``val`` (500) and ``test`` (1000).
        Cora: 2,708 nodes, 10,556 directed edges, 1,433 features, 7 classes.
        CiteSeer: 3,327 nodes, 9,104 edges, 3,703 features, 6 classes.
    """
    key = _check_name(name, PLANETOID_NAMES, "load_planetoid")
    files = PLANETOID_FILES[key]
    parts = {part: _unpickle(fetch(files[part])) for part in ("x", "y", "tx", "ty", "allx", "ally", "graph")}
    test_index = np.loadtxt(fetch(files["test.index"]), dtype=np.int64, ndmin=1)
    allx, tx = sp.csr_array(parts["allx"]), sp.csr_array(parts["tx"])
    ally, ty = np.asarray(parts["ally"]), np.asarray(parts["ty"])
    n_train = np.asarray(parts["y"]).shape[0]

    # test rows are consecutive after allx except for CiteSeer's 15 nodes missing from tx:
    # like PyG, reserve a row for every index between min and max, zero where tx has none
    sorted_test = np.sort(test_index)
    first = len(ally)
    span = int(test_index.max() - test_index.min()) + 1
    n = first + span
    rows = first + sorted_test - test_index.min()
    x = np.zeros((n, allx.shape[1]), dtype=np.float32)
    x[:first] = allx.toarray()
    x[rows] = tx.toarray()
    x[test_index] = x[sorted_test]
    onehot = np.zeros((n, ally.shape[1]), dtype=np.int64)
    onehot[:first] = ally
    onehot[rows] = ty
    onehot[test_index] = onehot[sorted_test]
    y = np.where(onehot.any(axis=1), onehot.argmax(axis=1), -1)

    edges = _edges_from_dict(parts["graph"])  # type: ignore[arg-type]
    if edges.size and edges.max() >= n:
        raise DataError(
            f"{files['graph'].path}: the graph names node {int(edges.max())} but the features have {n} rows",
            hint="the files are from different versions; delete them and fetch again",
        )
    masks = {}
    for split, index in (
        ("train", np.arange(n_train)),
        ("val", np.arange(n_train, n_train + 500)),
        ("test", test_index),
    ):
        masks[split] = np.zeros(n, dtype=bool)
        masks[split][index] = True
    return Graph(x=x, edge_index=_undirected_without_loops(edges), y=y, masks=masks, name=key)


# ------------------------------------------------------------ Shchur et al.


def load_npz(name: str) -> Graph:
    """Amazon Photo or Coauthor CS from Shchur et al.'s npz, read straight out of its zip.

    Processing follows PyG's ``read_npz(to_undirected=True)``: features made binary,
    self-loops removed (Photo has one), both directions of every edge, duplicates
    dropped. There is no public split (use :func:`~paperzoo_graph.evaluation.random_splits`).

    Args:
        name: ``"amazon-photo"`` or ``"coauthor-cs"``.

    Returns:
        Photo: 7,650 nodes, 238,162 directed edges, 745 features, 8 classes.
        CS: 18,333 nodes, 163,788 edges, 6,805 features, 15 classes.
    """
    key = _check_name(name, NPZ_NAMES, "load_npz")
    file = NPZ_FILES[key]
    path = fetch(file)
    try:
        with zipfile.ZipFile(path) as archive:
            raw = archive.read(NPZ_MEMBERS[key])
        with np.load(io.BytesIO(raw), allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in ("adj_data", "adj_indices", "adj_indptr", "adj_shape")}
            arrays.update(
                {k: npz[k] for k in ("attr_data", "attr_indices", "attr_indptr", "attr_shape", "labels")}
            )
    except (KeyError, zipfile.BadZipFile, ValueError) as exc:
        raise DataError(
            f"{path}: not the expected zip holding {NPZ_MEMBERS[key]} ({exc})",
            hint="delete the file and fetch it again",
        ) from exc
    features = sp.csr_array(
        (arrays["attr_data"].astype(np.float32), arrays["attr_indices"], arrays["attr_indptr"]),
        shape=tuple(arrays["attr_shape"]),
    )
    x = features.toarray()
    x[x > 0] = 1.0
    adjacency = sp.csr_array(
        (arrays["adj_data"], arrays["adj_indices"], arrays["adj_indptr"]), shape=tuple(arrays["adj_shape"])
    ).tocoo()
    edges = np.stack([adjacency.row.astype(np.int64), adjacency.col.astype(np.int64)])
    y = arrays["labels"].astype(np.int64)
    return Graph(x=x, edge_index=_undirected_without_loops(edges), y=y, name=key)


def load_cora() -> Graph:
    """Cora with its public split (:func:`load_planetoid`)."""
    return load_planetoid("cora")


def load_citeseer() -> Graph:
    """CiteSeer with its public split (:func:`load_planetoid`)."""
    return load_planetoid("citeseer")


def load_amazon_photo() -> Graph:
    """Amazon Photo (:func:`load_npz`)."""
    return load_npz("amazon-photo")


def load_coauthor_cs() -> Graph:
    """Coauthor CS (:func:`load_npz`)."""
    return load_npz("coauthor-cs")


def load_graph(name: str) -> Graph:
    """Any graph of :data:`GRAPH_NAMES` by name: ``cora``, ``citeseer``, ``amazon-photo``, ``coauthor-cs``.

    Raises:
        UnknownNameError: another name; the hint lists the known ones.
    """
    key = _check_name(name, GRAPH_NAMES, "load_graph")
    return load_planetoid(key) if key in PLANETOID_NAMES else load_npz(key)


# ------------------------------------------------------------------- SBM


def _check_range(name: str, value: float, low: float, high: float, *, integer: bool = False) -> None:
    check = check_int if integer else check_number
    check(name, value, low=low, high=high, owner="sbm_graph")


def sbm_graph(
    n_nodes: int,
    n_classes: int = 5,
    avg_degree: float = 10.0,
    homophily: float = 0.8,
    n_features: int = 128,
    feature_density: float = 0.05,
    signal: float = 0.3,
    seed: int = 0,
) -> Graph:
    """A stochastic-block-model graph with sparse binary class-informative features.

    Labels: ``n_nodes`` nodes split as evenly as possible among ``n_classes``
    classes, in random order. Edges: ``round(n_nodes · avg_degree / 2)`` draws of a
    uniform source node and a target of the same class with probability
    ``homophily`` (else of a uniformly chosen other class), uniform within the
    class; self-loops dropped, both directions stored, duplicates merged (so the
    mean degree is just under ``avg_degree`` and the edge homophily ≈ ``homophily``).
    Features: node i has ``Binomial(n_features, feature_density)`` active
    features; each is, with probability ``signal``, drawn from the block of
    features owned by i's class (feature j belongs to class ``j mod n_classes``),
    else uniformly from all features.

    Everything is drawn in a few vectorised calls of ``numpy.random.default_rng(seed)``:
    100,000 nodes take well under a second.

    Raises:
        ConfigError: a parameter is out of range.
    """
    _check_range("n_nodes", n_nodes, 1, np.iinfo(np.int32).max, integer=True)
    _check_range("n_classes", n_classes, 1, n_nodes, integer=True)
    _check_range("avg_degree", avg_degree, 0.0, max(n_nodes - 1, 0))
    _check_range("homophily", homophily, 0.0, 1.0)
    _check_range("n_features", n_features, 1, 1_000_000, integer=True)
    _check_range("feature_density", feature_density, 0.0, 1.0)
    _check_range("signal", signal, 0.0, 1.0)
    _check_range("seed", seed, 0, np.iinfo(np.int64).max, integer=True)
    if homophily < 1.0 and n_classes == 1 and avg_degree > 0:
        raise ConfigError(
            f"sbm_graph: homophily={homophily} needs edges between classes but n_classes=1",
            hint="pass n_classes ≥ 2, or homophily=1.0",
        )
    rng = np.random.default_rng(seed)
    n, c = int(n_nodes), int(n_classes)
    y = rng.permutation(np.arange(n, dtype=np.int64) % c)

    # nodes grouped by class: members[start[k] : start[k] + size[k]] are class k
    members = np.argsort(y, kind="stable")
    size = np.bincount(y, minlength=c)
    start = np.concatenate([[0], np.cumsum(size)[:-1]])
    m = round(n * avg_degree / 2)
    source = rng.integers(n, size=m)
    same = rng.random(m) < homophily
    shift = rng.integers(1, c, size=m) if c > 1 else np.zeros(m, dtype=np.int64)
    target_class = np.where(same, y[source], (y[source] + shift) % c)
    offset = (rng.random(m) * size[target_class]).astype(np.int64)
    target = members[start[target_class] + offset]
    edges = _undirected_without_loops(np.stack([source, target]))

    active = rng.binomial(n_features, feature_density, size=n)
    owner = np.repeat(np.arange(n), active)
    informative = rng.random(owner.size) < signal
    # feature j belongs to class j mod c: class k owns k, k + c, k + 2c, ... (< n_features)
    owned = (n_features - y[owner] + c - 1) // c  # how many features class y[owner] owns
    in_block = y[owner] + c * (rng.random(owner.size) * np.maximum(owned, 1)).astype(np.int64)
    feature = np.where(informative & (owned > 0), in_block, rng.integers(n_features, size=owner.size))
    x = np.zeros((n, n_features), dtype=np.float32)
    x[owner, feature] = 1.0
    return Graph(x=x, edge_index=edges, y=y, name=f"sbm-{n}")
