#!/usr/bin/env bash
# Runs the C core's tests (built with ASan/UBSan; LSan reports leaks).
# Mesa's lavapipe keeps some allocations for the life of the process;
# tests/c/lsan.supp names those, and only those, driver libraries.
set -uo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1"
export LSAN_OPTIONS="suppressions=$here/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# both profiles unless one is asked for: apple is the product, native
# (fp64 on lavapipe) keeps the double paths compiling
profiles="${RUSSET_PROFILE:-apple native}"
export RUSSET_CACHE_DIR="${RUSSET_CACHE_DIR:-$HOME/.cache/russet}"
# The Vulkan loader unloads the driver at vkDestroyInstance, after which
# LSan cannot name the module of the driver's own leaks. Keep the installed
# drivers loaded (ASan's runtime must come first in LD_PRELOAD).
# CTEST_PLAIN=1: binaries built without the sanitizers (bench/gpu.sh on the
# H200, whose driver LSan knows nothing of): no preload at all
preload="$(gcc -print-file-name=libasan.so)"
for icd in /usr/share/vulkan/icd.d/*.json; do
    [ -e "$icd" ] || continue
    lib=$(sed -n 's/.*"library_path" *: *"\([^"]*\)".*/\1/p' "$icd")
    if [ -n "$lib" ] && [ -e "$lib" ]; then preload="$preload $lib"; fi
done
if [ "${CTEST_PLAIN:-0}" = 1 ]; then preload=""; fi
export LD_PRELOAD="$preload"
status=0
for t in "$@"; do
    for p in $profiles; do
        echo "== $t (RUSSET_PROFILE=$p)"
        # test_runtime's native run also captures pipeline statistics
        # (rs_kernel_describe; pipelines then bypass the pipeline cache)
        stats=0
        case "$t:$p" in *test_runtime:native) stats=1 ;; esac
        RUSSET_PIPELINE_STATS=$stats RUSSET_PROFILE=$p "$t" || status=1
        # the pointwise tests again with c10's software float16 conversions
        # (lavapipe passes the device check, so the default run takes the
        # device's: src/vk/device_checks.c)
        case "$t:$p" in *test_pointwise:apple)
            echo "== $t (RUSSET_PROFILE=$p RUSSET_HW_F16=0)"
            RUSSET_HW_F16=0 RUSSET_PROFILE=$p "$t" || status=1 ;;
        esac
        # the runtime and pointwise tests again with every float32 division
        # rewritten, as on a device whose division is off (lavapipe's is
        # right, so the default run leaves it: spirv.c, exact math)
        case "$t:$p" in *test_runtime:apple|*test_pointwise:apple)
            echo "== $t (RUSSET_PROFILE=$p RUSSET_DIVISION=corrected)"
            RUSSET_DIVISION=corrected RUSSET_PROFILE=$p "$t" || status=1
            # and with every float32 product made opaque to contraction
            # (spirv.c; what a device that fuses despite NoContraction needs)
            echo "== $t (RUSSET_PROFILE=$p RUSSET_CONTRACTION=opaque RUSSET_DIVISION=corrected)"
            RUSSET_CONTRACTION=opaque RUSSET_DIVISION=corrected RUSSET_PROFILE=$p "$t" || status=1 ;;
        esac
    done
done
exit $status
