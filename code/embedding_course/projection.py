"""Seeing high-dimensional vectors: principal component analysis (PCA) to 2-D or 3-D.

PCA finds the orthonormal directions along which a cloud of points spreads the most.
Centre the points (subtract their mean), take the singular value decomposition
X = U S V^T; the rows of V^T are the directions ("components"), and S^2 / (N - 1) is the
variance of the points along each. Projecting onto the first two or three components
keeps as much of the spread as any flat view can -- and the explained-variance ratio says
how much that is. What is left out can be most of it: two points that look close in the
picture may be far apart in the full space.

The sign of each component is arbitrary (v and -v describe the same axis); we fix it so
that the largest entry of each component is positive, so the same data always give the
same picture.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from embedding_course import checks


@dataclass(frozen=True)
class PCA:
    """A fitted PCA: project new points with :meth:`transform`.

    Attributes:
        mean: the mean of the fitted points, shape (d,).
        components: orthonormal directions, one per row, shape (k, d).
        explained_variance: the variance of the points along each component, shape (k,).
        explained_variance_ratio: that variance as a fraction of the total variance, shape (k,);
            each is in [0, 1] and together they sum to at most 1.
    """

    mean: np.ndarray
    components: np.ndarray
    explained_variance: np.ndarray
    explained_variance_ratio: np.ndarray

    @property
    def n_components(self) -> int:
        return int(self.components.shape[0])

    def transform(self, points) -> np.ndarray:
        """The coordinates of ``points`` (N, d) along the components, shape (N, k)."""
        points = checks.vectors(points, "points")
        if points.shape[1] != self.mean.shape[0]:
            raise ValueError(f"points have {points.shape[1]} dimensions but the PCA was fitted on "
                             f"{self.mean.shape[0]}")
        return (points.astype(np.float64) - self.mean) @ self.components.T  # (N, k)

    def axis_title(self, index: int) -> str:
        """A label such as ``"PC1 (18.2% of variance)"`` for component ``index`` (0-based)."""
        index = checks.index(index, "index", self.n_components, of="the components")
        return f"PC{index + 1} ({100 * self.explained_variance_ratio[index]:.1f}% of variance)"


def fit_pca(points, n_components: int = 2) -> PCA:
    """Fit PCA to ``points`` by a singular value decomposition (NumPy, float64).

    Args:
        points: array of shape (N, d) with N >= 2.
        n_components: how many directions to keep, 1 <= k <= min(N, d).

    Returns:
        A :class:`PCA`. Signs are fixed: the largest-magnitude entry of each component is positive.
    """
    points = checks.vectors(points, "points").astype(np.float64)  # (N, d)
    count, dim = points.shape
    if count < 2:
        raise ValueError(f"PCA needs at least 2 points, got {count}")
    n_components = checks.whole(n_components, "n_components")
    if not n_components <= min(count, dim):
        raise ValueError(f"n_components must be in 1..{min(count, dim)} for {count} points of "
                         f"dimension {dim}, got {n_components}")
    mean = points.mean(axis=0)  # (d,)
    centred = points - mean  # (N, d)
    _, singular_values, directions = np.linalg.svd(centred, full_matrices=False)  # directions: (r, d)
    variances = singular_values ** 2 / (count - 1)  # (r,), largest first
    total = float(variances.sum())
    if total <= 0:
        raise ValueError("all points are identical; there is no spread for PCA to find")
    components = directions[:n_components].copy()  # (k, d)
    # Deterministic signs: flip each component so its largest-magnitude entry is positive.
    largest = np.argmax(np.abs(components), axis=1)
    signs = np.sign(components[np.arange(n_components), largest])
    components *= signs[:, None]
    kept = variances[:n_components]
    return PCA(mean=mean, components=components, explained_variance=kept,
               explained_variance_ratio=kept / total)


def project(points, n_components: int = 2) -> tuple[np.ndarray, PCA]:
    """Fit PCA on ``points`` and return their coordinates (N, k) with the fitted PCA."""
    pca = fit_pca(points, n_components)
    return pca.transform(points), pca


# ---------------------------------------------------------------------- figures


def snapshot_coordinates(snapshots: Sequence, basis: str = "final") -> tuple[list[np.ndarray], PCA]:
    """Project every snapshot of a training run with one fixed 2-D PCA basis.

    A basis fitted afresh at each step could flip or rotate between steps and make the
    points jump. With one basis (fitted on the final snapshot, or on all snapshots
    together) the points move only because training moved them.

    Args:
        snapshots: a list of arrays (N, d), the same words at successive steps.
        basis: ``"final"`` (fit on the last snapshot) or ``"all"`` (fit on all of them stacked).

    Returns:
        ``(coords, pca)``: one (N, 2) array per snapshot, and the fitted PCA.
    """
    if len(snapshots) == 0:
        raise ValueError("snapshots is empty; give at least one (N, d) array")
    arrays = [checks.vectors(s, f"snapshot {i}") for i, s in enumerate(snapshots)]
    if len({a.shape for a in arrays}) != 1:
        raise ValueError(f"every snapshot needs the same shape, got {sorted({a.shape for a in arrays})}")
    if basis == "final":
        pca = fit_pca(arrays[-1], 2)
    elif basis == "all":
        pca = fit_pca(np.concatenate(arrays), 2)
    else:
        raise ValueError(f"basis must be 'final' or 'all', got {basis!r}")
    return [pca.transform(a) for a in arrays], pca


