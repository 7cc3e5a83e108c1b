#!/usr/bin/env bash
# One prepared run of tpsim-calibrate on a lent GPU machine (the `device` tool's `run`), for a
# session whose task has one. Build here first (build-me or build), then run, from the project
# root, with the binary carried over:
#   run(command="calibrate/device-run.sh build-me", carry=["build-me/calibrate/tpsim-calibrate"], timeout_s=540)
# It writes $OUT/h200/ (nccl logs when there are 2+ GPUs, gemm.csv, step.csv, hbm.csv,
# launch.csv, topo.txt, system.txt, manifest.yaml). Back here:
#   cp -r <files_at>/h200 calibrate/recorded/h200      # + provenance in calibrate/recorded/SOURCES.md
#   tpsim fit calibrate/recorded/h200 -o calibrate/fitted/h200.yaml
#   python3 tests/validation/step_vs_measured.py build/sim/tpsim calibrate/recorded/h200 --check
# --quick keeps the GEMM sweep to 8 token counts; the whole run fits in about 5 minutes on one H200.
set -euo pipefail
build=${1:-build}
out=${OUT:-/tmp/out}/h200
mkdir -p "$out"
nvidia-smi -L || true
timeout 500 "$build/calibrate/tpsim-calibrate/tpsim-calibrate" --out "$out" --quick --iters 20 --warmup 5 \
  --model workloads/models/llama-3.1-8b.yaml 2>&1 | tee "$out/run.log"
