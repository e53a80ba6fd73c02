"""Reading a photo: any format Pillow reads, checked before it is decoded, as 8-bit RGB pixels.

A photo is handed to native decoders, so it must first be a regular file within the image
limit, read whole, and the width and height its header claims must decode within the pixel
limit (a PNG header of a few bytes may claim 60000×60000).  Pillow's own guard against that is off: it warns
at 89 megapixels and refuses at twice that with an exception of its own, where qlang's limit
names the setting that raises it.

The decoded picture is turned upright (its EXIF orientation) and made 8-bit RGB by what it
holds: 16-bit samples scaled to 8 bits (Pillow's conversion clips them at 255, which made a
16-bit greyscale photo white and its scene empty), transparency laid over white, CMYK, palettes
and the rest by Pillow's conversions.  A file Pillow cannot read is a located error.
"""

from __future__ import annotations

import io
import struct
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import numpy as np
from PIL import Image as PILImage
from PIL import ImageOps, UnidentifiedImageError

from qlang import limits
from qlang.errors import QlangError, error
from qlang.vision.perception import Image, VisionError

T = TypeVar("T")

PILImage.MAX_IMAGE_PIXELS = None  # qlang bounds the pixels itself (`limits.PIXELS`)

#: What Pillow holds a pixel in while decoding (RGB is padded to 4 bytes), as the limit counts.
BYTES_A_PIXEL = 4
#: Pillow's modes of 16-bit samples: 16-bit greyscale, and the 32-bit integers it may read them into.
SIXTEEN_BIT = frozenset({"I;16", "I;16L", "I;16B", "I;16N", "I"})
#: Rows of a transparent photo laid over white at once.
BAND = 256
#: What Pillow's decoders raise on a damaged file, besides OSError (its own UnidentifiedImageError).
DAMAGED = (OSError, ValueError, SyntaxError, EOFError, struct.error, IndexError, KeyError, TypeError,
           ZeroDivisionError)


def read(path: str | Path) -> Image:
    """The photo at `path` as height × width × 3 8-bit RGB pixels, upright."""
    return _opened(path, lambda picture: _rgb(str(path), _upright(picture)))


def check(path: str | Path) -> None:
    """Refuse, as `read` would, a photo that is no regular file within the image limit, in no
    format Pillow reads, or of more pixels than the limit, from its header alone (a body
    damaged past the header shows only when read)."""
    _opened(path, lambda picture: None)


def _opened(path: str | Path, use: Callable[[PILImage.Image], T]) -> T:
    """What `use` makes of the photo at `path`, opened by Pillow once it has been checked."""
    try:
        limits.check_file(path, limits.IMAGE)  # no FIFO or device is opened
        # Pillow reads from memory: a damaged PNG claiming a chunk of gigabytes would have it
        # allocate them from a file, where from memory it gets only what the file holds.
        # Closed when read, whatever happens: an error's traceback keeps this frame, and the
        # photo with it, until the error is handled (a busy server held dozens so).
        with io.BytesIO(limits.read(path, limits.IMAGE)) as data, warnings.catch_warnings(), \
                PILImage.open(data) as picture:
            warnings.simplefilter("ignore")  # Pillow's notes on odd metadata, printed as source lines
            _check_pixels(str(path), picture.size)
            return use(picture)
    except QlangError:
        raise
    except UnidentifiedImageError:  # its message names Pillow's in-memory file
        raise error(VisionError, "image", "cannot read the image (not in a format Pillow reads: PNG, "
                    "JPEG, ...)", path=path) from None
    except DAMAGED as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        raise error(VisionError, "image", f"cannot read the image ({reason})", path=path) from None


def _check_pixels(path: str, size: tuple[int, int]) -> None:
    width, height = size  # Pillow refuses a header of no pixels itself
    decoded = width * height * BYTES_A_PIXEL
    if decoded > limits.PIXELS.bytes:
        raise limits.PIXELS.exceeded(path, f"{decoded / limits.MB:,.0f} MB decoded ({width}×{height} pixels)")


def _upright(picture: PILImage.Image) -> PILImage.Image:
    """The picture turned as its EXIF orientation says, in place: Pillow's copy of an upright
    one was another 256 MB of a photo at the pixel limit."""
    ImageOps.exif_transpose(picture, in_place=True)
    return picture


def _rgb(path: str, picture: PILImage.Image) -> Image:
    if picture.mode in SIXTEEN_BIT:
        samples = np.asarray(picture).astype(np.int64)
        if samples.size and (samples.min() < 0 or samples.max() > 0xFFFF):
            raise error(VisionError, "image", f"the image's samples are not 16-bit (mode {picture.mode}, "
                        f"from {samples.min()} to {samples.max()})", path=path)
        grey = ((samples * 0xFF + 0x7FFF) // 0xFFFF).astype(np.uint8)
        return np.repeat(grey[..., None], 3, axis=2)
    if picture.mode == "F":
        raise error(VisionError, "image", "the image holds floating-point samples (mode F), which have "
                    "no agreed scale to 8 bits", path=path)
    if picture.has_transparency_data:
        return _over_white(np.asarray(picture if picture.mode == "RGBA" else picture.convert("RGBA")))
    return np.asarray(picture if picture.mode == "RGB" else picture.convert("RGB"), dtype=np.uint8)


def _over_white(rgba: np.ndarray) -> Image:
    """RGBA pixels laid over white, `BAND` rows at a time: Pillow's compositing made three more
    copies of a photo that may hold 256 MB (over white, alpha `a` of 255 leaves `a/255` of a
    sample and adds `(255 - a)/255` of white)."""
    rgb: Image = np.empty((*rgba.shape[:2], 3), dtype=np.uint8)
    for top in range(0, rgba.shape[0], BAND):
        band = rgba[top:top + BAND].astype(np.uint32)
        alpha = band[..., 3:]
        rgb[top:top + BAND] = (band[..., :3] * alpha + 255 * (255 - alpha) + 127) // 255
    return rgb
