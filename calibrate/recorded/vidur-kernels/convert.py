#!/usr/bin/env python3
"""Turns Vidur's published per-op profiling tables into tpsim's GEMM csv (the default kernel surface).

usage: convert.py VIDUR_CHECKOUT [COMMIT]   (a checkout of github microsoft/vidur; writes next to this script)

For each GPU folder of data/profiling/compute/ (a100, h100, a40) and each model under it, every
row of mlp.csv whose num_tokens is a power of two gives four GEMM rows (the layer's linear ops) and
four small-kernel rows (input_layernorm, attn_rope, mlp_act, add). time_us = the source's
time_stats.<op>.median (ms) x 1000, exactly. n and k follow from the row's model columns and
tensor-parallel degree the way vidur/profiling/mlp/mlp_impl.py builds the layers:
  attn_pre_proj (QKV)  n = (n_head + 2 n_kv_head) hd / tp, k = n_embd      (hd = n_embd / n_head)
  attn_post_proj (O)   n = n_embd,                         k = n_head hd / tp
  mlp_up_proj          n = (2 if use_gated_mlp else 1) n_expanded_embd / tp, k = n_embd
  mlp_down_proj        n = n_embd,                         k = n_expanded_embd / tp
Rows the source repeats (same tokens and TP) are kept once, the first. Nothing else is changed.
"""
import csv
import os
import subprocess
import sys

GPUS = ("a100", "h100", "a40")
GEMMS = ("attn_pre_proj", "attn_post_proj", "mlp_up_proj", "mlp_down_proj")
SMALL = ("input_layernorm", "attn_rope", "mlp_act", "add")


def shapes(r):
    heads, kv, d, inter, tp = (int(r[c]) for c in ("n_head", "n_kv_head", "n_embd", "n_expanded_embd", "num_tensor_parallel_workers"))
    hd, up = d // heads, 2 if r["use_gated_mlp"] == "True" else 1
    return {"attn_pre_proj": ((heads + 2 * kv) * hd // tp, d), "attn_post_proj": (d, heads * hd // tp),
            "mlp_up_proj": (up * inter // tp, d), "mlp_down_proj": (d, inter // tp)}


def main():
    root = sys.argv[1]
    commit = sys.argv[2] if len(sys.argv) > 2 else subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip() or "unknown"
    here = os.path.dirname(os.path.abspath(__file__))
    for gpu in GPUS:
        base = os.path.join(root, "data/profiling/compute", gpu)
        gemm, small = [], []
        for dirpath, _, files in sorted(os.walk(base)):
            if "mlp.csv" not in files:
                continue
            model = os.path.relpath(dirpath, base)
            seen = set()
            for r in csv.DictReader(open(os.path.join(dirpath, "mlp.csv"))):
                m, tp = int(r["num_tokens"]), int(r["num_tensor_parallel_workers"])
                if m & (m - 1) or (m, tp) in seen:
                    continue
                seen.add((m, tp))
                for op, (n, k) in shapes(r).items():
                    gemm.append((f"{model}:{op}_tp{tp}", m, n, k, "fp16", float(r[f"time_stats.{op}.median"]) * 1000))
                for op in SMALL if m <= 64 else ():
                    small.append((f"{model}:{op}_tp{tp}", m, int(r["n_embd"]), float(r[f"time_stats.{op}.median"]) * 1000))
        head = (f"# Vidur's published per-op GPU times on {gpu} (github microsoft/vidur @ {commit},\n"
                f"# data/profiling/compute/{gpu}/<model>/mlp.csv; converted by convert.py, see its docstring).\n")
        with open(os.path.join(here, f"{gpu}-gemm.csv"), "w") as f:
            f.write(head + "op,m,n,k,dtype,time_us,tflops,eff_bw_GBps\n")
            f.writelines(f"{o},{m},{n},{k},{d},{t:g},,\n" for o, m, n, k, d, t in gemm)
        with open(os.path.join(here, f"{gpu}-small-kernels.csv"), "w") as f:
            f.write(head + "op,m,hidden,time_us\n")
            f.writelines(f"{o},{m},{h},{t:g}\n" for o, m, h, t in small)
        print(f"{gpu}: {len(gemm)} GEMM rows, {len(small)} small-kernel rows")


if __name__ == "__main__":
    main()
