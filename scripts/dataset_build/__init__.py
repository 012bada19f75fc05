"""Build ptp's dataset tables (datasets/) from the published GPU measurements in shared/data.

Entry point: scripts/build_datasets.py (a thin wrapper around dataset_build.pipeline.main).
See README.md in this folder for the module layout.
"""
