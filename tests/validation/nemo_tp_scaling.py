#!/usr/bin/env python3
"""Calibrate on TP=1, predict TP=2/4/8: tpsim against NVIDIA's published NeMo/TensorRT-LLM
latencies of Llama-2-7B on DGX A100 and DGX H100 (tests/data/measured/, whole requests of
128 input and 20 output tokens, batch 1-8), through the general tool tests/validation/tp_scaling.py
(what it fits on the TP=1 rows and what it predicts: see its docstring).

usage: nemo_tp_scaling.py TPSIM [--check]   (run from the project root)
With --check (the CTest, and ../shared/checks/tp-scaling) it exits 1 unless, on each GPU, the
TP=2/4/8 errors have a median within 5% and none beyond 12%, and the batch-1 TP=1 -> TP=8 speedup
is within 10% of the measured one (the TP-scaling issue's bar). Session 45: A100 3.4% / 6.4% / x1.84
against x1.71 (+7.6%); H100 3.3% / 6.9% / x1.54 against x1.58 (-2.5%): inside, not by much.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tp_scaling  # noqa: E402

MEASURED = "tests/data/measured/nemo-trtllm-llama2-7b-tp-scaling.csv"
TEMPLATES = {"A100": "scenarios/nemo_llama2_7b_a100.yaml", "H100": "scenarios/nemo_llama2_7b_h100.yaml"}

if __name__ == "__main__":
    args = [sys.argv[1], MEASURED] + [x for g, t in TEMPLATES.items() for x in ("--template", f"{g}={t}")]
    limits = ["--check", "5", "12", "10"] if "--check" in sys.argv else []
    sys.argv = [sys.argv[0]] + args + limits
    sys.exit(tp_scaling.main())
