"""paperzoo plugin ``graph``: the manifest.

The shared package of the graph-learning plugins (no paper of its own): four node
classification datasets and the GRACE baseline. Everything is named here and
pointed at by a package-relative ``".module:attr"`` target, imported on first use:
listing plugins never imports numpy, scipy or torch. The data files are declared
here (real URLs, sha256, sizes) so that ``paperzoo data fetch|verify`` need no
heavy import.
"""

from __future__ import annotations

from paperzoo import DataFile, Plugin

PLANETOID_URL = "https://github.com/kimiyoung/planetoid/raw/master/data/"
"""The raw Planetoid files, as PyG downloads them (unchanged since commit af6abf4, 2016)."""

_PLANETOID_SUMS: dict[str, dict[str, tuple[str, int]]] = {
    "cora": {
        "x": ("23cfa55d91c6f624233f5eb7b6e3f141f1bd2b2ae39608a63cf5d084bb27baab", 22_119),
        "y": ("94465c14eb53e04ca262198dcbb2521ee8af60fb3f3d546cd6ca24a511b0e7d1", 4_054),
        "tx": ("b9afbaa4a400df991f6f02ef677e1e44da55ffc04801fd02f9e673987829226a", 148_025),
        "ty": ("41f5ac76596a1699cc33f53084a2419e92961c42bb75f36fc38e616d348532ad", 28_135),
        "allx": ("9419ba2f26f5c35243db64aba110e0f35a04851609e0dc5433450676ca6b8543", 257_305),
        "ally": ("2b998f5cc7fedc86e7f97ca2498f47a1ffc1462c29e2d578b23bf3f62b6e7d71", 47_959),
        "graph": ("58f13302f39dde8852dad6fe6d15b89b077b6d7f837626bce671ef80344b383d", 59_847),
        "test.index": ("297ce89af2b51a6a194181c7dbe1796c6a1cf9cd9349a88383b1b1e227867875", 5_000),
    },
    "citeseer": {
        "x": ("d20de19150741e555de0ed037195630fc194114ebc7fd72ced62810148aa22f6", 31_087),
        "y": ("8ba87e515d8e3ee3cf52f6d2c5b86aa73f11ecad825a808455209ec26cd54924", 3_014),
        "tx": ("539a8906a2da97628d212f2fdd668c109a8b3f0d36574b59e5d3fd5b5303da21", 260_321),
        "ty": ("55e5bd1ba1e733a04598753ad1a8d57957f4b8f89e74519f41f4f4938767e4ce", 24_135),
        "allx": ("2ac30345d95c9ec933a817ee0bdd6a5f077f8c184a20e696910192d534414668", 595_021),
        "ally": ("f704b2d986dde6c2669934de1f3ae5696a6cf9455c0f6b2646a2d135ea0a1c95", 55_623),
        "graph": ("d79a4ef9d3e7169aee8946145f6b7306e35bc79bffad26346cfb94e10e9912a7", 61_987),
        "test.index": ("2af990671580b6b2df5d158d1038f8292e30c9cd821b5453f399659b25b723d4", 5_000),
    },
}

PLANETOID_FILES: dict[str, dict[str, DataFile]] = {
    name: {
        part: DataFile(
            path=f"planetoid/ind.{name}.{part}",
            url=f"{PLANETOID_URL}ind.{name}.{part}",
            sha256=sha,
            size=size,
        )
        for part, (sha, size) in sums.items()
    }
    for name, sums in _PLANETOID_SUMS.items()
}
"""``PLANETOID_FILES[name][part]``: the eight ``ind.<name>.<part>`` files of Cora and CiteSeer."""

GNN_DATASETS_URL = "https://github.com/CrawlScript/gnn_datasets/raw/master/"
"""tf_geometric's zipped copies of Shchur et al.'s npz files (checked at commit 482d715)."""

NPZ_FILES: dict[str, DataFile] = {
    "amazon-photo": DataFile(
        path="gnn-benchmark/amazon-photo.zip",
        url=f"{GNN_DATASETS_URL}AmazonElectronics/amazon-photo.zip",
        sha256="9a1a31380c0480c87d4174f3e76e51956720da6e01ad5332b437e3dc99f11724",
        size=1_778_261,
    ),
    "coauthor-cs": DataFile(
        path="gnn-benchmark/coauthor-cs.zip",
        url=f"{GNN_DATASETS_URL}Coauthor/coauthor-cs.zip",
        sha256="a69e43a2a3418c44e7660f1405c4298ac270ac57884a4318d1deb8861c6ec935",
        size=2_812_812,
    ),
}
"""Zip archives, each holding one npz of Shchur et al. (2018), read without extraction."""

NPZ_MEMBERS = {"amazon-photo": "amazon_electronics_photo.npz", "coauthor-cs": "ms_academic_cs.npz"}
"""The npz inside each archive of :data:`NPZ_FILES`."""

_PLANETOID_CITATION = (
    "Sen et al., Collective Classification in Network Data, AI Magazine 2008; split: Yang, Cohen & "
    "Salakhutdinov, Revisiting Semi-Supervised Learning with Graph Embeddings, ICML 2016."
)
_SHCHUR_CITATION = "Shchur et al., Pitfalls of Graph Neural Network Evaluation, NeurIPS R2L workshop 2018."

DATASETS = (
    (
        "cora",
        "load_cora",
        "Cora citations: 2,708 papers, 10,556 directed edges, 1,433 binary words, 7 classes, public split.",
        tuple(PLANETOID_FILES["cora"].values()),
        "https://github.com/kimiyoung/planetoid",
        "MIT (the Planetoid repository); data from LINQS, research use",
        _PLANETOID_CITATION,
    ),
    (
        "citeseer",
        "load_citeseer",
        "CiteSeer citations: 3,327 papers (15 unlabelled), 9,104 edges, 3,703 words, 6 classes, public split.",
        tuple(PLANETOID_FILES["citeseer"].values()),
        "https://github.com/kimiyoung/planetoid",
        "MIT (the Planetoid repository); data from LINQS, research use",
        _PLANETOID_CITATION,
    ),
    (
        "amazon-photo",
        "load_amazon_photo",
        "Amazon Photo co-purchases: 7,650 products, 238,162 edges, 745 binary words, 8 classes.",
        (NPZ_FILES["amazon-photo"],),
        "https://github.com/shchur/gnn-benchmark",
        "MIT (gnn-benchmark); reviews from McAuley et al., SIGIR 2015",
        _SHCHUR_CITATION,
    ),
    (
        "coauthor-cs",
        "load_coauthor_cs",
        "Coauthor CS: 18,333 authors, 163,788 edges, 6,805 binary keywords, 15 fields of study.",
        (NPZ_FILES["coauthor-cs"],),
        "https://github.com/shchur/gnn-benchmark",
        "MIT (gnn-benchmark); Microsoft Academic Graph, KDD Cup 2016",
        _SHCHUR_CITATION,
    ),
)


plugin = Plugin(
    "graph",
    framework="torch",
    url="https://github.com/paperzoo/paperzoo/tree/main/packages/graph",
)

plugin.estimator(
    "grace",
    ".grace:GRACE",
    "GRACE (Zhu et al. 2020): two augmented views, GCN encoder, symmetric InfoNCE; node embeddings.",
)

for name, loader, summary, files, homepage, licence, citation in DATASETS:
    plugin.dataset(
        name,
        f".datasets:{loader}",
        summary,
        files=files,
        homepage=homepage,
        license=licence,
        citation=citation,
    )
