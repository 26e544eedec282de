"""Drawing helpers shared by the games' ``rgb_array`` renderers (Pillow)."""

from __future__ import annotations

import numpy as np
from PIL import Image, ImageDraw, ImageFont

#: seat colours, in the order every game uses for seats 0..4
SEAT_RGB = ((46, 139, 87), (65, 105, 225), (205, 55, 55), (230, 190, 30), (140, 80, 170))
BACKGROUND = (245, 240, 228)
GRID = (170, 165, 150)
INK = (30, 30, 30)


def canvas(width: int, height: int) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    img = Image.new("RGB", (int(width), int(height)), BACKGROUND)
    return img, ImageDraw.Draw(img)


def font(size: int | None = None) -> ImageFont.ImageFont:
    """Pillow's default font; with ``size``, its scalable version at that pixel size (readable at
    any scale; needs Pillow >= 10.1 with FreeType, else the fixed bitmap font)."""
    if size is None:
        return ImageFont.load_default()
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError, ImportError):  # old Pillow or no FreeType: the bitmap font
        return ImageFont.load_default()


def shade(rgb: tuple[int, int, int], f: float) -> tuple[int, int, int]:
    """Darken (f < 1) or lighten (f > 1) a colour."""
    if f <= 1:
        return tuple(int(c * f) for c in rgb)  # type: ignore[return-value]
    return tuple(int(c + (255 - c) * (f - 1)) for c in rgb)  # type: ignore[return-value]


def to_array(img: Image.Image) -> np.ndarray:
    return np.asarray(img, dtype=np.uint8).copy()
