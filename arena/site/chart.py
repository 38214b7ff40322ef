"""The rating chart: an inline SVG of a bot's rating over its games."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from markupsafe import Markup, escape



CHART_POINTS = 400  # at most this many points drawn (the others are evenly skipped)


@dataclass(frozen=True)
class _Plot:
    """A chart's drawing area: data to SVG coordinates, and its grid, ticks and axis label."""

    width: int
    height: int
    y_min: float
    y_max: float
    x_max: float
    left: int = 48
    right: int = 16
    top: int = 16
    bottom: int = 34

    @property
    def plot_h(self) -> int:
        return self.height - self.top - self.bottom

    def x(self, value: float) -> float:
        return self.left + (self.width - self.left - self.right) * value / self.x_max

    def y(self, value: float) -> float:
        return self.top + self.plot_h * (self.y_max - value) / (self.y_max - self.y_min)

    def axes(self, label: str) -> list[str]:
        parts = []
        for tick in _ticks(self.y_min, self.y_max, 5):
            parts.append(f'<line class="grid" x1="{self.left}" x2="{self.width - self.right}" y1="{self.y(tick):.1f}" '
                         f'y2="{self.y(tick):.1f}"/><text class="axis" x="{self.left - 6}" y="{self.y(tick) + 4:.1f}" '
                         f'text-anchor="end">{tick:g}</text>')
        for tick in _ticks(0, self.x_max, 6):
            if tick == int(tick):
                parts.append(f'<text class="axis" x="{self.x(tick):.1f}" y="{self.height - self.bottom + 16}" '
                             f'text-anchor="middle">{int(tick)}</text>')
        middle = self.left + (self.width - self.left - self.right) / 2
        parts.append(f'<text class="axis" x="{middle}" y="{self.height - 2}" text-anchor="middle">{label}</text>')
        return parts


@dataclass(frozen=True)
class ChartPoint:
    game: int  # the bot's n-th rated game, 0 for a version's prior
    mu: float
    sigma: float
    version: int


def rating_chart(points: Sequence[ChartPoint], title: str, width: int = 760, height: int = 280) -> Markup:
    """An inline SVG: mu with a ±sigma band, the score mu − 3σ dashed, a marker at every new version."""
    if len(points) > CHART_POINTS:  # keep the page light; never drop a version change or the end
        step = len(points) / CHART_POINTS
        keep = {int(i * step) for i in range(CHART_POINTS)} | {len(points) - 1}
        keep |= {i for i in range(1, len(points)) if points[i].version != points[i - 1].version}
        points = [p for i, p in enumerate(points) if i in keep]
    parts = [f'<svg class="chart" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
             f'role="img" aria-label="{escape(title)}"><title>{escape(title)}</title>']
    if not points:
        parts.append(f'<text x="{width / 2}" y="{height / 2}" text-anchor="middle" class="muted">'
                     'no rated games yet</text></svg>')
        return Markup("".join(parts))
    lows = [min(p.mu - 3 * p.sigma, p.mu - p.sigma) for p in points]
    highs = [p.mu + p.sigma for p in points]
    y_min, y_max = min(lows), max(highs)
    if y_max - y_min < 1:
        y_min, y_max = y_min - 0.5, y_max + 0.5
    plot = _Plot(width, height, y_min, y_max, max(points[-1].game, 1))
    x, y, top = plot.x, plot.y, plot.top
    parts += plot.axes("rated games")
    band = ([f"{x(p.game):.1f},{y(p.mu + p.sigma):.1f}" for p in points]
            + [f"{x(p.game):.1f},{y(p.mu - p.sigma):.1f}" for p in reversed(points)])
    parts.append(f'<polygon class="band" points="{" ".join(band)}"/>')
    parts.append('<polyline class="mu" points="' + " ".join(f"{x(p.game):.1f},{y(p.mu):.1f}" for p in points) + '"/>')
    parts.append('<polyline class="score" points="'
                 + " ".join(f"{x(p.game):.1f},{y(p.mu - 3 * p.sigma):.1f}" for p in points) + '"/>')
    for i, p in enumerate(points):
        if i == 0 or p.version != points[i - 1].version:
            parts.append(f'<line class="version" x1="{x(p.game):.1f}" x2="{x(p.game):.1f}" y1="{top}" '
                         f'y2="{top + plot.plot_h}"/><text class="version-label" x="{x(p.game) + 3:.1f}" '
                         f'y="{top + 11}">v{p.version}</text>')
    parts.append("</svg>")
    return Markup("".join(parts))


def _ticks(low: float, high: float, count: int) -> list[float]:
    span = high - low
    raw = span / max(count, 1)
    magnitude = 10 ** int(f"{raw:e}".split("e")[1])
    step = next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= raw)
    first = -(-low // step) * step
    ticks, value = [], first
    while value <= high + 1e-9:
        ticks.append(round(value, 6))
        value += step
    return ticks


def llr_chart(llrs: Sequence[float], lower: float, upper: float, games_per_pair: int, title: str,
              width: int = 760, height: int = 280) -> Markup:
    """An inline SVG of a sequential test: its log-likelihood ratio after every counted pair, over the
    games played, between the two bounds (crossing the upper one decides H1, the lower one H0)."""
    if len(llrs) > CHART_POINTS:  # keep the page light; never drop the last point (the decision)
        step = len(llrs) / CHART_POINTS
        keep = sorted({int(i * step) for i in range(CHART_POINTS)} | {len(llrs) - 1})
    else:
        keep = list(range(len(llrs)))
    points = [(0.0, 0.0)] + [((i + 1) * games_per_pair, llrs[i]) for i in keep]  # the test starts at 0
    plot = _Plot(width, height, min(lower, *(v for _, v in points)) - 0.3, max(upper, *(v for _, v in points)) + 0.3,
                 max(points[-1][0], 1))
    x, y, left, right = plot.x, plot.y, plot.left, plot.right
    parts = [f'<svg class="chart llr-chart" viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
             f'role="img" aria-label="{escape(title)}"><title>{escape(title)}</title>', *plot.axes("games")]
    for kind, value in (("upper", upper), ("lower", lower)):
        parts.append(f'<line class="bound {kind}" data-value="{value:.4f}" x1="{left}" x2="{width - right}" '
                     f'y1="{y(value):.1f}" y2="{y(value):.1f}"/><text class="bound-label" x="{width - right - 4}" '
                     f'y="{y(value) + (-5 if kind == "upper" else 13):.1f}" text-anchor="end">'
                     f'{"H1" if kind == "upper" else "H0"} {value:+.2f}</text>')
    if len(points) == 1:
        parts.append(f'<text x="{width / 2}" y="{height / 2 - 20}" text-anchor="middle" class="muted">'
                     'no pairs counted yet</text>')
    parts.append('<polyline class="llr" points="' + " ".join(f"{x(g):.1f},{y(v):.1f}" for g, v in points) + '"/>')
    parts.append("</svg>")
    return Markup("".join(parts))
