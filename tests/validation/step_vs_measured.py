#!/usr/bin/env python3
"""tpsim's single-GPU decode-step and prefill predictions against tpsim-calibrate's step.csv.

usage: step_vs_measured.py TPSIM CALIB_DIR [--platform platforms/1x_h200.xml]
                           [--model workloads/models/llama-3.1-8b.yaml] [--check]
Run from the project root, on the directory tpsim-calibrate wrote (with --model the same card).

tpsim fit turns CALIB_DIR into a calibration (GEMM table, HBM bandwidth, launch overheads);
for each step.csv row tpsim then predicts the same step at TP=1 on the platform's GPU 0:
decode rows as the decode step of `batch` sequences at `context` tokens, prefill rows as the
prefill of one `tokens`-token prompt. The measured step is a chain of GEMMs and KV-cache reads
launched back to back, so the GPU never waits for the host: the prediction leaves launch
overheads out (CUDA graphs with zero launch cost). With --check the script exits 1 unless
every row is within LIMIT.
"""
import csv
import json
import os
import subprocess
import sys
import tempfile

LIMIT = 0.10


def option(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def main():
    tpsim, calib = sys.argv[1], sys.argv[2]
    platform = os.path.abspath(option("--platform", "platforms/1x_h200.xml"))
    model = os.path.abspath(option("--model", "workloads/models/llama-3.1-8b.yaml"))
    rows = [r for r in csv.DictReader(line for line in open(os.path.join(calib, "step.csv")) if not line.startswith("#"))]
    worst = 0.0
    with tempfile.TemporaryDirectory() as d:
        cal = os.path.join(d, "calibration.yaml")
        subprocess.run([tpsim, "fit", calib, "-o", cal], check=True, stdout=subprocess.DEVNULL)
        print("phase    batch context tokens  measured (ms)  predicted (ms)  error")
        for r in rows:
            decode = r["phase"] == "decode"
            batch, prompt = (int(r["batch"]), int(r["context"])) if decode else (1, int(r["tokens"]))
            scenario, out = os.path.join(d, "s.yaml"), os.path.join(d, "r.json")
            open(scenario, "w").write(
                f"name: step\nplatform: {platform}\nmodel: {model}\ncalibration: {cal}\n"
                "engine: {cuda_graphs: true, graph_launch: 0us, graph_kernel: 0us}\n"
                f"workload: {{arrivals: closed, batch: {batch}, prompt_tokens: {prompt}, output_tokens: 2}}\n"
                "configs:\n  - {name: TP=1, tp: 1, layout: [[0]]}\n")
            subprocess.run([tpsim, scenario, "--quiet", "--json", out], check=True, stdout=subprocess.DEVNULL)
            c = json.load(open(out))["configs"][0]
            predicted = c["decode_step_ms"] if decode else c["prefill_ms"]
            measured = float(r["time_us"]) / 1e3
            err = predicted / measured - 1
            worst = max(worst, abs(err))
            print(f"{r['phase']:8s} {r['batch']:>5s} {r['context']:>7s} {r['tokens']:>6s}  {measured:13.3f}  {predicted:14.3f}  {err * 100:+5.1f}%")
    print(f"worst |error| {worst * 100:.1f}% (limit {LIMIT:.0%})")
    return 1 if "--check" in sys.argv and worst > LIMIT else 0


if __name__ == "__main__":
    sys.exit(main())
