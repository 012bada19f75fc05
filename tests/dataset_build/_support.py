"""Shared test setup: puts scripts/ on sys.path and locates the fixtures and the shared data.

Imported first by every test module here (tests/dataset_build/ is on sys.path when run with
`python3 -m unittest discover -s tests/dataset_build`, and each test module adds it too).
"""

import os
import shutil
import sys

sys.dont_write_bytecode = True  # the tests must not write into the repository

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(REPO, "scripts")
if SCRIPTS not in sys.path:
    sys.path.insert(0, SCRIPTS)

FIXTURES = os.path.join(REPO, "tests", "data", "dataset_build")
DATASETS = os.path.join(REPO, "datasets")


def fixture(source):
    """Fixture folder of one source; it mirrors the shared/data layout."""
    return os.path.join(FIXTURES, source)


def shared_data():
    """The published measurements: $PTP_SHARED_DATA, else <repo>/../shared/data."""
    return os.environ.get("PTP_SHARED_DATA") or os.path.join(os.path.dirname(REPO), "shared", "data")


def merged_fixture_tree(dst):
    """Copy every source fixture into one shared/data-like tree at dst (plus the README.md that
    the raw/ copy step expects) so the whole pipeline can run on the fixtures."""
    for name in sorted(os.listdir(FIXTURES)):
        src = os.path.join(FIXTURES, name)
        if os.path.isdir(src):
            shutil.copytree(src, dst, dirs_exist_ok=True)
    with open(os.path.join(dst, "README.md"), "w", encoding="utf-8") as f:
        f.write("fixture tree for tests/dataset_build\n")
    return dst


def by(rows, **match):
    """The single row whose fields equal `match` (fails loudly when there is not exactly one)."""
    hits = [r for r in rows if all(str(r.get(k)) == str(v) for k, v in match.items())]
    if len(hits) != 1:
        raise AssertionError("%d rows match %r" % (len(hits), match))
    return hits[0]
