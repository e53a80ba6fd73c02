"""The step plain `ask` and the seek experiment's fixed pipeline both take before giving a
photo's best answer, so that they withhold alike: a "no" about what the perceiver cannot see
(`qlang.vision.recall`), a name that only repeats the class asked (`qlang.vision.repeats`), and
an answer less likely than seek's cut for its kind (`qlang.vision.margins`) are "cannot tell".
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from qlang.asp.outcome import Answer
from qlang.ir import Node
from qlang.vision.margins import unsure
from qlang.vision.recall import blind_no, why
from qlang.vision.repeats import repeats
from qlang.vision.sight import Sight


def withheld(sight: Sight, root: Node, answers: Sequence[Answer], base: int,
             threshold: float | None,
             presumed: Collection[str] = ()) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Why the best of a photo's `answers` to `root` is no answer: the words a "no" rests on
    that `sight` cannot deny at `threshold`, and the doubts to show (both empty: it stands);
    `base` is the likeliest scene's cost (`qlang.vision.margins.likeliest`).  A `presumed`
    class is taken to be an object seen (`qlang.vision.presume`): no "no" rests on it."""
    best = answers[0].value
    unseen = tuple(word for word in blind_no(sight, root, best, threshold) if word not in presumed)
    if unseen:
        return unseen, tuple(why(sight, word, threshold) for word in unseen)
    refused = repeats(root, best) or unsure(root, answers, base)
    return (), () if refused is None else (refused,)
