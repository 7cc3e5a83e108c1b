#!/usr/bin/env python3
"""Calibrate at the smallest TP, predict the others: tpsim against any published TP-scaling set.

usage: tp_scaling.py TPSIM MEASURED.csv --template GPU[/MODEL]=SCENARIO [--template ...]
                     [--fit host|host+sequence] [--engine-set KEY=VALUE ...] [--check MEDIAN WORST [SPEEDUP]]
                     (run from the project root)

MEASURED.csv has one row per measurement:
    engine,gpu,model,tp,batch,input_tokens,output_tokens,metric,measured,unit,source
metric: e2e (whole request of a closed batch: prefill and output_tokens - 1 decode steps), ttft or
tpot, in ms (unit ms) or s (any other unit). The scenario template of a GPU names the platform, the model card, the dtype, the
calibration and anything else (GPU/MODEL, the rows' model column after a slash, picks a template for
one model's rows; GPU alone serves the rest); its configs, workload and sweep are replaced: one configuration per
TP in the rows (TP=t on GPUs 0..t-1), a closed batch of the rows' lengths, a sweep over their
batches. Its engine is the engine profile the rows' engine names (vLLM, SGLang, TensorRT-LLM, TGI)
unless the template sets `engine: NAME`; --engine-set KEY=VALUE sets one more key of it for every
group (`--engine-set cuda_graphs=false` for an engine release that ran without CUDA graphs).

What is fitted, on the rows of the set's smallest TP only (TP=1 where the set has it; a set that
starts at TP=2 fits there): the engine's host time per step h and, when those rows hold two or more
batch sizes, its host time per sequence per step c (engine.host_overhead and
engine.host_per_sequence, not overlapped with the GPU), by least squares; the simulated metric is
linear in both (each step pays h + c x its sequences), so three runs give the coefficients. Costs
that grow with TP (collectives, the engine's all-reduce, narrow shards, the slowest rank) are
tpsim's own model and are never fitted. The other TPs' rows are predicted with the fitted h and c.
Prints: group, TP, batch, measured, predicted, error; per group the median and worst |error| over
the predicted rows and the batch-1 TP=min -> TP=max speedup, measured and predicted. --check exits 1 when a group's
median or worst |error| (percent) is above MEDIAN or WORST, or its predicted speedup is more than
SPEEDUP percent from the measured one.
"""
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile

PROFILES = (("tensorrt-llm", "trtllm"), ("trtllm", "trtllm"), ("vllm", "vllm"), ("sglang", "sglang"),
            ("text-generation-inference", "tgi"), ("tgi", "tgi"))
REPLACED = ("configs", "workload", "sweep", "engine")


def profile_of(engine):
    e = engine.lower()
    return next((p for key, p in PROFILES if key in e), "")


def read_rows(path):
    rows = []
    for r in csv.DictReader(line for line in open(path) if not line.startswith("#")):
        rows.append({"engine": r["engine"], "gpu": r["gpu"], "model": r["model"], "tp": int(r["tp"]), "batch": int(r["batch"]),
                     "input": int(r["input_tokens"]), "output": int(r["output_tokens"]), "metric": r["metric"],
                     "measured_s": float(r["measured"]) / 1e3 if r["unit"] == "ms" else float(r["measured"])})
    return rows


def template_text(path):
    """The template without the keys the tool writes, paths made absolute; and its one-line engine
    (`engine: NAME` or `engine: {name: NAME, key: value}`) as {key: value}."""
    base, lines, skipping, engine = os.path.dirname(os.path.abspath(path)), [], False, {}
    for line in open(path):
        key, _, value = line.partition(":")
        top = line[:1] not in (" ", "\t", "#", "\n", "-")
        if top:
            skipping = key.strip() in REPLACED
            text = value.split("#")[0].strip()
            if key.strip() == "engine" and text:
                pairs = [kv.split(":", 1) for kv in text.strip("{}").split(",")] if text.startswith("{") else [["name", text]]
                engine = {k.strip(): v.strip() for k, v in pairs}
        if skipping:
            continue
        if top and key in ("platform", "model", "calibration", "trace"):
            line = f"{key}: {os.path.join(base, value.split('#')[0].strip())}\n"
        lines.append(line)
    return "".join(lines), engine


