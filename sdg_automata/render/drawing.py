"""SVG and PNG through Graphviz, the optional ``visual`` extra.

``pip install "sdg_automata[visual]"`` brings pygraphviz, whose wheel bundles
Graphviz.  Without it :func:`dot_to_svg` and :func:`dot_to_png` raise
:class:`~sdg_automata.errors.VisualUnavailable` (an
:class:`~sdg_automata.errors.InputError` that says what to install); DOT
(:mod:`sdg_automata.render.dot`) still works.
"""

from __future__ import annotations

from ..errors import BudgetExceeded, InputError, Interrupted, VisualUnavailable

__all__ = ["INSTALL_HINT", "dot_to_png", "dot_to_svg", "require_visual", "visual_available"]

INSTALL_HINT = ('pip install "sdg_automata[visual]" (pygraphviz, whose wheel bundles Graphviz); '
                "DOT output needs nothing (--format dot)")


def visual_available() -> bool:
    """Whether pygraphviz (with its bundled Graphviz) can be imported."""
    try:
        import pygraphviz  # noqa: F401
    except ImportError:
        return False
    return True


def require_visual(fmt: str = "SVG and PNG") -> None:
    """Raise :class:`VisualUnavailable` with the install command unless pygraphviz is there."""
    if not visual_available():
        raise VisualUnavailable(f"{fmt} output needs Graphviz: {INSTALL_HINT}")


# Graphviz runs in a child interpreter: its C layout cannot be interrupted from Python,
# and it writes Fontconfig warnings straight to file descriptor 2.
_DRAW_CHILD = (
    "import sys, pygraphviz\n"
    "fmt = sys.argv[1]\n"
    "data = pygraphviz.AGraph(string=sys.stdin.read()).draw(format=fmt, prog='dot')\n"
    "sys.stdout.buffer.write(data)\n"
)


def _draw(dot: str, fmt: str, *, max_seconds: float | None = None) -> bytes:
    """Graphviz ``dot``'s layout of ``dot`` as ``fmt`` bytes, in a child process.

    Ctrl-C and ``max_seconds`` stop the child at once (the layout itself never
    looks at signals); Graphviz's chatter on stderr is shown only if it fails.
    """
    import subprocess
    import sys

    require_visual(fmt.upper())
    try:
        done = subprocess.run([sys.executable, "-c", _DRAW_CHILD, fmt], input=dot.encode(),
                              capture_output=True, timeout=max_seconds, check=False)
    except subprocess.TimeoutExpired:
        raise BudgetExceeded(f"Graphviz's layout stopped at the budget of {max_seconds:g} s"
                             ) from None
    except KeyboardInterrupt:
        raise Interrupted("interrupted during Graphviz's layout") from None
    if done.returncode != 0:
        lines = [ln for ln in done.stderr.decode(errors="replace").splitlines()
                 if ln.strip() and "Fontconfig" not in ln]
        raise InputError(f"Graphviz could not draw the graph: {lines[-1] if lines else '?'}")
    return done.stdout


def dot_to_svg(dot: str, *, max_seconds: float | None = None) -> str:
    """Lay out DOT text with Graphviz ``dot``; the SVG document."""
    return _draw(dot, "svg", max_seconds=max_seconds).decode("utf-8")


def dot_to_png(dot: str, *, max_seconds: float | None = None) -> bytes:
    """Lay out DOT text with Graphviz ``dot``; the PNG bytes."""
    return _draw(dot, "png", max_seconds=max_seconds)

