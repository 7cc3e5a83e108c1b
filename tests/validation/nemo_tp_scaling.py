#!/usr/bin/env python3
"""Calibrate on TP=1, predict TP=2/4/8: tpsim against NVIDIA's published NeMo/TensorRT-LLM
latencies of Llama-2-7B on DGX A100 and DGX H100 (tests/data/measured/, whole requests of
128 input and 20 output tokens, batch 1-8).

The measurement runs through a serving stack whose cost tpsim does not know. One number is
fitted per GPU on the TP=1 rows only: a host overhead per step h (engine.host_overhead, not
overlapped with the GPU), by least squares on measured = simulated(h) over batch 1..8, where a
request has 20 steps (prefill and 19 decode steps), so simulated(h) = simulated(0) + 20 h.
tpsim then runs TP=2/4/8 with that h and the script prints measured, predicted and the error.

usage: nemo_tp_scaling.py TPSIM [--check]   (run from the project root)
With --check it exits 1 unless, on each GPU, the TP=2/4/8 errors have a median within
MEDIAN_LIMIT and none beyond WORST_LIMIT, and the predicted latency at batch 1 falls from
TP=1 to TP=8 as the measured one does.
"""
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

MEASURED = "tests/data/measured/nemo-trtllm-llama2-7b-a100-vs-h100.csv"
SCENARIOS = {"A100": "scenarios/nemo_llama2_7b_a100.yaml", "H100": "scenarios/nemo_llama2_7b_h100.yaml"}
STEPS = 20  # the steps of one request: the prefill (which yields the first token) and 19 decode steps
MEDIAN_LIMIT, WORST_LIMIT = 0.15, 0.30


def measured():
    out = {}
    for r in csv.DictReader(open(MEASURED)):
        if r["metric"] == "avg_latency":
            gpu = "A100" if "A100" in r["hardware"] else "H100"
            out[(gpu, int(r["tp"]), int(r["batch"]))] = float(r["value"]) / 1e3  # ms -> s
    return out


def simulate(tpsim, scenario, host_overhead_s):
    """e2e mean (s) per (tp, batch) from tpsim's JSON, with engine.host_overhead set."""
    base = os.path.dirname(os.path.abspath(scenario))
    lines = []
    for line in open(scenario):
        key, _, value = line.partition(":")
        if key in ("platform", "model", "calibration"):  # the copy lives elsewhere: absolute paths
            path = value.split("#")[0].strip()
            line = f"{key}: {os.path.join(base, path)}\n"
        lines.append(line)
    lines.append(f"engine:\n  host_overhead: {host_overhead_s * 1e6:.3f}us\n  host_overlap: false\n")
    with tempfile.TemporaryDirectory() as d:
        path, out = os.path.join(d, "s.yaml"), os.path.join(d, "r.json")
        open(path, "w").write("".join(lines))
        subprocess.run([tpsim, path, "--quiet", "--json", out], check=True, stdout=subprocess.DEVNULL)
        result = json.load(open(out))
    return {(c["tp"], int(p["value"])): c["e2e_ms"]["mean"] / 1e3
            for p in result["sweep"]["points"] for c in p["configs"]}


def main():
    tpsim, check = sys.argv[1], "--check" in sys.argv
    meas = measured()
    failures = []
    print("gpu   TP batch  measured (ms)  predicted (ms)  error   [h fitted on TP=1]")
    for gpu, scenario in SCENARIOS.items():
        bare = simulate(tpsim, scenario, 0.0)
        tp1 = [(meas[(gpu, 1, b)], bare[(1, b)]) for (t, b) in bare if t == 1]
        h = sum(m - s for m, s in tp1) / (STEPS * len(tp1))  # least squares of m = s + STEPS h
        pred = simulate(tpsim, scenario, h)
        errors = []
        for (tp, b) in sorted(pred):
            m, p = meas[(gpu, tp, b)], pred[(tp, b)]
            err = p / m - 1
            if tp > 1:
                errors.append(abs(err))
            print(f"{gpu}  {tp:3d} {b:5d}  {m * 1e3:13.1f}  {p * 1e3:14.1f}  {err * 100:+5.1f}%" + ("   (fit)" if tp == 1 else ""))
        med, worst = statistics.median(errors), max(errors)
        falls = all(pred[(a, 1)] > pred[(b, 1)] for a, b in ((1, 2), (2, 4), (4, 8)))
        print(f"{gpu}: h = {h * 1e3:.2f} ms per step; TP=2/4/8: median |error| {med * 100:.1f}%, worst {worst * 100:.1f}%; "
              f"batch-1 latency falls with TP: {'yes' if falls else 'no'}\n")
        if med > MEDIAN_LIMIT or worst > WORST_LIMIT or not falls:
            failures.append(gpu)
    if check and failures:
        print(f"outside the limits (median {MEDIAN_LIMIT:.0%}, worst {WORST_LIMIT:.0%}): {', '.join(failures)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
