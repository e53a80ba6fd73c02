"""A photo with words for the text tests: the committed sign and a perceiver that sees the
panel the words are painted on."""

from __future__ import annotations

from qlang.vision.perception import Detection, Image, Perception, SeenBox, Thresholds
from tests.conftest import FIXTURES

SIGN = str(FIXTURES / "text" / "sign.png")


class Panel:
    """A perceiver that sees one red panel where the sign's words are painted."""

    name = "panel"

    def perceive(self, image: Image, concepts: object, thresholds: Thresholds) -> Perception:
        return Perception(image.shape[1], image.shape[0], self.name,
                          [Detection("sign", 0.9, SeenBox(20, 20, 300, 90), "sign")])
