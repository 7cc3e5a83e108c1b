#!/usr/bin/env python3
"""Expert-parallel serving and all-to-all bandwidth: tpsim against published figures
(tests/data/measured/moe-ep-serving.csv, sources in tests/data/measured/SOURCES.md).

1. DeepSeek's production decode (day-6 inference system overview): ~14.8k output tokens/s per
   H800 node at ~21 tokens/s per user and 4,989 KV tokens per output token, EP144 with MLA and
   shared expert DP144. tpsim runs DeepSeek-V3 EP128 with attention DP128 (16 DGX H100 nodes of
   platforms/16x_dgx_h100_ib.xml: the nearest EP that divides the 256 experts; H800 is not in the
   GPU catalog, an H100 with the same HBM and tensor cores stands in) at the derived concurrency
   14800 / 8 / 21 = 88 sequences per GPU, 4,989 tokens of context, moe_imbalance 1.04 (EPLB-balanced,
   as DeepSeek runs it), and compares 88 / decode step with 14800 / 8 per GPU.
2. SGLang on 96 H100 (lmsys large-scale EP blog): 22.3k output tokens/s per node at 2000-token
   inputs. The per-GPU batch is not in what was found, so the script reports the batch at which
   tpsim's EP64 (8 nodes) decode reaches 22300 / 8 tokens/s per GPU, and tpsim's rate at 88.
3. NCCL all-to-all on 8 H100 over NVSwitch: NVIDIA's ~370 GB/s bus bandwidth for non-allreduce ops,
   against `tpsim collective --op all_to_all` at 1 GiB.

usage: moe_ep_throughput.py TPSIM [--check]   (run from the project root)
With --check it exits 1 unless case 1 is within DEEPSEEK_LIMIT and case 3 within BUSBW_LIMIT.
"""
import json
import os
import subprocess
import sys
import tempfile

DEEPSEEK_LIMIT, BUSBW_LIMIT = 0.35, 0.10
PLATFORM = "platforms/16x_dgx_h100_ib.xml"
MODEL = "workloads/models/deepseek-v3.yaml"


def decode_step_s(tpsim, ep, per_gpu, context):
    """tpsim's decode step (s) of DeepSeek-V3 EP=ep, attention DP=ep, `per_gpu` sequences per GPU."""
    gpus = list(range(ep))
    scenario = f"""name: deepseek-v3 EP{ep} decode
platform: {os.path.abspath(PLATFORM)}
model: {os.path.abspath(MODEL)}
workload: {{arrivals: closed, batch: {ep * per_gpu}, prompt_tokens: {context}, output_tokens: 2}}
configs:
  - {{name: EP{ep}, tp: 1, ep: {ep}, moe_imbalance: 1.04, layout: [{gpus}]}}
"""
    with tempfile.TemporaryDirectory() as d:
        path, out = os.path.join(d, "s.yaml"), os.path.join(d, "r.json")
        open(path, "w").write(scenario)
        subprocess.run([tpsim, path, "--quiet", "--json", out], check=True, stdout=subprocess.DEVNULL)
        c = json.load(open(out))["configs"][0]
    return c["decode_step_ms"] / 1e3, c["breakdown_ms"]


def all_to_all_busbw(tpsim):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "c.json")
        subprocess.run([tpsim, "collective", "--platform", "platforms/dgx_h100.xml", "--gpus", "0-7", "--op", "all_to_all",
                        "--min", "1GiB", "--max", "1GiB", "--json", out], check=True, stdout=subprocess.DEVNULL)
        return json.load(open(out))["rows"][0]["busbw_GBps"]


def main():
    tpsim, check = sys.argv[1], "--check" in sys.argv
    failures = []
    print("case                                          measured   tpsim    error   (tokens/s per GPU, bus GB/s)")
    step, parts = decode_step_s(tpsim, 128, 88, 4989)
    measured, predicted = 14800 / 8, 88 / step
    err = predicted / measured - 1
    print(f"DeepSeek decode, EP128 DP128, 88 seq/GPU @4989  {measured:8.0f} {predicted:7.0f} {err:+7.1%}")
    print("   tpsim's step: " + ", ".join(f"{k} {v:.2f} ms" for k, v in parts.items() if v > 0))
    if abs(err) > DEEPSEEK_LIMIT: failures.append(f"DeepSeek decode off by {err:+.1%}")
    target = 22300 / 8
    curve = {b: b / decode_step_s(tpsim, 64, b, 2000)[0] for b in (32, 88, 256, 512)}
    print(f"SGLang decode, EP64 DP64, 88 seq/GPU @2000      {target:8.0f} {curve[88]:7.0f} {curve[88] / target - 1:+7.1%}   (batch not published)")
    print("   tpsim at 32/88/256/512 seq/GPU: " + ", ".join(f"{v:.0f}" for v in curve.values()) + " tokens/s per GPU")
    busbw = all_to_all_busbw(tpsim)
    err = busbw / 370 - 1
    print(f"NCCL all-to-all busbw, 8x H100, 1 GiB           {370:8.0f} {busbw:7.0f} {err:+7.1%}")
    if abs(err) > BUSBW_LIMIT: failures.append(f"all-to-all busbw off by {err:+.1%}")
    if check and failures:
        print("FAIL: " + "; ".join(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
