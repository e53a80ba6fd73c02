"""A picture of what the scene says: each object's box, GQA class, confidence and likeliest
attributes drawn on the photo, at the photo's size, each label where no other label is and
inside the picture (`qlang.vision.placement`), a leader line to its box where it had to move
away from it."""

from __future__ import annotations

from pathlib import Path

from qlang.vision.perception import Image, Perception
from qlang.vision.placement import Placed, place

COLOURS = ("#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6", "#bfef45")
#: pixels around a label's text
PADDING = 2


def draw(image: Image, perception: Perception, path: str | Path,
         labelled: bool = True) -> list[Placed | None]:
    """Draw the perception on the image (the boxes alone, unless `labelled`), save it as a PNG;
    where each label went (None: no room left for it)."""
    from PIL import Image as PILImage
    from PIL import ImageDraw, ImageFont

    picture = PILImage.fromarray(image)
    pen = ImageDraw.Draw(picture)
    thickness = max(2, min(picture.size) // 150)
    font = ImageFont.load_default(size=max(11, min(picture.size) // 30))
    depth = font.getbbox("Ag")[3]  # the lowest ink of a line drawn from its top

    def measure(text: str) -> tuple[float, float]:
        return font.getlength(text) + 2 * PADDING, depth + 2 * PADDING

    boxes = [d.box for d in perception.objects]
    texts = [labels(d.name, d.confidence, d.attributes, d.text) for d in perception.objects] \
        if labelled else []
    placed = place(boxes[:len(texts)], texts, picture.width, picture.height, measure)
    for index, box in enumerate(boxes):
        colour = COLOURS[index % len(COLOURS)]
        pen.rectangle((box.x0, box.y0, box.x1, box.y1), outline=colour, width=thickness)
    for index, label in enumerate(placed):
        if label is not None and label.leader is not None:
            pen.line(label.leader, fill=COLOURS[index % len(COLOURS)], width=max(1, thickness // 2))
    for index, label in enumerate(placed):
        if label is not None:
            at = label.box
            pen.rectangle((at.x0, at.y0, at.x1 - 1, at.y1 - 1), fill=COLOURS[index % len(COLOURS)])
            pen.text((at.x0 + PADDING, at.y0 + PADDING), label.text, fill="white", font=font)
    picture.save(path, format="PNG")
    return placed


def labels(name: str, confidence: float | None, attributes: dict[str, float], said: str | None = None
           ) -> tuple[str, ...]:
    """An object's label, the fullest first: its class, the detector's confidence, its two
    likeliest attribute values; then less, for a crowded picture.  A region of text (`said`: what
    it reads) is named by what it says in every label, as its class alone tells nothing."""
    if said is not None:
        name = f"{name} \u201c{said}\u201d"
    best = sorted(attributes.items(), key=lambda kv: -kv[1])[:2]
    sure = "" if confidence is None else f"{name} {confidence:.2f}"
    full = sure + "".join(f" | {v} {p:.2f}" for v, p in best)
    return tuple(dict.fromkeys(text for text in (full, sure, name) if text))
