"""Eq. 8 of the seed thesis: how likely a concept is, as CLIP's preference for a target prompt
over a neutral one (`a red ball` vs `a ball`; `a person kicking a ball` vs `a person and a
ball`).

    P(target) = e^{s·cos(target)} / (e^{s·cos(target)} + e^{s·cos(neutral)})

The thesis writes it with the bare cosine similarity (s = 1), which keeps every likelihood
within 0.5 ± 0.01 for CLIP's similarities; CLIP's own temperature (its `logit_scale`, 100 for
the released models) is what makes its softmaxes decisive, so that is the default here.

>>> round(target_vs_neutral(0.30, 0.25, scale=100.0), 3), target_vs_neutral(0.2, 0.2)
(0.993, 0.5)
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt


def target_vs_neutral(target: float, neutral: float, scale: float = 1.0) -> float:
    """Eq. 8 for one pair of cosine similarities (a two-way softmax: a sigmoid of the gap)."""
    return 1.0 / (1.0 + math.exp(-scale * (target - neutral)))


def target_vs_neutral_array(target: npt.ArrayLike, neutral: npt.ArrayLike,
                            scale: float = 1.0) -> npt.NDArray[np.float64]:
    """Eq. 8 element-wise, for a batch of similarities."""
    gap = scale * (np.asarray(target, dtype=np.float64) - np.asarray(neutral, dtype=np.float64))
    return np.asarray(1.0 / (1.0 + np.exp(-gap)))


def cosine(a: npt.ArrayLike, b: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """Row-wise cosine similarity of two batches of embeddings."""
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    norms = np.linalg.norm(x, axis=-1) * np.linalg.norm(y, axis=-1)
    return np.asarray((x * y).sum(axis=-1) / np.maximum(norms, 1e-12))
