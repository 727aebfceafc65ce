# bench/gpu_parallel_check.sh: a GPU check that fits one device call, sourced
# by bench/gpu.sh after its build (`GPU_THEN='source bench/gpu_parallel_check.sh'
# bash bench/gpu.sh none`). Every log goes straight to $OUT, so a call cut by
# its limit still returns what was written. In parallel: the C tests under
# both profiles, CHECK_FILES (pytest paths) under apple and native
# (test_pointwise_fp64.py too under native), TRAIN_RUNS against CUDA, and the
# threaded fuzz on the shared default stream and on own streams.
set +e
[ -d .whl ] && $PY -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl
export PYTHONPATH=python:/tmp/site PYTHONUNBUFFERED=1
FILES=${CHECK_FILES:-"tests/python/test_norm.py tests/python/test_margin_loss.py tests/python/test_histogram.py
 tests/python/test_segment_reduce.py tests/python/test_embedding_bag.py tests/python/test_index_reduce.py
 tests/python/test_select.py tests/python/test_memory.py tests/python/test_errors.py tests/python/test_fuzz.py
 tests/python/test_ctc_loss.py tests/python/test_factories.py tests/python/test_gather.py tests/python/test_models.py
 tests/python/test_fft.py tests/python/test_linalg.py tests/python/test_shape_ops.py tests/python/test_regression_loss.py
 tests/python/test_amp.py tests/python/test_random_dist.py tests/python/test_pool.py"}
(
  mkdir -p build/tests
  ls tests/c/test_*.c | xargs -P 8 -I{} sh -c 'gcc -std=c11 -D_GNU_SOURCE -O2 -Iinclude -Isrc -Ikernels {} build/librusset_core.a -o build/tests/$(basename {} .c) -lvulkan $(CC=gcc bash tools/shaderc_libs.sh) -lstdc++ -lpthread -lm || echo "C test {} did not build"'
  # each binary on its own, all at once: one long test (test_gemm native)
  # no longer cuts the ones after it. Their logs stay in /tmp/ctests (the
  # device tool returns a few files only); each appends its summary here
  # when it ends, so a cut call still shows the ones that finished
  mkdir -p /tmp/ctests
  for t in build/tests/test_*; do
    (b=$(basename $t); CUDA_VISIBLE_DEVICES= CTEST_PLAIN=1 RUSSET_PROFILE="apple native" timeout 330 \
       bash tests/c/run.sh $t > /tmp/ctests/$b.log 2>&1; rc=$?
     echo "== $b: $(grep -E ' passed, ' /tmp/ctests/$b.log | tr '\n' ' ')exit $rc $(grep '^FAIL' /tmp/ctests/$b.log | tr '\n' ' ')") &
  done
  wait
) > $OUT/ctests.log 2>&1 &
for prof in apple native; do
  extra=""; [ $prof = native ] && extra=tests/python/test_pointwise_fp64.py
  CUDA_VISIBLE_DEVICES= RUSSET_PROFILE=$prof timeout 330 $PY -m pytest -v -n 4 -p no:cacheprovider -p no:benchmark \
    -rfE $FILES $extra > $OUT/pytest-$prof.log 2>&1 &
done
(
  R=/tmp/s33; mkdir -p $R
  timeout 400 bash -c "$(declare -f train_runs); PY=$PY; train_runs $R '${TRAIN_RUNS:-resnet18:fp32 resnet18:bf16 gpt:fp32}'"
  $PY tests/gpu/compare.py $R
) > $OUT/train.log 2>&1 &
(
  CUDA_VISIBLE_DEVICES= RUSSET_PROFILE=apple timeout 170 $PY tools/fuzz.py --threads 4 --seconds 120 --seed 8
  echo "shared-stream exit $?"
  CUDA_VISIBLE_DEVICES= RUSSET_PROFILE=native timeout 150 $PY tools/fuzz.py --threads 4 --own-streams --seconds 100 --seed 9
  echo "own-streams exit $?"
) > $OUT/fuzz.log 2>&1 &
wait
for f in $OUT/pytest-*.log; do echo "== $f: $(grep -c ' PASSED' $f) passed, $(grep -c ' FAILED' $f) failed"; tail -n 3 $f; done
cat $OUT/ctests.log
tail -n 25 $OUT/train.log
tail -n 8 $OUT/fuzz.log
