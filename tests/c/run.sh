#!/usr/bin/env bash
# Runs the C core's tests (built with ASan/UBSan; LSan reports leaks).
# Mesa's lavapipe keeps some allocations for the life of the process;
# tests/c/lsan.supp names those, and only those, driver libraries.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$here/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export RUSSET_PROFILE="${RUSSET_PROFILE:-apple}"
export RUSSET_CACHE_DIR="${RUSSET_CACHE_DIR:-$HOME/.cache/russet}"
status=0
for t in "$@"; do
    echo "== $t"
    "$t" || status=1
done
exit $status
