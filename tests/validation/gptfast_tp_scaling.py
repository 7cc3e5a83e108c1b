#!/usr/bin/env python3
"""Calibrate at the smallest TP, predict the others: tpsim against pytorch-labs/gpt-fast's published batch-1
decode rates of Llama-2-7B, Llama-3.1-8B, Llama-2-70B and Mixtral-8x7B on 8x A100-80GB (tests/data/measured/gptfast-a100-
tp-scaling.csv: CUDA graphs, PyTorch's intra-node all-reduce), through tests/validation/tp_scaling.py (what
it fits and predicts: its docstring). Held out: nothing in tpsim was fitted on these rows.

usage: gptfast_tp_scaling.py TPSIM [--check]   (run from the project root)
With --check (the CTest) it exits 1 when a model's TP>1 errors have a median beyond 10% or one beyond 15%, or
its batch-1 speedup from its smallest TP to TP=8 is more than 10% off. Session 45 read 2.8% / 5.6% / x3.06
against x3.13 (Llama-2-7B), 0.9% / 6.9% / x2.93 against x2.94 (Llama-3.1-8B), 8.4% / 9.7% / x2.83 against
x2.93 (Llama-2-70B, fitted at TP=2), 4.2% / 8.0% / x2.32 against x2.36 (Mixtral-8x7B, fitted at TP=2); before
session 45, which stopped charging a rank's host jitter to each collective of a step captured in a CUDA graph,
7.5%, 8.3% and 11.5%, every TP>1 row slow, and Mixtral 40.4% (a calibration's GEMM table timed its experts'
grouped GEMM as one expert's).
Llama-3.1-70B is run and printed but not held to the limits (KNOWN_MISS).
"""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tp_scaling  # noqa: E402

MEASURED = "tests/data/measured/gptfast-a100-tp-scaling.csv"
TEMPLATES = {"A100/Llama-2-7B": "scenarios/gptfast_llama2_7b_a100.yaml", "A100/Llama-3.1-8B": "scenarios/gptfast_llama31_8b_a100.yaml",
             "A100/Llama-2-70B": "scenarios/gptfast_llama2_70b_a100.yaml", "A100/Llama-3.1-70B": "scenarios/gptfast_llama31_70b_a100.yaml",
             "A100/Mixtral-8x7B": "scenarios/gptfast_mixtral_8x7b_a100.yaml"}
KNOWN_MISS = ("Llama-3.1-70B", "its TP=2 row (16.03 tokens/s) is 25% slower than Llama-2-70B's (21.32) with nearly the "
              "same weights a GPU, where TP=4 and TP=8 are within 6% of Llama-2-70B's: a fit on it carries 13 ms a step that "
              "the other TPs do not show")


def run(tpsim, keep, limits):
    """tp_scaling.py on the rows whose model `keep` accepts."""
    lines = [line for line in open(MEASURED) if not line.startswith("#")]
    rows = [r for r in csv.DictReader(lines) if keep(r["model"])]
    return tp_scaling.main_on(tpsim, lines[0], rows, TEMPLATES, limits)


if __name__ == "__main__":
    tpsim, check = sys.argv[1], "--check" in sys.argv
    failed = run(tpsim, lambda model: model != KNOWN_MISS[0], ["--check", "10", "15", "10"] if check else [])
    print(f"known miss, not held to the limits: {KNOWN_MISS[0]}: {KNOWN_MISS[1]}\n")
    run(tpsim, lambda model: model == KNOWN_MISS[0], [])
    sys.exit(failed)
