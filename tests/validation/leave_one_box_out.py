#!/usr/bin/env python3
"""Calibrate on one box, predict another: leave one box out over the recorded real logs.

For every log B of calibrate/recorded/manifest.yaml (with the platform and GPUs that describe
its machine), tpsim predicts B's measured curve
  * uncalibrated:  tpsim collective --platform PB --gpus GB --compare B.log
  * calibrated from every other box A that measured the same collective:
        tpsim fit A.log --platform PA --gpus GA -o A.yaml
        tpsim collective --platform PB --gpus GB --calibration A.yaml --compare B.log
and reads the "sizes >= 1 KiB: median |error|" line that --compare prints. A pair tpsim refuses
(exit status not 0, e.g. a calibration it cannot apply to B's rank count) is shown as refused,
with tpsim's message under the table; pairs are never skipped.

usage: leave_one_box_out.py TPSIM [--markdown FILE] [--check [MEDIAN WORSE]]   (run from the project root)
Prints the table (rows: the predicted log; columns: uncalibrated, then the fit of each log) and
a summary: the median over logs of the uncalibrated median error, the median of the
calibrated-from-another-box errors, and the pairs where calibrated is worse than uncalibrated
by more than 2 points. --markdown also writes the table as Markdown. --check exits 1 unless
every fit runs and every log is predicted uncalibrated; with MEDIAN WORSE also unless the median of
the calibrated-from-another-box errors is at most MEDIAN percent and at most WORSE pairs are more
than 2 points worse than uncalibrated and more than 2 points beyond the two boxes' own gap (box_gap:
the median |A / B - 1| of their measured times over the sizes both ran; a calibration reproduces
its own box) (the CTest's regression limits, tests/CMakeLists.txt). The summary gives both counts.
"""
import os
import re
import statistics
import subprocess
import sys
import tempfile

MANIFEST = "calibrate/recorded/manifest.yaml"
RECORDED = "calibrate/recorded"
WORSE_BY = 2.0  # percentage points: a calibration that costs more than this is counted
MEDIAN_RE = re.compile(r"sizes >= 1 KiB: median \|error\| ([0-9.]+)%")
FIT_RE = re.compile(r": (\w+) on (\d+) ranks")


def manifest_entries(path):
    """The manifest's `- log:` entries as dicts: log, platform, gpus, an optional nccl_version (the
    source's, for a log that does not print it), an optional net_transport (rdma or tcp, for a log whose
    command line says otherwise, as tpsim collective --net-transport), an optional algorithm and protocol (what a
    log's source says it forced and the log does not print, as --algorithm and --protocol) and an optional known_miss (no YAML library needed:
    the file is a list of such mappings, one key a line)."""
    entries, cur = [], None
    for line in open(path, encoding="utf-8"):
        line = line.split("#", 1)[0].rstrip()
        m = re.match(r"\s*(-\s+)?(log|platform|gpus|nccl_version|net_transport|algorithm|protocol|known_miss):\s*(.*)$", line)
        if not m:
            continue
        if m.group(1):
            cur = {}
            entries.append(cur)
        value = m.group(3).strip()
        if m.group(2) == "gpus":
            value = ",".join(v.strip() for v in value.strip("[]").split(","))
        cur[m.group(2)] = value
    for e in entries:
        if not {"log", "platform", "gpus"} <= set(e):
            sys.exit("%s: an entry lacks log, platform or gpus: %s" % (path, e))
    return entries


def manifest(path):
    """[(log, platform, gpus)] of the manifest's entries."""
    return [(e["log"], e["platform"], e["gpus"]) for e in manifest_entries(path)]


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr.strip()


def median_error(out):
    m = MEDIAN_RE.findall(out)
    return float(m[-1]) if m else None


COMPARED_RE = re.compile(r"^#\s+(\d+)\s+([0-9.]+)\s+[0-9.]+\s+([-+][0-9.]+)$", re.M)


def compared_rows(out):
    """[(size (B), measured out-of-place time (us), error (%))] of the table --compare prints."""
    return [(int(size), float(t), float(err)) for size, t, err in COMPARED_RE.findall(out)]


def measured_times(out):
    """size (B) -> the measured out-of-place time (us) of the table --compare prints."""
    return {size: t for size, t, _ in compared_rows(out)}


def box_gap(a, b):
    """Median over the sizes >= 1 KiB both logs measured of |a / b - 1|, in percent: how far apart
    two real boxes are; None when they share no size."""
    common = [s for s in a if s in b and s >= 1024]
    return statistics.median(abs(a[s] / b[s] - 1) * 100 for s in common) if common else None


def worse(uncalibrated, calibrated):
    """A calibration from another box more than WORSE_BY points worse than no calibration."""
    return calibrated > uncalibrated + WORSE_BY


def beyond_gap(calibrated, gap):
    """Also more than WORSE_BY points beyond the two boxes' own gap (or no gap to excuse it): a
    calibration reproduces its box, so it cannot be closer to another than their logs are."""
    return gap is None or calibrated > gap + WORSE_BY


def fit_all(tpsim, logs, work):
    """log -> (op, ranks, calibration path) or (None, None, tpsim's message)."""
    fits = {}
    for log, plat, gpus in logs:
        out_yaml = os.path.join(work, os.path.splitext(log)[0] + ".yaml")
        rc, out, err = run([tpsim, "fit", os.path.join(RECORDED, log), "--platform", plat, "--gpus", gpus, "-o", out_yaml])
        m = FIT_RE.search(out)
        fits[log] = (m.group(1), int(m.group(2)), out_yaml) if rc == 0 and m else (None, None, err or out)
    return fits


