# bench/gpu_owed_check.sh: the GPU work owed (docs/gpu-testing.md, latest
# section), sourced by bench/gpu.sh after its build:
#     CALL_S=560 GPU_THEN='source bench/gpu_owed_check.sh' bash bench/gpu.sh none
# (carry .gpu and .whl; CALL_S: the call's limit, so that each part stops in
# time to write what it did). OWED_PARTS (default "pytest conformance": the
# fifty-fifth session's double i0e/i1/i1e/erfinv/ndtri/erf, pad and
# logsigmoid, then a native sweep), in this order:
#   fuzz         native's fuzz cases left (tools/fuzz_pool.py, FUZZ_RANGES
#                of seed 52 on FUZZ_PROCS processes), with `pytest` beside it
#   pytest       OWED_TESTS (pytest -k OWED_K) under apple and native
#   conformance  then the native OpInfo sweep (CONF_OPS: a subset) to the end
# $OUT keeps at most 8 files: gpu.log (the caller's), objcache.tgz and six here.
set +e
$PY -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl 2>/dev/null
export PYTHONPATH=python:/tmp/site PYTHONUNBUFFERED=1
OWED_PARTS=${OWED_PARTS:-"pytest conformance"}
left() { echo $(( ${CALL_S:-560} - SECONDS - ${1:-0} )); }
if [[ " $OWED_PARTS " == *" fuzz "* ]]; then
    FUZZ_RANGES=${FUZZ_RANGES:?name the seed-52 cases: the native 100,000 are done}
    L=$(left 40); echo "fuzz pool: $FUZZ_RANGES, deadline $L s"
    ( CUDA_VISIBLE_DEVICES= RUSSET_PROFILE=native timeout $((L + 30)) $PY tools/fuzz_pool.py --seed 52 \
        --ranges "$FUZZ_RANGES" --procs ${FUZZ_PROCS:-13} --seconds $L --chunk 500 --out /tmp/fuzz > $OUT/fuzz-pool.log 2>&1
      cp /tmp/fuzz/summary.json $OUT/fuzz-summary.json ) &
    FUZZ_PID=$!
fi
if [[ " $OWED_PARTS " == *" pytest "* ]]; then
    for prof in apple native; do
        CUDA_VISIBLE_DEVICES= RUSSET_PROFILE=$prof timeout $(left 20) $PY -m pytest -q -p no:cacheprovider --tb=short -rfE \
            ${OWED_TESTS:-tests/python/test_pointwise_fp64.py tests/python/test_pointwise_special.py tests/python/test_pointwise_misc.py tests/python/test_pad.py tests/python/test_errors.py} ${OWED_K:+-k "$OWED_K"} > $OUT/pytest-$prof.log 2>&1
        echo "== pytest $prof: $(tail -n 1 $OUT/pytest-$prof.log)"
    done
fi
[ -n "${FUZZ_PID:-}" ] && wait $FUZZ_PID && echo "== fuzz: $(tail -n 1 $OUT/fuzz-pool.log)"
if [[ " $OWED_PARTS " == *" conformance "* ]]; then
    L=$(left 30); echo "native conformance, $L s"
    CUDA_VISIBLE_DEVICES= timeout $((L + 20)) $PY -m russet coverage --profile native --time-limit $L \
        --jobs ${CONF_JOBS:-14} ${CONF_OPS:+--ops "$CONF_OPS"} $([ -z "${CONF_OPS:-}" ] && echo --full) \
        --json $OUT/coverage-native.json > $OUT/coverage-native.log 2>&1
    tail -n 12 $OUT/coverage-native.log
fi
