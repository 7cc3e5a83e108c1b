#!/usr/bin/env python3
"""Published nccl-tests logs the collective model was never fitted on, predicted.

For every log of tests/data/measured/nccl/manifest.yaml (with the platform and GPUs that stand
for its machine) tpsim predicts the measured curve
  * uncalibrated:  tpsim collective --platform P --gpus G --compare LOG
  * calibrated on another box: with the fit of every log of calibrate/recorded/manifest.yaml
    that measured the same collective on as many ranks, or, for a log across nodes, across nodes
    on any number of them (tpsim fit A.log --platform PA --gpus GA)
and reads the "sizes >= 1 KiB: median |error|" line --compare prints.

usage: held_out_collectives.py TPSIM [--check MEDIAN WORST]   (run from the project root)
--check exits 1 unless every log predicts, the median over logs of the uncalibrated medians is at
most MEDIAN percent and each at most WORST, and no calibration from another box is more than 2
points worse than uncalibrated unless the two boxes themselves measured that far apart: a
calibration reproduces the box it was fitted on, so on a box whose own log differs from it by G%
(box_gap: median |A / B - 1| over the sizes both ran) it is counted as transferring faithfully up
to G + 2. Each such pair is printed with its gap, and it still misses the issue's "no worse than
uncalibrated": the figure says so. Each log is also fitted on itself (tpsim fit on its own
platform, told what the manifest forces: --protocol, --algorithm, --nccl-version, --net-transport)
and predicted with that fit: a calibration must reproduce the box it measured (at most SELF_LIMIT
percent median, and within REPLAY_SLACK points of the median tpsim fit reported), known misses included; a log too short to fit is printed as refused. A manifest entry with `known_miss: WHY` is predicted and printed
with its reason, and counted in a second median over all logs, but the limits gate the others: a
miss tpsim has no mechanism for yet stays visible without hiding a regression elsewhere.

A second table gives each log's signed error by size band (the median of simulated / measured - 1
over the sizes in the band; negative: tpsim predicts the collective faster than the box ran it, the
direction that makes TP and EP look cheaper than they are) and, under it, how many logs the model
runs more than BIAS percent fast or slow in each band: where the model leans one way across boxes,
not one box's noise.
"""
import os
import re
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from leave_one_box_out import (MANIFEST, RECORDED, WORSE_BY, beyond_gap, box_gap, compared_rows, fit_all, manifest,  # noqa: E402
                               manifest_entries, measured_times, median_error, run, worse)

HELD_OUT = "tests/data/measured/nccl"
SELF_LIMIT = 10.0
BIAS = 10.0  # percent: a band's signed median beyond this counts the log as fast or slow there
# Size bands (B, half-open): latency-bound, LL's climb, LL128/the protocol switches, bandwidth-bound.
BANDS = ((1024, 64 << 10), (64 << 10, 1 << 20), (1 << 20, 16 << 20), (16 << 20, 256 << 20), (256 << 20, 1 << 62))
BAND_NAMES = ("1-64 KiB", "64 KiB-1 MiB", "1-16 MiB", "16-256 MiB", ">= 256 MiB")
FORCED = ("nccl_version", "net_transport", "algorithm", "protocol")


def fitted_nodes(calibration):
    """The nodes a calibration's first collective was fitted on (1 when it does not say)."""
    with open(calibration) as f:
        m = re.search(r"^\s+nodes: (\d+)", f.read(), re.M)
    return int(m.group(1)) if m else 1


def forced_args(e):
    """What the manifest says the log forced, as tpsim's options: --protocol, --algorithm, --nccl-version, --net-transport."""
    return sum((["--" + k.replace("_", "-"), e[k]] for k in FORCED if k in e), [])


# A fit's replay may differ from the median |error| tpsim fit reports for it by rounding only (percent).
REPLAY_SLACK = 0.5


def own_fit(tpsim, e, base, work):
    """The log predicted with its own fit: (median %, None), or (None, why the fit refused or why its replay
    is not the fit it reported)."""
    yaml = os.path.join(work, "own.yaml")
    fit = [tpsim, "fit", os.path.join(HELD_OUT, e["log"]), "--platform", e["platform"], "--gpus", e["gpus"], "-o", yaml]
    rc, fit_out, err = run(fit + forced_args(e))
    if rc != 0:
        return None, err.strip().splitlines()[-1]
    rc, out, err = run(base + ["--calibration", yaml])
    if rc != 0:
        return None, err.strip()
    reported = re.search(r"sizes >= 1 KiB: median ([0-9.]+)%", fit_out)
    replayed = median_error(out)
    if reported and replayed is not None and abs(float(reported.group(1)) - replayed) > REPLAY_SLACK:
        return None, "its replay, %.1f%%, is not the fit tpsim fit reported, %s%%" % (replayed, reported.group(1))
    return replayed, None


def band_errors(out):
    """The signed median error (percent) of each of BANDS over the sizes --compare printed, None
    where the log has no size in the band."""
    rows = compared_rows(out)
    medians = []
    for lo, hi in BANDS:
        errors = [err for size, _, err in rows if lo <= size < hi]
        medians.append(statistics.median(errors) if errors else None)
    return medians


