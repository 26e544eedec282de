"""Drawing helpers shared by the games' ``rgb_array`` renderers (Pillow)."""

from __future__ import annotations

import functools

import numpy as np
from PIL import Image, ImageDraw, ImageFont

#: seat colours, in the order every game uses for seats 0..4 (green, blue, red, yellow, purple)
SEAT_RGB = ((46, 139, 87), (65, 105, 225), (205, 55, 55), (230, 190, 30), (140, 80, 170))
BACKGROUND = (245, 240, 228)
GRID = (170, 165, 150)
INK = (30, 30, 30)
MUTED = (105, 100, 90)  # secondary text


def canvas(width: int, height: int) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    img = Image.new("RGB", (int(width), int(height)), BACKGROUND)
    return img, ImageDraw.Draw(img)


def font(size: int | None = None) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's default font; with ``size``, the bundled scalable one at that many pixels."""
    return ImageFont.load_default() if size is None else sized_font(int(size))


def shade(rgb: tuple[int, int, int], f: float) -> tuple[int, int, int]:
    """Darken (f < 1) or lighten (f > 1) a colour."""
    if f <= 1:
        return tuple(int(c * f) for c in rgb)  # type: ignore[return-value]
    return tuple(int(c + (255 - c) * (f - 1)) for c in rgb)  # type: ignore[return-value]


def to_array(img: Image.Image) -> np.ndarray:
    return np.asarray(img, dtype=np.uint8).copy()


# ---- text and marks ----------------------------------------------------------------------------
@functools.lru_cache(maxsize=16)
def sized_font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's bundled scalable font (Aileron) at ``size`` pixels (Pillow >= 10.1 with FreeType);
    the same on every machine, so pictures do not depend on installed fonts."""
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # pragma: no cover - Pillow < 10.1: the fixed bitmap font
        return ImageFont.load_default()


@functools.lru_cache(maxsize=256)
def _has_glyph(fnt, ch: str) -> bool:
    missing = fnt.getmask("\u0378")  # an unassigned code point draws the font's "missing" box
    mask = fnt.getmask(ch)
    return mask.size != missing.size or bytes(mask) != bytes(missing)


#: letters the bundled font lacks, drawn as a base letter plus a mark
_COMPOSED = {"ç": "c", "Ç": "C"}


def text_width(s: str, fnt) -> float:
    return float(fnt.getlength("".join(_COMPOSED.get(ch, ch) if not _has_glyph(fnt, ch) else ch for ch in s)))


def fit(s: str, fnt, width: float) -> str:
    """``s``, cut with an ellipsis where it would be wider than ``width`` pixels (pictures keep one
    size per player count, so a long line is shortened rather than widening the picture)."""
    if text_width(s, fnt) <= width:
        return s
    lo, hi = 0, len(s)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if text_width(s[:mid] + "...", fnt) <= width:
            lo = mid
        else:
            hi = mid - 1
    return s[:lo] + "..."


def text(draw: ImageDraw.ImageDraw, xy: tuple[float, float], s: str, fnt, fill=INK) -> float:
    """Draw ``s`` with its top-left at ``xy``; letters the font lacks ("ç") are composed from a base
    letter and a drawn cedilla. Returns the x after the text."""
    x, y = xy
    size = getattr(fnt, "size", 11)
    ascent = fnt.getmetrics()[0] if hasattr(fnt, "getmetrics") else size
    run = ""
    for ch in s + "\0":
        if ch != "\0" and (ch not in _COMPOSED or _has_glyph(fnt, ch)):
            run += ch
            continue
        if run:
            draw.text((x, y), run, fill=fill, font=fnt)
            x += fnt.getlength(run)
            run = ""
        if ch == "\0":
            break
        base = _COMPOSED[ch]
        draw.text((x, y), base, fill=fill, font=fnt)
        w = fnt.getlength(base)
        cx, by = x + w / 2, y + ascent
        stroke = max(1, round(size / 12))
        draw.line([(cx, by - 1), (cx, by + size * 0.10)], fill=fill, width=stroke)
        draw.line([(cx, by + size * 0.10), (cx + size * 0.10, by + size * 0.17)], fill=fill, width=stroke)
        draw.line([(cx + size * 0.10, by + size * 0.17), (cx - size * 0.10, by + size * 0.27)], fill=fill,
                  width=stroke)
        x += w
    return x


def marker(draw: ImageDraw.ImageDraw, x: float, y: float, h: float, fill=INK) -> None:
    """A right-pointing triangle of height ``h`` with its left edge at ``x`` and its top at ``y``."""
    draw.polygon([(x, y), (x + h * 0.8, y + h / 2), (x, y + h)], fill=fill)


def mix(a: tuple[int, int, int], b: tuple[int, int, int], t: float) -> tuple[int, int, int]:
    """``a`` blended towards ``b`` by ``t`` (0..1)."""
    return tuple(int(round(x + (y - x) * t)) for x, y in zip(a, b, strict=True))  # type: ignore[return-value]
