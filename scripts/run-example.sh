#!/usr/bin/env bash
# README command 1: install dependencies, build, and predict the shipped example job with the
# shipped trained model (models/default).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build.sh build
build/apps/ptp-predict/ptp-predict configs/jobs/bert-large-amp-16xa100.yaml
