# bench/gpu_owed_check.sh: the GPU check the fifty-fourth session prepared
# and could not run (docs/gpu-testing.md, fifty-fourth session), sourced by
# bench/gpu.sh after its build:
#     CALL_S=560 GPU_THEN='source bench/gpu_owed_check.sh' bash bench/gpu.sh none
# (carry .gpu and .whl; CALL_S: the call's limit, so the fuzz pool stops in
# time to write its summary). In parallel: bench/gpu_parallel_check.sh
# (C tests, CHECK_FILES under apple and native, TRAIN_RUNS against CUDA,
# the threaded fuzz), native's fuzz cases left (tools/fuzz_pool.py,
# FUZZ_RANGES of seed 52, FUZZ_PROCS processes) and the compiled kernels'
# device times with 4 and 1 elements per invocation (issue 18).
set +e
$PY -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl
export PYTHONPATH=python:/tmp/site PYTHONUNBUFFERED=1
# one case in the foreground: the fuzz imports here
CUDA_VISIBLE_DEVICES= RUSSET_PROFILE=native $PY tools/fuzz.py --seed 52 --case 54302 | cut -c1-200
LEFT=$(( ${CALL_S:-560} - SECONDS - 70 ))
echo "fuzz pool deadline $LEFT s"
FUZZ_RANGES=${FUZZ_RANGES:-54302-54419,54842-55019,55720-55919,56320-56519,57136-57419,57633-58019,58220-58319,58520-58919,59118-59999,64845-79999,84900-99999}
( CUDA_VISIBLE_DEVICES= RUSSET_PROFILE=native timeout $((LEFT + 50)) $PY tools/fuzz_pool.py --seed 52 \
    --ranges "$FUZZ_RANGES" --procs ${FUZZ_PROCS:-6} --seconds $LEFT --chunk 500 --out /tmp/fuzz > $OUT/fuzz-pool.log 2>&1
  cp /tmp/fuzz/summary.json $OUT/fuzz-summary.json ) &
( for epi in 4 1; do
    echo "== RUSSET_INDUCTOR_EPI=$epi"
    CUDA_VISIBLE_DEVICES= RUSSET_INDUCTOR_EPI=$epi RUSSET_PROFILE=native timeout 90 $PY bench/kernel_times.py --only compiled
  done
  echo "== bench_compile"; RUSSET_PROFILE=native timeout 130 $PY bench/bench_compile.py ) > $OUT/compile-times.log 2>&1 &
CHECK_FILES=${CHECK_FILES:-"tests/python/test_pointwise_special.py tests/python/test_fft.py tests/python/test_softmax_loss.py
 tests/python/test_compile.py tests/python/test_factories.py tests/python/test_pool.py tests/python/test_pointwise_misc.py
 tests/python/test_fused_optim.py tests/python/test_fuzz.py tests/python/test_models.py"} \
TRAIN_RUNS=${TRAIN_RUNS:-"resnet18:fp32 gpt:fp32 gpt:bf16"} source bench/gpu_parallel_check.sh
echo "== compile times"; tail -60 $OUT/compile-times.log
echo "== fuzz"; tail -5 $OUT/fuzz-pool.log