def scenario(template, engine, tps, batches, inp, out, h, c):
    configs = "".join(f"  - {{name: TP={t}, tp: {t}, layout: [[{', '.join(map(str, range(t)))}]]}}\n" for t in tps)
    return (template + "engine:\n" + "".join(f"  {k}: {v}\n" for k, v in engine.items()) +
            f"  host_overhead: {h * 1e6:.4f}us\n  host_per_sequence: {c * 1e6:.4f}us\n  host_overlap: false\n"
            f"workload:\n  arrivals: closed\n  batch: {batches[0]}\n  prompt_tokens: {inp}\n  output_tokens: {out}\n"
            f"configs:\n{configs}sweep:\n  parameter: workload.batch\n  values: [{', '.join(map(str, batches))}]\n")


METRIC = {"e2e": lambda c: c["e2e_ms"]["mean"], "ttft": lambda c: c["ttft_ms"]["p50"], "tpot": lambda c: c["tpot_ms"]["p50"]}


def simulate(tpsim, text, metric):
    """{(tp, batch): the metric in s}, or (for a configuration tpsim refuses, such as one whose KV cache
    does not fit) {(tp, batch): its reason}."""
    with tempfile.TemporaryDirectory() as d:
        path, out = os.path.join(d, "s.yaml"), os.path.join(d, "r.json")
        open(path, "w").write(text)
        subprocess.run([tpsim, path, "--quiet", "--json", out], check=True, stdout=subprocess.DEVNULL)
        result = json.load(open(out))
    return {(c["tp"], int(p["value"])): METRIC[metric](c) / 1e3 if c.get("fits", True) else c.get("not_fitting_reason", "refused")
            for p in result["sweep"]["points"] for c in p["configs"]}


def solve(rows, fit_sequences):
    """Least squares of m = s0 + a h + b c over the TP=1 rows: rows are (m, s0, a, b)."""
    saa = sum(a * a for _, _, a, _ in rows)
    sar = sum(a * (m - s) for m, s, a, _ in rows)
    if not fit_sequences:
        return max(sar / saa, 0.0), 0.0
    sbb, sab = sum(b * b for *_, b in rows), sum(a * b for _, _, a, b in rows)
    sbr = sum(b * (m - s) for m, s, _, b in rows)
    det = saa * sbb - sab * sab
    h, c = (sar * sbb - sbr * sab) / det, (saa * sbr - sab * sar) / det
    # Neither time can be negative (the rows then say more about what tpsim does not model, such as an
    # engine preempting sequences its KV cache cannot hold): the other term alone, as far as it is >= 0.
    if c < 0:
        return max(sar / saa, 0.0), 0.0
    if h < 0:
        return 0.0, max(sbr / sbb, 0.0)
    return h, c


def run_group(tpsim, rows, template_path, fit_mode, settings):
    template, engine = template_text(template_path)
    engine.update(settings)
    if "name" not in engine and profile_of(rows[0]["engine"]):
        engine["name"] = profile_of(rows[0]["engine"])
    tps, batches = sorted({r["tp"] for r in rows}), sorted({r["batch"] for r in rows})
    # A sweep takes two values or more: a set of one batch size also runs the next one, unread.
    batches += [batches[0] + 1] if len(batches) == 1 else []
    r0 = rows[0]
    run = lambda h, c: simulate(tpsim, scenario(template, engine, tps, batches, r0["input"], r0["output"], h, c), r0["metric"])
    probe = 1e-3
    s0, sh, sc = run(0, 0), run(probe, 0), run(0, probe)
    t0 = tps[0]
    fitted = [r for r in rows if r["tp"] == t0 and not isinstance(s0[(t0, r["batch"])], str)]
    if not fitted:
        return engine, None, None, None
    fit_sequences = fit_mode == "host+sequence" and len({r["batch"] for r in fitted}) >= 2
    h, c = solve([(r["measured_s"], s0[(t0, r["batch"])], (sh[(t0, r["batch"])] - s0[(t0, r["batch"])]) / probe,
                   (sc[(t0, r["batch"])] - s0[(t0, r["batch"])]) / probe) for r in fitted], fit_sequences)
    return engine, h, c, run(h, c)


