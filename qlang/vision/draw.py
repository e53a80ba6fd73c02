"""A picture of what the scene says: each object's box, GQA class, confidence and likeliest
attributes drawn on the photo, at the photo's size."""

from __future__ import annotations

from pathlib import Path

from qlang.vision.perception import Image, Perception

_COLOURS = ("#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6", "#bfef45")


def draw(image: Image, perception: Perception, path: str | Path) -> None:
    from PIL import Image as PILImage
    from PIL import ImageDraw, ImageFont

    picture = PILImage.fromarray(image)
    pen = ImageDraw.Draw(picture)
    thickness = max(2, min(picture.size) // 150)
    font = ImageFont.load_default(size=max(11, min(picture.size) // 30))
    for index, d in enumerate(perception.objects):
        colour = _COLOURS[index % len(_COLOURS)]
        box = (d.box.x0, d.box.y0, d.box.x1, d.box.y1)
        pen.rectangle(box, outline=colour, width=thickness)
        best = sorted(d.attributes.items(), key=lambda kv: -kv[1])[:2]
        text = f"{d.name} {d.confidence:.2f}" + "".join(f" | {v} {p:.2f}" for v, p in best)
        left, top, right, bottom = pen.textbbox((0, 0), text, font=font)
        y = d.box.y0 - (bottom - top) - 4 if d.box.y0 >= bottom - top + 4 else d.box.y0
        pen.rectangle((d.box.x0, y, d.box.x0 + right - left + 4, y + bottom - top + 4), fill=colour)
        pen.text((d.box.x0 + 2, y + 2 - top), text, fill="white", font=font)
    picture.save(path, format="PNG")
