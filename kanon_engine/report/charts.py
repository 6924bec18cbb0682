"""The report's chart, drawn in pure Python as plain SVG (rect, line, text: what Qt's SVG renderer
draws for the PDF; no scripts, nothing fetched): records per group-size band, in the original data and
in the release, from their facts (:mod:`kanon_engine.report.facts`: suppressed records are in no group,
so no band)."""

from __future__ import annotations

import html
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from kanon_engine.i18n import _, formats


def _size_bands(k: int) -> list[tuple[int, int | None]]:
    """Class-size bands ``[low, high]`` for the chart, with one edge at ``k``."""
    edges = sorted({1, 2, 3, 5, 10, 20, 50, 100, 1000, max(int(k), 2)})
    return [(lo, hi - 1) for lo, hi in zip(edges[:-1], edges[1:])] + [(edges[-1], None)]


def class_size_bands(before: np.ndarray, after: np.ndarray, k: int) -> list[dict[str, Any]]:
    """Records per class-size band, before and after (the data of the class-size chart)."""
    out = []
    for lo, hi in _size_bands(k):
        top = np.inf if hi is None else hi
        label = f"{lo}" if hi == lo else (f"{lo}+" if hi is None else f"{lo}–{hi}")
        b = int(before[(before >= lo) & (before <= top)].sum())
        a = int(after[(after >= lo) & (after <= top)].sum())
        out.append({"label": label, "low": lo, "high": hi, "before": b, "after": a})
    return out


def sizes_of(histogram: Sequence[Sequence[int]] | None) -> np.ndarray:
    """Every group's size from a facts histogram ``[[size, groups], ...]``."""
    pairs = np.asarray(histogram or [], dtype=np.int64).reshape(-1, 2)
    return np.repeat(pairs[:, 0], pairs[:, 1])


def class_size_svg(bands: Sequence[Mapping[str, Any]], k: int, width: int = 640, height: int = 260) -> str:
    """Grouped bar chart (records per class-size band, before vs after) as an SVG string.

    Plain SVG 1.1 / Tiny elements only (rect, line, text), so Qt's SVG renderer draws it for the PDF.
    """
    if k > 1:
        caption = _("group size (records sharing their quasi-identifier values); red: below k = {k}", k=k)
    else:  # a run that asks for no group size (a risk-based model alone) marks no band as too small
        caption = _("group size (records sharing their quasi-identifier values)")
    left, right, top = 64, 16, 34
    pw = width - left - right
    lines = _caption_lines(caption, pw)
    ph = height - top - (34 + LINE_PX * len(lines))  # a caption on two lines takes room from the bars
    peak = max([1] + [max(int(b["before"]), int(b["after"])) for b in bands])
    step = _nice_step(peak / 4)
    ticks = math.ceil(peak / step)
    scale_top = step * ticks
    n = max(len(bands), 1)
    slot = pw / n
    bar = slot * 0.36
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="DejaVu Sans, Arial, sans-serif" font-size="11">',
        f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>',
    ]
    for i in range(ticks + 1):
        value = step * i
        y = top + ph - ph * i / ticks
        parts.append(
            f'<line x1="{left}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" stroke="#e2e8f0" '
            'stroke-width="1"/>'
        )
        parts.append(
            f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end" fill="#4a5568">'
            f"{html.escape(formats.count(value))}</text>"
        )
    for i, b in enumerate(bands):
        x0 = left + slot * i + slot * 0.14
        for j, (key, colour) in enumerate((("before", "#a0aec0"), ("after", "#2b6cb0"))):
            v = int(b[key])
            h = ph * v / scale_top
            x = x0 + j * bar
            parts.append(
                f'<rect x="{x:.1f}" y="{top + ph - h:.1f}" width="{bar:.1f}" height="{h:.1f}" '
                f'fill="{colour}"/>'
            )
        low_band = b["high"] is not None and b["high"] < k
        parts.append(
            f'<text x="{left + slot * (i + 0.5):.1f}" y="{top + ph + 16}" text-anchor="middle" '
            f'fill="{"#c53030" if low_band else "#2d3748"}">{html.escape(str(b["label"]))}</text>'
        )
    parts.append(
        f'<line x1="{left}" y1="{top + ph}" x2="{left + pw}" y2="{top + ph}" stroke="#4a5568" '
        'stroke-width="1"/>'
    )
    for i, line in enumerate(lines):
        parts.append(
            f'<text x="{left + pw / 2:.1f}" y="{top + ph + 26 + LINE_PX * (i + 1)}" text-anchor="middle" '
            f'fill="#2d3748">{html.escape(line)}</text>'
        )
    parts.append(
        f'<text x="14" y="{top + ph / 2:.1f}" text-anchor="middle" fill="#2d3748" '
        f'transform="rotate(-90 14 {top + ph / 2:.1f})">{html.escape(_("records"))}</text>'
    )
    parts.append(_legend(left + pw, [(_("original data"), "#a0aec0"), (_("release"), "#2b6cb0")]))
    parts.append("</svg>")
    return "".join(parts)


#: Width of a character of the chart's 11 px text, about (DejaVu Sans is wide); and a line's height.
CHARACTER_PX = 6.6
LINE_PX = 14


def _caption_lines(text: str, width: float) -> list[str]:
    """The caption on one line, or on two (cut at the space nearest its middle) when one would run past
    the chart's edges: a longer translation is never cut off."""
    if len(text) * CHARACTER_PX <= width or " " not in text:
        return [text]
    middle = len(text) / 2
    cut = min((i for i, c in enumerate(text) if c == " "), key=lambda i: abs(i - middle))
    return [text[:cut], text[cut + 1 :]]


def _legend(right: float, entries: Sequence[tuple[str, str]]) -> str:
    """Coloured boxes with their words, ending at ``right``: spaced by the words' length (about 6.5 px a
    character at 11 px), so a longer translation never runs into the next entry."""
    widths = [17 + 6.5 * len(text) + 14 for text, _colour in entries]
    x = right - sum(widths)
    out = []
    for (text, colour), w in zip(entries, widths):
        out.append(
            f'<rect x="{x:.1f}" y="10" width="12" height="12" fill="{colour}"/>'
            f'<text x="{x + 17:.1f}" y="20" fill="#2d3748">{html.escape(text)}</text>'
        )
        x += w
    return "".join(out)


def _nice_step(raw: float) -> float:
    """The smallest whole 1/2/5 x 10^n step at or above ``raw`` (round axis ticks)."""
    if raw <= 1:
        return 1.0
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * mag >= raw:
            return float(m * mag)
    return float(10 * mag)
