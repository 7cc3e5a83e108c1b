#!/usr/bin/env bash
# The whole test suite under AddressSanitizer + UndefinedBehaviorSanitizer:
#   tests/sanitize.sh [ctest arguments...]          (e.g. -R engine)
# Configures and builds build-asan with the `asan` preset (-fsanitize=address,undefined,
# UBSan not recoverable) and runs ctest there. Every report is fatal: ASan errors abort, UBSan
# halts on its first error, LeakSanitizer checks every process at exit.
#
# Suppressions: none are needed today. tpsim's code is clean, and SimGrid 3.32 (built by Debian
# without sanitizers) makes ASan print one warning per engine process, "ASan is ignoring
# requested __asan_handle_no_return": SimGrid switches its actors' stacks itself, which ASan
# notices; it is a warning, not an error, and no report follows from it in this suite. If a
# report from inside libsimgrid ever needs silencing, put it in tests/sanitizers.supp (a
# `leak:libsimgrid.so` line for LeakSanitizer, or `<check>:libsimgrid.so` for UBSan) with a
# comment saying why; this script passes that file to both when it exists. Never suppress
# tpsim's own code: fix it.
set -euo pipefail
cd "$(dirname "$0")/.."
supp="$PWD/tests/sanitizers.supp"
extra=""
[ -f "$supp" ] && extra=":suppressions=$supp"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=0}
export LSAN_OPTIONS=${LSAN_OPTIONS:-print_suppressions=0$extra}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1$extra}
cmake --preset asan -G Ninja >/dev/null
cmake --build build-asan -j"${JOBS:-2}"
ctest --test-dir build-asan --output-on-failure -j"${JOBS:-2}" "$@"
