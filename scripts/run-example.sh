#!/usr/bin/env bash
# README command 1: install dependencies, build what a prediction needs, and predict the shipped
# example job with the shipped trained model (models/default).
# Only the libraries, the three apps with their CPU backends and the Python package (build/python):
# no tests, no benchmarks and no CUDA device code, so the first prediction does not wait for what
# only the test suite needs.
# scripts/test.sh (command 2) builds everything, CUDA included, in its own build-ci/ and build-asan/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build -DPTP_BUILD_TESTS=OFF -DPTP_WITH_CUDA=OFF
build/apps/ptp-predict/ptp-predict configs/jobs/bert-large-amp-16xa100.yaml