def print_bands(bands, misses):
    """The per-log band table and, per band, the logs (known misses left out) beyond +-BIAS."""
    print("\nsigned error by size band (median of simulated / measured - 1, %; negative: tpsim too fast)")
    print("%-52s" % "log" + "".join("%14s" % name for name in BAND_NAMES))
    for log, medians in bands:
        print("%-52s" % log[:52] + "".join("%14s" % ("-" if m is None else "%+.1f" % m) for m in medians) +
              ("  (known miss)" if log in misses else ""))
    gated = [medians for log, medians in bands if log not in misses]
    fast = ["%d fast / %d slow of %d" % (sum(m[i] < -BIAS for m in gated if m[i] is not None),
                                         sum(m[i] > BIAS for m in gated if m[i] is not None),
                                         sum(m[i] is not None for m in gated)) for i in range(len(BANDS))]
    print("beyond %.0f%% (gated logs): %s" % (BIAS, "; ".join("%s %s" % (n, f) for n, f in zip(BAND_NAMES, fast))))


def main(argv):
    if len(argv) not in (2, 5) or argv[1].startswith("-") or len(argv) == 5 and argv[2] != "--check":
        sys.exit(__doc__)
    tpsim = argv[1]
    check = len(argv) == 5 and argv[2] == "--check"
    median_limit, worst_limit = (float(argv[3]), float(argv[4])) if check else (float("inf"), float("inf"))
    medians, all_medians, bands = [], [], []
    recorded = manifest(MANIFEST)
    held_out = manifest_entries(os.path.join(HELD_OUT, "manifest.yaml"))
    misses = {e["log"]: e["known_miss"] for e in held_out if "known_miss" in e}
    ok = True
    with tempfile.TemporaryDirectory() as work:
        fits = fit_all(tpsim, recorded, work)
        multi_node = {src: op is not None and fitted_nodes(cal) > 1 for src, (op, _, cal) in fits.items()}
        source_times = {log: measured_times(run([tpsim, "collective", "--platform", plat, "--gpus", gpus, "--compare",
                                                 os.path.join(RECORDED, log)])[1]) for log, plat, gpus in recorded}
        worse_pairs = 0
        for e in held_out:
            log, plat, gpus = e["log"], e["platform"], e["gpus"]
            base = [tpsim, "collective", "--platform", plat, "--gpus", gpus, "--compare", os.path.join(HELD_OUT, log)] + forced_args(e)
            rc, out, err = run(base)
            unc = median_error(out) if rc == 0 else None
            times = measured_times(out)
            if rc == 0:
                bands.append((log, band_errors(out)))
            calibrated = {}
            # The sweep's header names the op as the log does (alltoall), the fit as tpsim does (all_to_all).
            op_here = re.search(r"collective: (\w+) on", out).group(1).replace("_", "") if unc is not None else None
            across = ", NET)" in out
            for src, (op, ranks, cal) in fits.items():
                if op is not None and op.replace("_", "") == op_here and (ranks == len(gpus.split(",")) or across and multi_node[src]):
                    rc, out, _ = run(base + ["--calibration", cal])
                    calibrated[src] = median_error(out) if rc == 0 else None
            gaps = {src: box_gap(source_times[src], times) for src in calibrated}
            own, refused = own_fit(tpsim, e, base, work)
            if (own is not None and own > SELF_LIMIT) or (refused or "").startswith("its replay"):
                ok = False
            bad = {src for src, c in calibrated.items() if c is not None and unc is not None and worse(unc, c)}
            shown = ", ".join("%s %s%s" % (src, "refused" if c is None else "%.1f%%" % c,
                                           " (worse than uncalibrated; the boxes' own logs differ by %s)" %
                                           ("?" if gaps[src] is None else "%.1f%%" % gaps[src]) if src in bad else "")
                              for src, c in calibrated.items())
            print("%s: uncalibrated %s; fitted on itself %s; calibrated on another box: %s%s" %
                  (log, "refused (%s)" % err if unc is None else "%.1f%%" % unc, "%.1f%%" % own if own is not None else "refused (%s)" % refused,
                   shown or "none", "; known miss: " + misses[log] if log in misses else ""))
            if unc is not None:
                all_medians.append(unc)
            if log in misses and unc is not None:
                continue
            if unc is None or any(c is None for c in calibrated.values()):
                ok = False
            elif unc > worst_limit or any(beyond_gap(calibrated[src], gaps[src]) for src in bad):
                ok = False
            worse_pairs += len(bad)
            if unc is not None:
                medians.append(unc)
    print("median over logs of the uncalibrated median |error|: %.1f%% (%d logs; with the %d known misses: %.1f%%)" %
          (statistics.median(medians), len(medians), len(all_medians) - len(medians), statistics.median(all_medians)))
    print("calibrated on another box more than %.0f points worse than uncalibrated: %d pairs" % (WORSE_BY, worse_pairs))
    print_bands(bands, misses)
    ok = ok and statistics.median(medians) <= median_limit
    if check and not ok:
        print("FAIL: a log did not predict, or missed the limits (median <= %.1f%%, each <= %.1f%%, calibrated no more than %.0f points "
              "worse unless the boxes differ as much, each fitted on itself <= %.0f%% and replayed as tpsim fit reported it)" % (median_limit, worst_limit, WORSE_BY, SELF_LIMIT))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
