"""HCAS: hierarchical-clustering feature selection of Gigli, Lucchese, Nardini, Perego, "Fast
feature selection for learning to rank", ICTIR 2016 (docs/methods.md, section 'NGAS, XGAS, HCAS').

With relevance R and similarity S (``ltrfs.selection.redundancy``), the searched features are
clustered on the dissimilarity D = 1 - S by Ward's agglomerative method in the form of R's
``hclust(method = "ward.D")`` (the authors' code, andrgig/FSA, calls ``hclust(..., "ward")``,
which R reads as "ward.D"): repeatedly merge the two clusters i, j of least dissimilarity and set,
for every other cluster k (n_x the size of cluster x),

    D(k, i+j) = ((n_i + n_k) D(k, i) + (n_j + n_k) D(k, j) - n_k D(i, j)) / (n_i + n_j + n_k)

the Lance-Williams update applied to D itself ("ward.D2", SciPy's ``method="ward"``, applies it to
D squared). The tree is cut into k clusters (R's ``cutree``: undo the last k - 1 merges) and the
most relevant feature of each cluster (ties: lowest id) is selected.

SciPy computes ward.D when given sqrt(D): its update squares the input, applies the formula above
and stores the square root, so the merges are those of ward.D on D and the heights are their
square roots (``ward_d_linkage`` squares them back; O(n^2) by nearest-neighbour chains). When
two pairs of clusters are exactly equally dissimilar, SciPy and R may merge them in another
order (neither documents its choice); the cuts differ only then.

Subsets of one tree are nested: undoing a merge replaces the cluster's best feature by the best
features of its two halves, one of which it is, so the k+1 subset is the k subset plus the best
feature of the half that did not hold it. ``ranking_`` is this split order (root first), so that
``support(k)`` = ``ranking_[:k]`` is exactly the k-cluster subset for every k.
"""
from __future__ import annotations

import numpy as np

from ltrfs.docstrings import fill_doc
from ltrfs.selection.redundancy import DOC, RelevanceRedundancy, start_search


def ward_d_linkage(distance) -> np.ndarray:
    """Ward's agglomerative clustering with R's "ward.D" update on a dissimilarity matrix.

    Parameters
    ----------
    distance : array-like, shape (n, n), n >= 2
        Symmetric, non-negative dissimilarities (the diagonal is ignored).

    Returns
    -------
    float64 (n - 1, 4)
        SciPy's linkage format: row t merges clusters ``Z[t, 0]`` and ``Z[t, 1]`` (ids < n are the
        items, n + s the cluster made at row s) at height ``Z[t, 2]`` (the ward.D dissimilarity of
        the two) into a cluster of ``Z[t, 3]`` items.

    Examples
    --------
    >>> import numpy as np
    >>> D = np.array([[0.0, 0.2, 0.9], [0.2, 0.0, 0.6], [0.9, 0.6, 0.0]])
    >>> ward_d_linkage(D).round(4).tolist()      # (2 * 0.9 + 2 * 0.6 - 0.2) / 3
    [[0.0, 1.0, 0.2, 2.0], [2.0, 3.0, 0.9333, 3.0]]
    """
    from scipy.cluster.hierarchy import linkage  # SciPy's clustering: only HCAS needs it
    from scipy.spatial.distance import squareform

    D = np.asarray(distance, dtype=np.float64)
    if D.ndim != 2 or D.shape[0] != D.shape[1] or D.shape[0] < 2:
        raise ValueError(f"distance must be a square matrix of at least 2 items; got shape {D.shape}")
    if not np.all(np.isfinite(D)) or D.min() < 0:
        raise ValueError("distance must hold finite, non-negative values")
    D = np.maximum(D, D.T)
    np.fill_diagonal(D, 0.0)
    Z = linkage(np.sqrt(squareform(D, checks=False)), method="ward")
    Z[:, 2] = Z[:, 2] ** 2
    return Z


def cluster_labels(Z, k: int) -> np.ndarray:
    """The k-cluster cut of a linkage: R's ``cutree(k)``, the first n - k merges replayed.

    Parameters
    ----------
    Z : array-like, shape (n - 1, 4)
        A linkage (``ward_d_linkage``).
    k : int in 1..n

    Returns
    -------
    int64 (n,)
        Cluster of every item, 0..k-1, numbered in the order of their lowest item.

    Examples
    --------
    >>> import numpy as np
    >>> Z = np.array([[0.0, 1.0, 0.2, 2.0], [2.0, 3.0, 0.9, 3.0]])
    >>> cluster_labels(Z, 2).tolist()
    [0, 0, 1]
    """
    Z = np.asarray(Z)
    n = len(Z) + 1
    if not 1 <= k <= n:
        raise ValueError(f"k={k} is outside 1..{n} (the number of clustered features)")
    parent = np.arange(2 * n - 1)
    for t in range(n - k):
        parent[int(Z[t, 0])] = parent[int(Z[t, 1])] = n + t
    root = parent.copy()
    for node in range(2 * n - 2, -1, -1):   # parents have higher ids: resolve from the top
        root[node] = root[parent[node]] if parent[node] != node else node
    _, labels = np.unique(root[:n], return_inverse=True)
    first = np.full(labels.max() + 1, n)
    np.minimum.at(first, labels, np.arange(n))
    return np.argsort(np.argsort(first))[labels].astype(np.int64)


