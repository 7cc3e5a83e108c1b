#!/usr/bin/env python3
"""Every doctest::Approx in the C++ tests states its scale.

doctest's Approx(x) passes when |a - x| < epsilon x (scale + max(|a|, |x|)), and its scale is 1 by
default: for a quantity far below 1 (a time in seconds, 1e-4 for 100 us) that is an absolute
tolerance of epsilon (1.2e-5 by default, 1e-3 with .epsilon(1e-3)), so a check of 138.4 us passed
for any value within 12 us, or 1 ms. A relative comparison says .scale(0); one that means an
absolute tolerance says .scale(...) on purpose. Prints each Approx that does not, and exits 1.

usage: approx_has_scale.py DIR...
"""
import pathlib
import sys


def unscaled(text):
    """(line, expression) of each doctest::Approx(...) not followed by .scale(."""
    key, found, i = "doctest::Approx(", [], 0
    while (j := text.find(key, i)) >= 0:
        k, depth = j + len(key), 1
        while depth:
            depth += {"(": 1, ")": -1}.get(text[k], 0)
            k += 1
        if not text.startswith(".scale(", k) and ".scale(" not in text[k:text.find(";", k)]:
            found.append((text.count("\n", 0, j) + 1, text[j:k]))
        i = k
    return found


def main(dirs):
    if not dirs:
        sys.exit(__doc__)
    bad = [(f, line, e) for d in dirs for f in sorted(pathlib.Path(d).glob("*.cpp")) for line, e in unscaled(f.read_text())]
    for f, line, e in bad:
        print(f"{f}:{line}: {e} has no .scale(): doctest's default scale 1 makes it an absolute tolerance")
    print(f"{len(bad)} doctest::Approx without a scale")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
