"""``count … --length N --plot`` draws every length, however large the counts (issue 34 §6).

Truth: the exact counts of ``count … --length n`` (each length counted on its own); the
plotted point of length n is log₁₀ of that integer.  The files on disk are checked: the
PNG has the line across the plot (old: an empty chart from N ≈ 980 on, the float log
scale overflowing, and lengths past 2¹⁰²⁴ words dropped), the SVG carries it.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from clirun import run

EXAMPLE = str(Path(__file__).resolve().parents[2] / "examples" / "example3.txt")
N = 1500  # 2^1500 words of length 1500 over {a, b}: beyond any float

pytest.importorskip("matplotlib")


def _count(n: int, capsys: pytest.CaptureFixture[str]) -> int:
    from sdg_automata.cli.writing import unlimited_digits

    with unlimited_digits():
        code, out, _ = run(["count", EXAMPLE, "A", "0", "--length", n], capsys)
        assert code == 0
        return int(out)


def test_the_plotted_points_are_the_exact_counts(capsys: pytest.CaptureFixture[str]) -> None:
    from sdg_automata import parse_grammar
    from sdg_automata.render.plots import counts_by_length, plot_counts

    grammar = parse_grammar(Path(EXAMPLE).read_text(encoding="utf-8"))
    counts = counts_by_length(grammar, "A", 0, max_length=N)
    line = plot_counts(counts).axes[0].lines[0]
    xs, ys = list(line.get_xdata()), list(line.get_ydata())
    assert xs == [n for n in range(N + 1) if counts.counts[n] > 0] and len(xs) >= N - 2
    for n in (1, 10, 999, 1024, N):
        exact = _count(n, capsys)
        assert exact == counts.counts[n] and exact.bit_length() > (n > 1100) * 1024
        assert ys[xs.index(n)] == pytest.approx(math.log10(exact), rel=1e-12)


def test_the_png_shows_the_line_across_the_plot(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    import numpy as np
    from matplotlib.image import imread

    png = tmp_path / "counts.png"
    code, _, err = run(["count", EXAMPLE, "A", "0", "--length", N, "--plot", png], capsys)
    assert code == 0 and err == f"wrote {png}\n"  # no overflow warning either
    image = imread(str(png))[:, :, :3]
    line = np.all(np.abs(image - np.array([0x1F, 0x77, 0xB4]) / 255) < 0.1, axis=2)
    rows, cols = np.nonzero(line)
    assert len(cols) > 200  # the line's pixels (old: none, an empty chart)
    assert cols.max() - cols.min() > 0.6 * image.shape[1]  # across the plot
    left, right = rows[cols == cols.min()].mean(), rows[cols == cols.max()].mean()
    assert right < left - 0.4 * image.shape[0]  # rising: more words at greater lengths


def test_the_svg_carries_the_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    svg = tmp_path / "counts.svg"
    assert run(["count", EXAMPLE, "A", "0", "--length", N, "--plot", svg], capsys)[0] == 0
    text = svg.read_text(encoding="utf-8")
    m = re.search(r'<g id="counts">\s*<path d="([^"]+)"', text)
    assert m is not None
    points = re.findall(r"[ML] (-?[\d.]+) (-?[\d.]+)", m.group(1))
    assert len(points) >= 2
    (x0, y0), (x1, y1) = map(float, points[0]), map(float, points[-1])
    assert x1 > x0 and y1 < y0  # from length 1 up to N, rising (SVG y grows downwards)