def predict(tpsim, logs, fits):
    """rows: [(log, uncalibrated %, {fit log: % | 'refused' | None (other op)})], refusals, and each
    log's measured times (measured_times)."""
    rows, refusals, times = [], [], {}
    for log, plat, gpus in logs:
        base = [tpsim, "collective", "--platform", plat, "--gpus", gpus, "--compare", os.path.join(RECORDED, log)]
        rc, out, err = run(base)
        unc = median_error(out) if rc == 0 else None
        times[log] = measured_times(out)
        if rc != 0:
            refusals.append((log, "uncalibrated", err))
        cells = {}
        for src, _, _ in logs:
            op, ranks, cal = fits[src]
            if src == log or op is None or op != fits[log][0]:
                cells[src] = None
                continue
            rc, out, err = run(base + ["--calibration", cal])
            cells[src] = median_error(out) if rc == 0 else "refused"
            if rc != 0:
                refusals.append((log, src, err))
        rows.append((log, unc, cells))
    return rows, refusals, times


def calibrated_pairs(rows, times):
    """[(uncalibrated %, calibrated-from-another-box %, the two boxes' own gap % or None)] of every
    pair tpsim predicted."""
    return [(u, c, box_gap(times[src], times[log])) for log, u, cells in rows for src, c in cells.items()
            if isinstance(c, float) and u is not None]


def calibrated_figures(rows, times):
    """(median of the calibrated-from-another-box errors, pairs worse(), those of them beyond_gap())."""
    pairs = calibrated_pairs(rows, times)
    med = statistics.median([c for _, c, _ in pairs]) if pairs else float("nan")
    bad = [(c, gap) for u, c, gap in pairs if worse(u, c)]
    return med, len(bad), sum(1 for c, gap in bad if beyond_gap(c, gap))


def summary(rows, times):
    unc = [u for _, u, _ in rows if u is not None]
    pairs = len(calibrated_pairs(rows, times))
    med, worse, beyond = calibrated_figures(rows, times)
    refused = sum(1 for _, _, cells in rows for c in cells.values() if c == "refused")
    return ("median over logs of the uncalibrated median |error|: %.1f%%; of the calibrated-from-another-box "
            "errors: %.1f%% (%d pairs); calibrated worse than uncalibrated by more than %g points: %d of %d (%d also "
            "beyond the two boxes' own gap); refused: %d" % (statistics.median(unc) if unc else float("nan"), med, pairs,
                                                              WORSE_BY, worse, pairs, beyond, refused))


def cell(v):
    return "–" if v is None else v if isinstance(v, str) else "%.1f%%" % v


def table(rows, fits, logs, markdown):
    """Rows numbered 1..n are the predicted logs; column k is the fit of log k."""
    names = [log for log, _, _ in logs]
    head = ["predicted log (op, ranks)", "uncalibrated"] + ["fit %d" % (i + 1) for i in range(len(names))]
    body = []
    for i, (log, unc, cells) in enumerate(rows):
        op, ranks, _ = fits[log]
        label = "%d. %s (%s, %s)" % (i + 1, log, op or "?", ranks or "?")
        body.append([label, cell(unc) if unc is not None else "failed"] + [cell(cells[n]) for n in names])
    if markdown:
        lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        lines += ["| " + " | ".join(r) + " |" for r in body]
        return "\n".join(lines)
    widths = [max(len(r[c]) for r in [head] + body) for c in range(len(head))]
    fmt = lambda r: "  ".join(v.ljust(widths[0]) if c == 0 else v.rjust(widths[c]) for c, v in enumerate(r))
    return "\n".join(fmt(r) for r in [head] + body)


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        sys.exit(__doc__)
    tpsim, check, md_path = args[0], "--check" in args, None
    if "--markdown" in args:
        i = args.index("--markdown")
        if i + 1 >= len(args):
            sys.exit("--markdown needs a file")
        md_path = args[i + 1]
    logs = manifest(MANIFEST)
    with tempfile.TemporaryDirectory() as work:
        fits = fit_all(tpsim, logs, work)
        rows, refusals, times = predict(tpsim, logs, fits)
    print("Leave one box out: median |error| of tpsim collective --compare, sizes >= 1 KiB")
    print(table(rows, fits, logs, markdown=False))
    print(summary(rows, times))
    for log, src, err in refusals:
        print("refused: %s predicted %s: %s" % (log, "uncalibrated" if src == "uncalibrated" else "from the fit of " + src,
                                                 err.splitlines()[-1] if err else "(no message)"))
    for log, (op, _, msg) in fits.items():
        if op is None:
            print("fit failed: %s: %s" % (log, msg.splitlines()[-1] if msg else "(no message)"))
    if md_path:
        text = table(rows, fits, logs, markdown=True) + "\n\n" + summary(rows, times) + "\n"
        for log, src, err in refusals:
            text += "\nRefused: %s from the fit of %s: `%s`\n" % (log, src, err.splitlines()[-1] if err else "")
        with open(md_path, "w", encoding="utf-8") as f:
            f.write(text)
    if check:
        failed = [log for log, (op, _, _) in fits.items() if op is None] + [log for log, unc, _ in rows if unc is None]
        if failed:
            print("check failed: no fit or no uncalibrated prediction for " + ", ".join(failed), file=sys.stderr)
            return 1
        limits = args[args.index("--check") + 1:args.index("--check") + 3]
        if len(limits) == 2 and not any(x.startswith("-") for x in limits):
            med, _, beyond = calibrated_figures(rows, times)
            if med > float(limits[0]) or beyond > int(limits[1]):
                print("check failed: calibrated-from-another-box median %.1f%% (limit %s%%), %d pairs more than %g points worse "
                      "than uncalibrated and than the two boxes' own gap (limit %s)" % (med, limits[0], beyond, WORSE_BY, limits[1]),
                      file=sys.stderr)
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
