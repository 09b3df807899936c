"""A static HTML report of a dump directory (``depyf report D``, ``depyf.report.build``).

``D/index.html`` lists every compiled function (cache entries, graph breaks, recompiles,
fallbacks, compile times; sortable); each function has a page with its source (graph
breaks marked), and per cache entry its guard, why it exists, the code that runs and
links to every stage of its graphs. Plain files, inline CSS and a few lines of inline JS:
it opens from ``file://`` with no server and no network. Dumps with ``rank_*/`` and
``process_*/`` folders get one report with a rank selector. Stdlib only; pygments, when
installed, highlights the code. Never imports torch.
"""
import os

from .dump import ReportError, load
from .funcpage import function_page, graph_page
from .pages import Site, index_page

__all__ = ["build", "ReportError"]


def build(dump_dir, out_dir=None):
    """Write the report of ``dump_dir`` into ``out_dir`` (default: ``dump_dir``) and return
    the path of its ``index.html``. Raises ReportError for a folder that is no dump."""
    dump_dir = os.path.abspath(os.path.expanduser(os.fspath(dump_dir)))
    ranks = load(dump_dir)
    out_dir = os.path.abspath(os.path.expanduser(os.fspath(out_dir))) if out_dir is not None else dump_dir
    site = Site(out_dir, ranks)
    try:
        for rank in ranks:
            os.makedirs(site.rank_dir(rank), exist_ok=True)
            for fn in rank.functions:
                _write(site.fn_path(rank, fn), function_page(site, rank, fn))
            for name in rank.graphs:
                _write(site.graph_path(rank, name), graph_page(site, rank, name))
        _write(site.index_path(), index_page(site))
    except OSError as exc:
        raise ReportError("cannot write the report into %s: %s" % (out_dir, exc)) from exc
    return site.index_path()


def _write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
