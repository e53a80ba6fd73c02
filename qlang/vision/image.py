"""Reading a photo: any format Pillow reads, as RGB pixels; an unreadable file is a located error."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from qlang.errors import error
from qlang.vision.perception import Image, VisionError


def read(path: str | Path) -> Image:
    from PIL import Image as PILImage
    from PIL import UnidentifiedImageError

    try:
        with PILImage.open(path) as picture:
            return np.asarray(picture.convert("RGB"), dtype=np.uint8)
    except (OSError, UnidentifiedImageError, ValueError) as exc:
        raise error(VisionError, "image", f"{path}: cannot read the image ({exc})") from None
