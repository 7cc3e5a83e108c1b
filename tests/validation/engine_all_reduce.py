"""Serving engines' own all-reduce kernels, as published, predicted (held out: nothing is fitted on them).

For every row of tests/data/measured/engine_all_reduce/engine_all_reduce_times.csv that times vLLM's custom
all-reduce (ca_1stage, ca_2stage, or vLLM's own choice) or torch's symmetric-memory multimem, of a source the
model was not fitted on (FITTED), on a GPU tpsim has a platform for (H100 SXM:
platforms/dgx_h100.xml, A100 SXM: platforms/dgx_a100.xml, GPUs 0..TP-1), it runs
  tpsim collective --platform P --gpus 0-(TP-1) --engine vllm --min S --max S --json -
and compares the time where tpsim runs the kernel the row forced (1stage: one-shot, 2stage: two-shot, multimem;
vLLM's choice: any). It prints each source's median |error| and signed median (simulated / measured - 1;
negative: tpsim faster than measured). The sources' timing differs (README.md there): vLLM's benchmark
replays 10 kernels in a CUDA graph (no launch cost), sglang's test times eager back-to-back calls.

usage: engine_all_reduce.py TPSIM   (run from the project root)
"""
import csv
import json
import os
import statistics
import subprocess
import sys

DATA = "tests/data/measured/engine_all_reduce/engine_all_reduce_times.csv"
PLATFORMS = {"H100": "platforms/dgx_h100.xml", "A100": "platforms/dgx_a100.xml"}
KERNELS = {"vllm_custom_1stage": "one-shot", "vllm_custom_2stage": "two-shot", "vllm_custom(auto)": None,
           "pytorch_symm_mem_multimem": "multimem"}
# Sources the engine kernel model was fitted on (calibrate/recorded/engine_all_reduce/): not a check.
FITTED = {"vllm42324_sm90", "vllm37756_b300"}


def platform_of(gpu):
    """The platform standing for a row's GPU, or None (an unnamed or other GPU)."""
    hits = [p for name, p in PLATFORMS.items() if gpu.startswith(name)]
    return hits[0] if len(hits) == 1 else None


def simulate(tpsim, platform, tp, size_B):
    out = subprocess.run([tpsim, "collective", "--platform", platform, "--gpus", f"0-{tp - 1}", "--engine", "vllm",
                          "--min", str(size_B), "--max", str(size_B), "--json", "-"], capture_output=True, text=True, check=True)
    row = json.loads(out.stdout)["rows"][0]
    return row["time_us"], row["engine_kernel"]


def main(argv):
    if len(argv) != 2 or argv[1].startswith("-"):
        sys.exit(__doc__)
    by_source = {}
    with open(DATA) as f:
        for r in csv.DictReader(f):
            platform = platform_of(r["gpu"])
            if r["kernel"] not in KERNELS or platform is None or r["source_id"] in FITTED:
                continue
            tp, size = int(r["tp"]), int(float(r["size_B"]))
            sim_us, kernel = simulate(argv[1], platform, tp, size)
            wanted = KERNELS[r["kernel"]]
            if kernel is None or wanted is not None and kernel != wanted:
                continue
            err = sim_us / float(r["time_us"]) - 1
            by_source.setdefault(r["source_id"], []).append(err)
            print(f"{r['source_id']:12} {r['gpu'][:28]:28} TP {tp} {r['kernel']:20} {size:>9} B  measured {float(r['time_us']):7.1f} us"
                  f"  simulated {sim_us:7.1f} us ({kernel}, CUDA graph: {r['cuda_graph']})  {100 * err:+6.1f}%")
    for source, errs in sorted(by_source.items()):
        print(f"{source}: {len(errs)} rows, median |error| {100 * statistics.median(abs(e) for e in errs):.1f}%,"
              f" signed median {100 * statistics.median(errs):+.1f}%")
    every = [e for errs in by_source.values() for e in errs]
    print(f"all: {len(every)} rows, median |error| {100 * statistics.median(abs(e) for e in every):.1f}%")


if __name__ == "__main__":
    main(sys.argv)
