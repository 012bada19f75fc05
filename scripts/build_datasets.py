#!/usr/bin/env python3
"""Build ptp's training tables from the published GPU measurements in shared/data.

Usage:
    python3 scripts/build_datasets.py --shared ../shared/data --out datasets/

Reads only files under --shared and writes only under --out:

    runs.csv           end-to-end training measurements (DLE, Lambda, LLM file)
    collectives.csv    all_reduce / send_recv timings (vidur, nccl-tests sweeps)
    ops/*.csv          per-kernel / per-operator timings (NeuSight, vidur MLP ops)
    README.md          schemas, row counts, exclusion philosophy, unmapped names
    MANIFEST.json      schema version, sha256 of every input and output
    sources/*.md       one page per source: origin, commit, license, caveats
    raw/<source>/...   verbatim copies of the small source files (see README)

Standard library only. Deterministic: same inputs give byte-identical outputs
(no timestamps, sorted iteration, fixed number formatting). No measured number
is changed; every derived value is marked as derived (step_time_derivation in
runs.csv, notes/README elsewhere).

The code lives in the package scripts/dataset_build/ (one module per source; see its README.md).
"""

import os
import sys

sys.dont_write_bytecode = True  # keep scripts/ free of __pycache__ when run from the repository
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from dataset_build.pipeline import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