def hcas_order(relevance, similarity) -> tuple[np.ndarray, np.ndarray]:
    """The HCAS split order of n features and the ward.D tree behind it (module docstring).

    Parameters
    ----------
    relevance : array-like, shape (n,)
        R.
    similarity : array-like, shape (n, n)
        S (symmetric, in [0, 1]); D = 1 - S.

    Returns
    -------
    order : int64 (n,)
        Indices into ``relevance``; ``order[:k]`` holds the most relevant feature of each of the
        k clusters of the cut.
    linkage : float64 (n - 1, 4)
        ``ward_d_linkage(1 - S)`` (empty for n < 2).

    Examples
    --------
    >>> import numpy as np
    >>> S = np.array([[1.0, 0.8, 0.1], [0.8, 1.0, 0.4], [0.1, 0.4, 1.0]])
    >>> hcas_order([0.3, 0.5, 0.1], S)[0].tolist()   # clusters {0, 1}, {2}: best 1, then 2
    [1, 2, 0]
    """
    r, s, _, _ = start_search(relevance, similarity)
    n = len(r)
    if n < 2:
        return np.arange(n, dtype=np.int64), np.zeros((0, 4))
    Z = ward_d_linkage(np.clip(1.0 - s, 0.0, None))
    best = np.empty(2 * n - 1, dtype=np.int64)   # the most relevant item of every cluster
    best[:n] = np.arange(n)
    for t, (a, b) in enumerate(Z[:, :2].astype(np.int64)):
        fa, fb = best[a], best[b]
        best[n + t] = fa if (r[fa], -fa) > (r[fb], -fb) else fb
    order = [int(best[2 * n - 2])]
    for t in range(n - 2, -1, -1):          # undo the merges from the last one
        a, b = Z[t, :2].astype(np.int64)
        order.append(int(best[b] if best[a] == best[n + t] else best[a]))
    return np.asarray(order, dtype=np.int64), Z


@fill_doc(**DOC)
class HCAS(RelevanceRedundancy):
    """HCAS: Ward (ward.D) clusters of 1 - S, the most relevant feature of each cluster.

    Parameters
    ----------
    %(rr_parameters)s

    Attributes
    ----------
    %(rr_attributes)s
    linkage_ : float64 (n - 1, 4)
        The ward.D tree of the searched features (``ward_d_linkage``; ids index ``searched_``).

    %(gigli_references)s
    Ward's update as R's ``hclust(method = "ward.D")`` (Murtagh and Legendre, J. Classification
    31, 2014).

    Examples
    --------
    >>> from ltrfs.selection.hcas import HCAS
    >>> from ltrfs.examples import example_queries
    >>> X, y, qid = example_queries()    # 10 queries x 12 documents, 5 features
    >>> sel = HCAS().fit(X, y, qid)
    >>> len(sel.clusters(2))
    2
    >>> sorted(sel.support(2).tolist()) == sorted(int(c[sel.scores_[c].argmax()]) for c in sel.clusters(2))
    True
    """

    name = "hcas"
    #: the k-cluster subsets are nested (module docstring), so ``ranking_[:k]`` is the k-subset
    prefix_consistent = True

    def _fit(self, X, y, query_ptr, X_val, y_val, qid_val, precomputed):
        self.linkage_ = np.zeros((0, 4))  # no tree when no feature is searched
        super()._fit(X, y, query_ptr, X_val, y_val, qid_val, precomputed)

    def _search(self, relevance, similarity):
        order, self.linkage_ = hcas_order(relevance, similarity)
        return order

    def clusters(self, k: int) -> list[np.ndarray]:
        """The k clusters of the searched features (R's ``cutree(k)`` of ``linkage_``).

        Parameters
        ----------
        k : int
            1..n, n the number of searched features.

        Returns
        -------
        list of int64 arrays
            0-based feature ids of each cluster, ascending, the clusters in order of their
            lowest id.
        """
        self._check_fitted("linkage_")
        n = len(self.searched_)
        if n < 2:
            if k != n:
                raise ValueError(f"k={k} is outside 1..{n} (the number of clustered features)")
            return [self.searched_.copy()] if n else []
        labels = cluster_labels(self.linkage_, k)
        return [self.searched_[labels == c] for c in range(k)]