def main():
    args = sys.argv[1:]
    tpsim, measured = args[0], args[1]
    templates = dict(a.split("=", 1) for a in (args[i + 1] for i, x in enumerate(args) if x == "--template"))
    fit_mode = args[args.index("--fit") + 1] if "--fit" in args else "host+sequence"
    settings = dict(args[i + 1].split("=", 1) for i, x in enumerate(args) if x == "--engine-set")
    limits = None
    if "--check" in args:
        numbers = [x for x in args[args.index("--check") + 1:args.index("--check") + 4] if x.replace(".", "", 1).isdigit()]
        limits = tuple(float(x) / 100 for x in numbers) + (float("inf"),) * (3 - len(numbers))
    groups = {}
    for r in read_rows(measured):
        groups.setdefault((r["gpu"], r["engine"], r["model"], r["input"], r["output"], r["metric"]), []).append(r)
    failed = []
    print("gpu   TP batch  measured (ms)  predicted (ms)  error")
    for key, rows in groups.items():
        gpu = key[0]
        template = templates.get(f"{gpu}/{key[2]}", templates.get(gpu))
        if not template:
            sys.exit(f"no --template {gpu}=SCENARIO (or {gpu}/{key[2]}=SCENARIO) for the rows of {gpu}, {key[2]}")
        engine, h, c, pred = run_group(tpsim, rows, template, fit_mode, settings)
        if pred is None:
            print(f"{gpu} ({key[1]}, {key[2]}, {key[3]}/{key[4]} tokens): no row of its smallest TP tpsim can run, nothing to fit: skipped\n")
            continue
        errors, by, t0 = [], {}, min(r["tp"] for r in rows)
        for r in sorted(rows, key=lambda r: (r["tp"], r["batch"])):
            p, m = pred[(r["tp"], r["batch"])], r["measured_s"]
            if isinstance(p, str):
                print(f"{gpu}  {r['tp']:3d} {r['batch']:5d}  {m * 1e3:13.1f}  not simulated: {p}")
                continue
            by[(r["tp"], r["batch"])] = (m, p)
            err = p / m - 1
            if r["tp"] > t0:
                errors.append(abs(err))
            print(f"{gpu}  {r['tp']:3d} {r['batch']:5d}  {m * 1e3:13.1f}  {p * 1e3:14.1f}  {err * 100:+5.1f}%" + ("   (fit)" if r["tp"] == t0 else ""))
        tmax = max(t for t, b in by if b == 1) if any(b == 1 for _, b in by) else 0
        has_speedup = (t0, 1) in by and tmax > t0
        predicted_x, measured_x = (by[(t0, 1)][1] / by[(tmax, 1)][1], by[(t0, 1)][0] / by[(tmax, 1)][0]) if has_speedup else (1, 1)
        speed = f"; batch-1 TP={t0} -> TP={tmax} speedup x{predicted_x:.2f} (measured x{measured_x:.2f})" if has_speedup else ""
        med, worst = (statistics.median(errors), max(errors)) if errors else (0, 0)
        tp_errors = f"median |error| {med * 100:.1f}%, worst {worst * 100:.1f}%" if errors else "no rows to predict"
        print(f"{gpu} ({key[1]}, {key[2]}, {key[3]}/{key[4]} tokens, {key[5]}; engine {engine or 'none'}): "
              f"fitted on TP={t0}: h = {h * 1e3:.3f} ms per step, c = {c * 1e3:.3f} ms per sequence per step; "
              f"TP>{t0}: {tp_errors}{speed}\n")
        if limits and (med > limits[0] or worst > limits[1] or abs(predicted_x / measured_x - 1) > limits[2]):
            failed.append(gpu)
    if failed:
        print(f"outside the limits (median {limits[0]:.0%}, worst {limits[1]:.0%}, speedup {limits[2]:.0%}): {', '.join(failed)}")
        return 1
    return 0


def main_on(tpsim, header, rows, templates, extra=()):
    """main() on some rows of a set (dicts of its CSV's columns, `header` its column line), with its templates
    ({"GPU[/MODEL]": SCENARIO}) and more arguments (--check, --engine-set): what a set's own script runs."""
    with tempfile.NamedTemporaryFile("w", suffix=".csv", delete=False) as f:
        f.write(header)
        csv.DictWriter(f, fieldnames=header.strip().split(","), lineterminator="\n").writerows(rows)
    sys.argv = [sys.argv[0], tpsim, f.name] + [x for k, t in templates.items() for x in ("--template", f"{k}={t}")] + list(extra)
    try:
        return main()
    finally:
        os.unlink(f.name)


if __name__ == "__main__":
    sys.exit(main())
