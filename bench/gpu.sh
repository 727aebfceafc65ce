#!/usr/bin/env bash
# Runs the russet benchmarks on the lent NVIDIA H200 (the `device` tool), with
# PyTorch CUDA measured in the same run: see ../../shared/GPU.md.
#
# Once, on your own machine, in the repo root (GPU.md, "Once"):
#     apt-get update
#     mkdir -p .gpu/gl .gpu/dev
#     (cd .gpu/gl  && apt-get download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
#     (cd .gpu/dev && apt-get download libvulkan-dev libshaderc1 libshaderc-dev glslc glslang-dev spirv-tools)
# (glslang-dev and spirv-tools: Debian 12 links shaderc statically with them)
# (.gpu/ is git-ignored.) Then run this script through the device tool with
#     carry: [".gpu"]      command: bash bench/gpu.sh [runtime|pointwise|reduce|gemm|gemm-probe|gemm-tiled-probe|linalg-probe|probe|train|reduce+train|sort|fft|big|pending|speed|test|focus|all]
#
# It unpacks the Vulkan loader and the shader compiler there, builds
# _russet.so against the image's python3 + torch 2.11 (a build made here would
# not load there), checks a copy against CPU, and runs bench/run.py, which
# prints russet beside torch CPU and torch CUDA. Results also go to
# $OUT/bench-gpu.json when $OUT is set.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! ls .gpu/gl/*.deb >/dev/null 2>&1 || ! ls .gpu/dev/*.deb >/dev/null 2>&1; then
    echo "bench/gpu.sh: .gpu/gl and .gpu/dev must hold the .deb files (see the top of this script)" >&2
    exit 1
fi

# ---- the Vulkan runtime (GL packages into /, since NVIDIA's Vulkan driver
# loads through libglvnd) and the development packages (into /tmp/sys: unpacking
# them into / can break the image)
for f in .gpu/gl/*.deb; do dpkg -x "$f" /; done
ldconfig
mkdir -p /tmp/sys
for f in .gpu/dev/*.deb; do dpkg -x "$f" /tmp/sys; done
ln -sf /usr/lib/x86_64-linux-gnu/libvulkan.so.1 /tmp/sys/usr/lib/x86_64-linux-gnu/libvulkan.so
export LD_LIBRARY_PATH=/usr/local/nvidia/lib:/tmp/sys/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
export CPATH=/tmp/sys/usr/include
export LIBRARY_PATH=/tmp/sys/usr/lib/x86_64-linux-gnu
export PATH=/tmp/sys/usr/bin:$PATH
# the image's python3 holds torch 2.11 with CUDA; no venv there
PY=python3
export RUSSET_CACHE_DIR=${RUSSET_CACHE_DIR:-/tmp/russet-cache}
export RUSSET_PROFILE=${RUSSET_PROFILE:-native}
export RUSSET_HOST_OPS=${RUSSET_HOST_OPS:-allow}

echo "== machine"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
$PY -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name())'

# GPU_SMI=1: sample the SM clock, power and temperature every 250 ms while
# this script runs (into ${OUT:-/tmp}/smi.csv), and print a summary at the
# end: whether a kernel ran power- or clock-limited (an H200 holds 1,980 MHz
# under load below its 700 W cap)
if [ "${GPU_SMI:-0}" = 1 ]; then
    smi_csv="${OUT:-/tmp}/smi.csv"
    nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv,noheader,nounits \
        -lms 250 > "$smi_csv" 2>/dev/null &
    smi_pid=$!
    smi_summary() {
        kill "$smi_pid" 2>/dev/null || true
        $PY - "$smi_csv" <<'PYEOF' || true
import sys
rows = [r.split(", ") for r in open(sys.argv[1]).read().splitlines() if r.count(",") == 3]
busy = [(r[0], float(r[1]), float(r[2]), float(r[3])) for r in rows if float(r[2]) > 200]
print(f"== smi: {len(rows)} samples, {len(busy)} above 200 W")
if busy:
    clk = sorted(b[1] for b in busy); pw = sorted(b[2] for b in busy)
    print(f"   SM clock under load: min {clk[0]:.0f}, median {clk[len(clk)//2]:.0f}, max {clk[-1]:.0f} MHz; "
          f"power: median {pw[len(pw)//2]:.0f}, max {pw[-1]:.0f} W; temperature max {max(b[3] for b in busy):.0f} C")
PYEOF
    }
    trap smi_summary EXIT
fi

# ---- probes: the C core and one bench/*_probe.c only (no torch build)
build_probe() {  # $1: gemm_probe, gemm_tiled_probe, linalg_probe or bw_probe
    rm -rf build/probe && mkdir -p build/probe
    python3 tools/embed_kernels.py kernels build/kernels_embedded.c
    ls src/vk/*.c src/engine/*.c build/kernels_embedded.c bench/$1.c | xargs -P "$(nproc)" -I{} sh -c \
        'gcc -std=c11 -D_GNU_SOURCE -O2 -Iinclude -Isrc -Ikernels -DRS_SHADERC_VERSION="\"unknown\"" -c {} -o build/probe/$(echo {} | tr / _).o'
    gcc -o build/$1 build/probe/*.o -lvulkan $(CC=gcc bash tools/shaderc_libs.sh) -lstdc++ -lpthread -lm
}
# pending: every device run the last sessions prepared and could not make,
# in one machine session (docs/performance.md, seventh session): the GEMM
# variants with the driver's register counts, the bandwidth probe, then
# (after the torch build) the big-tensor checks and the pointwise benchmark
# at the default batching and at RUSSET_BATCH_HOLD=2
if [ "${1:-}" = pending ]; then
    set +e
    mkdir -p "${OUT:-/tmp}/ir"
    RUSSET_PIPELINE_STATS=1 PROBE_IR_DIR="${OUT:-/tmp}/ir" PROBE_ARGS=noedges bash "$0" gemm-probe
    bash "$0" probe
    set -e
    set -- pending-torch
fi
if [ "${1:-}" = gemm-probe ]; then
    echo "== gemm-probe"
    build_probe gemm_probe
    # PROBE_ARGS: nv, noedges, novariants (bench/gemm_probe.c); PROBE_TILE2:
    # then the production path and edges again with RUSSET_GEMM_KHR_TILE=$PROBE_TILE2
    # (a wrong variant does not stop the runs after it; the exit status says)
    probe_rc=0
    ./build/gemm_probe ${PROBE_ARGS:-} || probe_rc=$?
    if [ -n "${PROBE_TILE2:-}" ]; then RUSSET_GEMM_KHR_TILE=$PROBE_TILE2 ./build/gemm_probe novariants || probe_rc=$?; fi
    # PROBE_THEN: more runs in this environment, e.g.
    # 'RUSSET_COOPMAT_NV2=0 ./build/gemm_probe novariants noedges' (the KHR kernel)
    if [ -n "${PROBE_THEN:-}" ]; then eval "$PROBE_THEN"; fi
    exit $probe_rc
fi
# gemm-tiled-probe: the float32 tiled GEMM at nn.Linear's training shapes,
# rs_gemm's choice and the 128x128 tile's variants (bench/gemm_tiled_probe.c)
if [ "${1:-}" = gemm-tiled-probe ]; then
    echo "== gemm-tiled-probe"
    build_probe gemm_tiled_probe
    ./build/gemm_tiled_probe ${PROBE_ARGS:-}  # small, quick (bench/gemm_tiled_probe.c)
    exit $?
fi
# linalg-probe: the blocked Cholesky, LU and lu_solve, each dispatch's
# device time by kernel and the first dispatches in order, both profiles
# (bench/linalg_probe.c; PROBE_ARGS: the sizes, default 256 1024)
if [ "${1:-}" = linalg-probe ]; then
    echo "== linalg-probe"
    build_probe linalg_probe
    for prof in native apple; do echo "-- $prof"; RUSSET_PROFILE=$prof ./build/linalg_probe ${PROBE_ARGS:-}; done
    exit $?
fi
if [ "${1:-}" = coopmat-khr ]; then
    echo "== VK_KHR_cooperative_matrix: shapes and the multiply-add rate (bench/coopmat)"
    mkdir -p build
    gcc -std=c11 -D_GNU_SOURCE -O2 -Ibench/coopmat bench/coopmat/khr_probe.c -o build/khr_probe -lvulkan
    ./build/khr_probe
    [ "${2:-}" = only ] && exit 0
    set -- probe
fi
if [ "${1:-}" = probe ]; then
    echo "== bw-probe (copy, pointwise, softmax and sort kernels), then torch CUDA timed the same way"
    build_probe bw_probe
    ./build/bw_probe fp64
    [ "${PROBE_FP64_ONLY:-0}" = 1 ] && exit 0
    ./build/bw_probe
    # PROBE_ENVS: more runs of the copy and pointwise kernels, one for each
    # ';'-separated list of settings, e.g. 'RUSSET_BATCH_AHEAD=0;RUSSET_BATCH_BYTES=0'
    IFS=';' read -ra envs <<< "${PROBE_ENVS:-}"
    for e in "${envs[@]}"; do echo "== bw-probe with $e"; env $e PROBE_QUICK=1 ./build/bw_probe; done
    $PY bench/cuda_ref.py
    exit 0
fi

# ---- build _russet.so against this torch. Call the library target directly:
# `make build` would run scripts/setup.sh (apt-get, .venv), which cannot work
# there. A stale build/ from another machine must not be reused.
echo "== build"
rm -rf build python/russet/_russet.so
t0=$(date +%s)
# The sparse and nested registrations are generated from a torch's
# native_functions.yaml (tools/gen_layout_kernels.py); the committed ones are
# CI's torch's, so regenerate them from this image's (PyYAML: the image's,
# else the wheel in .whl)
site=$($PY -c 'import torch, os; print(os.path.dirname(os.path.dirname(torch.__file__)))')
$PY -c 'import yaml' 2>/dev/null || { [ -d .whl ] && $PY -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl; }
PYTHONPATH=/tmp/site${PYTHONPATH:+:$PYTHONPATH} $PY tools/gen_layout_kernels.py "$site" \
    || echo "gen_layout_kernels failed: building with the committed registrations"

# The adapter's objects take most of the build (torch's headers). A cache of
# them travels between device calls in .gpu/objcache.tgz (the command copies
# $OUT/objcache.tgz back into .gpu/): an object is reused when its source,
# the headers it can include (include/, src/torch/, src/engine/, src/vk/), the compiler and torch
# are unchanged (objcache_key).
objcache_common=$({ cat $(find include src/torch src/engine src/vk -name '*.h' | sort); g++ --version | head -1
    $PY -c 'import torch; print(torch.__version__)'; grep -E '^(COMMON_FLAGS|CXXFLAGS)' Makefile; } | sha256sum | cut -c1-32)
objcache_key() {  # $1: a .cpp file
    { echo "$objcache_common"; cat "$1"; } | sha256sum | cut -c1-32
}
adapter_sources() { find src/torch -name '*.cpp' | sort; }  # src/torch, runtime/, ops/
if [ -f .gpu/objcache.tgz ]; then
    rm -rf /tmp/objcache && mkdir -p /tmp/objcache
    tar -xzf .gpu/objcache.tgz -C /tmp/objcache
    reused=0
    for f in $(adapter_sources); do
        k=$(objcache_key "$f"); o=build/${f%.cpp}.o
        if [ -f "/tmp/objcache/$k.o" ]; then
            mkdir -p "$(dirname "$o")"; cp "/tmp/objcache/$k.o" "$o"; touch "$o"; reused=$((reused + 1))
        fi
    done
    echo "objcache: reused $reused of $(adapter_sources | wc -l) adapter objects"
fi
objcache_save() {
    [ -n "${OUT:-}" ] || return 0
    rm -rf /tmp/objcache.new && mkdir -p /tmp/objcache.new
    for f in $(adapter_sources); do
        o=build/${f%.cpp}.o
        [ -f "$o" ] && cp "$o" "/tmp/objcache.new/$(objcache_key "$f").o"
    done
    tar -czf "$OUT/objcache.tgz" -C /tmp/objcache.new .
}

# Without make, the same steps as the Makefile's rules, in parallel.
build_without_make() {
    local torch_dir; torch_dir=$($PY -c 'import os, torch; print(os.path.dirname(torch.__file__))')
    local common="-O2 -g0 -fPIC -fvisibility=hidden -Iinclude -Isrc"
    # torch 2.15's headers need C++20 (the Makefile's TORCH_STD)
    local std; std=$($PY -c 'import torch; v = tuple(int(x) for x in torch.__version__.split(".")[:2]); print("c++20" if v >= (2, 15) else "c++17")')
    mkdir -p build/obj
    $PY tools/embed_kernels.py kernels build/kernels_embedded.c
    ls src/vk/*.c src/engine/*.c build/kernels_embedded.c | xargs -P "$(nproc)" -I{} sh -c \
        'gcc -std=c11 -D_GNU_SOURCE '"$common"' -Ikernels -DRS_SHADERC_VERSION="\"unknown\"" -c {} -o build/obj/$(echo {} | tr / _).o'
    adapter_sources | xargs -P "$(nproc)" -I{} sh -c \
        'g++ -std='"$std $common"' -D_GLIBCXX_USE_CXX11_ABI=1 -isystem '"$torch_dir"'/include -isystem '"$torch_dir"'/include/kineto -c {} -o build/obj/$(echo {} | tr / _).o'
    g++ -shared -o python/russet/_russet.so build/obj/*.o -L"$torch_dir/lib" -Wl,-rpath,"$torch_dir/lib" \
        -ltorch_cpu -lc10 -lvulkan $(CC=gcc bash tools/shaderc_libs.sh) -lpthread -lm
}

if command -v make >/dev/null 2>&1; then
    # -k: every file that does not compile against this torch shows at once
    make -k --no-print-directory -j"$(nproc)" PY="$PY" python/russet/_russet.so >/tmp/russet-build.log 2>&1
else
    build_without_make >/tmp/russet-build.log 2>&1
fi || { grep -E "error|Error" /tmp/russet-build.log | head -80; tail -5 /tmp/russet-build.log
         echo "bench/gpu.sh: build failed" >&2; exit 1; }
echo "built in $(( $(date +%s) - t0 )) s"
objcache_save

# ---- a correctness check on fresh random data before any timing
echo "== check"
PYTHONPATH=python $PY - <<'EOF'
import torch, russet
assert torch.russet.is_available(), "russet sees no Vulkan device"
p = torch.russet.get_device_properties()
print(f"russet: {p.name} | {p.driver} | profile {p.profile} | fp64 {bool(p.has_fp64)} | "
      f"subgroup {p.subgroup_size} | unified {bool(p.unified_memory)}")
x = torch.randn(1 << 20)
for dt in (torch.float32, torch.float16, torch.bfloat16, torch.int32):
    d = x.to("russet").to(dt)
    assert torch.equal(d.cpu(), x.to(dt)), dt
t = torch.empty(4096, device="russet"); t.fill_(3.0)
assert bool((t.cpu() == 3).all())
print("check: copies, casts and fill match CPU")
EOF

# ---- the benchmark, russet beside torch CPU and torch CUDA
echo "== bench"
json_args=()
if [ -n "${OUT:-}" ]; then json_args=(--json "$OUT/bench-gpu.json"); fi
# Training runs against CUDA (tests/gpu/train_compare.py, a process each;
# tests/gpu/compare.py judges them): $2 holds model:dtype[:compile]
# entries. fp64 runs russet under native only (apple has no fp64);
# `compile` trains russet through torch.compile, CUDA staying eager (the
# reference), e.g. TRAIN_RUNS="gpt:fp32 gpt:fp32:compile".
train_runs() {
    local R=$1 run m dt how flag sfx prof
    for run in $2; do
        m=${run%%:*}; dt=${run#*:}; how=${dt#*:}; dt=${dt%%:*}
        [ "$how" = "$dt" ] && how=""
        flag=""; sfx=""
        if [ "$how" = compile ]; then flag=--compile; sfx=-compiled; fi
        [ -e "$R/train-$m-$dt-cuda.json" ] ||
            $PY tests/gpu/train_compare.py --model $m --device cuda --dtype $dt --json "$R/train-$m-$dt-cuda.json"
        # dropout: each device draws its own mask; compare.py's limit comes
        # from CPU's run beside CUDA's
        case $m in *-drop) [ -e "$R/train-$m-$dt-cpu.json" ] ||
            OMP_NUM_THREADS=${CPU_REF_THREADS:-8} $PY tests/gpu/train_compare.py --model $m --device cpu --dtype $dt \
                --json "$R/train-$m-$dt-cpu.json";; esac
        for prof in apple native; do
            [ "$dt" = fp64 ] && [ "$prof" = apple ] && continue
            CUDA_VISIBLE_DEVICES= RUSSET_PROFILE=$prof $PY tests/gpu/train_compare.py --model $m \
                --device russet --dtype $dt $flag --json "$R/train-$m-$dt-russet-$prof$sfx.json"
        done
    done
}

# After the mode: GPU_CTESTS=1, the C core's tests (tests/c) against the
# core just built, without the sanitizers (tests/c/run.sh under
# CTEST_PLAIN=1), both profiles; GPU_THEN, more commands in this
# environment, e.g. 'RUSSET_SYNC_SPIN_US=0 PYTHONPATH=python python3
# bench/bench_pointwise.py'. A mode that ends early calls it itself.
after_mode() {
    if [ "${GPU_CTESTS:-0}" = 1 ]; then
        echo "== C tests"
        mkdir -p build/tests
        for t in tests/c/test_*.c; do
            gcc -std=c11 -D_GNU_SOURCE -O2 -Iinclude -Isrc -Ikernels "$t" build/librusset_core.a -o "build/tests/$(basename "$t" .c)" \
                -lvulkan $(CC=gcc bash tools/shaderc_libs.sh) -lstdc++ -lpthread -lm || echo "C test $t did not build"
        done
        # (a failure or the time limit must not end the script: set -e is on)
        local rc=0
        CTEST_PLAIN=1 RUSSET_PROFILE="${CTEST_PROFILES:-apple native}" timeout ${CTEST_LIMIT:-200} \
            bash tests/c/run.sh build/tests/test_* > /tmp/ctests.log 2>&1 || rc=$?
        echo "C tests: exit $rc"
        # each run's "N passed, N failed" after its "== test (profile)" line, and any failed check
        grep -E "^== | passed, |failed|error|ERROR" /tmp/ctests.log | head -80 || true
        [ -n "${OUT:-}" ] && cp /tmp/ctests.log "$OUT/ctests.log"
    fi
    if [ -n "${GPU_THEN:-}" ]; then eval "$GPU_THEN"; fi
}

case "${1:-all}" in
    runtime) PYTHONPATH=python $PY bench/run.py --size-mib 256 --reps 10 "${json_args[@]}" ;;
    pointwise) PYTHONPATH=python $PY bench/bench_pointwise.py ${OUT:+--json "$OUT/bench-pointwise.json"} ;;
    reduce) PYTHONPATH=python $PY bench/bench_reduce.py ${OUT:+--json "$OUT/bench-reduce.json"} ;;
    gemm) PYTHONPATH=python $PY bench/bench_gemm.py ${OUT:+--json "$OUT/bench-gemm.json"} ;;
    train) PYTHONPATH=python $PY bench/bench_train.py ${OUT:+--json "$OUT/bench-train.json"} ;;
    reduce+train)
        PYTHONPATH=python $PY bench/bench_reduce.py ${OUT:+--json "$OUT/bench-reduce.json"}
        PYTHONPATH=python $PY bench/bench_train.py ${OUT:+--json "$OUT/bench-train.json"} ;;
    sort) PYTHONPATH=python $PY bench/bench_sort.py ${OUT:+--json "$OUT/bench-sort.json"} ;;
    fft) PYTHONPATH=python $PY bench/bench_fft.py ${OUT:+--json "$OUT/bench-fft.json"} ;;
    pending-torch)
        set +e
        RUSSET_TEST_BIG=1 PYTHONPATH=python $PY tests/python/test_big_tensors.py
        echo; PYTHONPATH=python $PY bench/bench_pointwise.py ${OUT:+--json "$OUT/bench-pointwise.json"}
        echo "== the same with RUSSET_BATCH_HOLD=2"
        RUSSET_BATCH_HOLD=2 PYTHONPATH=python $PY bench/bench_pointwise.py ${OUT:+--json "$OUT/bench-pointwise-hold2.json"} ;;
    # The GPU test run (issue 15; docs/gpu-testing.md): `test` runs the
    # pytest suite under apple, native and apple with RUSSET_SERIALIZE=1
    # (xdist workers), and the training runs against CUDA (each in its own
    # process); `test conformance` runs the full OpInfo sweep under apple
    # and native. Each fits one 10-minute device call. Logs and JSON results
    # go to $OUT (fetched back); tests/gpu/summary.py prints the verdict.
    test)
        set +e
        [ -d .whl ] && $PY -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
        export PYTHONPATH=python${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
        # results gather in /tmp/gpu-test and come back as one archive
        # ($OUT takes at most 8 files)
        R=/tmp/gpu-test; mkdir -p "$R"
        part=${2:-main}
        trap '[ -n "${OUT:-}" ] && tar -czf "$OUT/gpu-test-$part.tgz" -C /tmp gpu-test' EXIT
        # the russet processes do not need CUDA: keep it out of them (CUDA
        # peers run in processes of their own: test_cuda_coexistence.py)
        if [ "$part" = conformance ]; then
            for prof in apple native; do  # what exact math the kernels get (docs/architecture.md)
                CUDA_VISIBLE_DEVICES= RUSSET_PROFILE=$prof $PY -c 'import torch, russet; p = torch.russet.get_device_properties(); print(p.profile, "division", p.division, "infnan", p.features.preserve_infnan, "denorm", p.features.preserve_denorm)'
            done
            for prof in ${CONF_PROFILES:-apple native}; do
                # --time-limit: a sweep cut short still writes what it did
                CUDA_VISIBLE_DEVICES= timeout ${CONF_LIMIT:-540} $PY -m russet coverage --full --profile $prof \
                    --time-limit $(( ${CONF_LIMIT:-540} - 25 )) \
                    --jobs ${CONF_JOBS:-7} --json "$R/coverage-$prof.json" --md "$R/coverage-$prof.md" \
                    > "$R/coverage-$prof.log" 2>&1 &
            done
            # WITH_FAILURES=1: meanwhile the last run's failing tests
            # (tests/gpu/h200_failures_<profile>.txt) with their messages
            if [ -n "${WITH_FAILURES:-}" ]; then
                for prof in apple native; do
                    CUDA_VISIBLE_DEVICES= RUSSET_PROFILE=$prof timeout ${FAIL_LIMIT:-200} $PY -m pytest -q -n 4 \
                        -p no:cacheprovider -p no:benchmark --tb=short -rfE $(cat tests/gpu/h200_failures_$prof.txt) \
                        > "$R/failures-$prof.log" 2>&1
                    echo "== failures $prof: $(tail -n 1 "$R/failures-$prof.log")"
                done
            fi
            wait
            tail -n 25 "$R"/coverage-*.log
            after_mode
            exit 0
        fi
        pids=()
        # PYTEST_CONFIGS: profile:extra-settings, space-separated ("" runs none)
        for cfg in ${PYTEST_CONFIGS-apple: native: apple:RUSSET_SERIALIZE=1}; do
            prof=${cfg%%:*}; extra=${cfg#*:}; name=pytest-$prof${extra:+-serialize}
            # -v: each test's outcome as it finishes (a run cut by the limit still names its failures)
            env CUDA_VISIBLE_DEVICES= RUSSET_PROFILE=$prof $extra timeout ${PYTEST_LIMIT:-480} $PY -m pytest -v \
                -n ${PYTEST_WORKERS:-4} -p no:cacheprovider -p no:benchmark tests/python -rfE \
                > "$R/$name.log" 2>&1 &
            pids+=($!)
        done
        # training runs: CUDA, then russet under both profiles, one process each
        (
            # first the ordering probes (the wrong batch norm of issue 15)
            for prof in apple native; do
                CUDA_VISIBLE_DEVICES= RUSSET_PROFILE=$prof $PY tests/gpu/race_probe.py
            done
            # TRAIN_RUNS (train_runs, above); fp64 needs a CPU reference (TEST_CPU_REFS)
            train_runs "$R" "${TRAIN_RUNS-demo:fp32 resnet18:fp32 resnet18:bf16 gpt:fp32 gpt:bf16}"
            # CUDA training in a process that has russet installed (autoload) and
            # in one that imports russet (tests/python/test_cuda_coexistence.py)
            $PY tests/gpu/cuda_coexistence.py
        ) > "$R/train.log" 2>&1 &
        tpid=$!
        # CPU references (how far CUDA itself is from CPU), low priority;
        # TEST_CPU_REFS picks them (bf16 on a CPU without bf16 units is slow:
        # 49 s a ResNet-18 step on the H200's host)
        (for ref in ${TEST_CPU_REFS-resnet18:fp32 gpt:fp32}; do m=${ref%%:*}; dt=${ref#*:}
            OMP_NUM_THREADS=${CPU_REF_THREADS:-4} nice -n 10 $PY tests/gpu/train_compare.py --model $m --device cpu \
            --dtype $dt --json "$R/train-$m-$dt-cpu.json"; done) > "$R/train-cpu.log" 2>&1 &
        cpid=$!
        wait $tpid; for p in "${pids[@]}"; do wait $p; done
        sleep ${CPU_GRACE:-20}; kill $cpid 2>/dev/null; pkill -f "device cpu --dtype"
        cat "$R/train.log"
        $PY tests/gpu/compare.py "$R"
        for f in "$R"/pytest-*.log; do echo "== $f: $(grep -c ' PASSED' "$f") passed, $(grep -c ' FAILED' "$f") failed"; tail -n 3 "$f"; done ;;
    # a focused GPU check of one change: FOCUS_TESTS (pytest paths) under
    # apple and native, then the training runs of TRAIN_RUNS against CUDA
    # (compare.py's table); e.g. FOCUS_TESTS="tests/python/test_conv.py"
    focus)
        set +e
        [ -d .whl ] && $PY -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
        export PYTHONPATH=python${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1
        for prof in apple native; do
            echo "== pytest $prof"
            CUDA_VISIBLE_DEVICES= RUSSET_PROFILE=$prof timeout ${PYTEST_LIMIT:-300} $PY -m pytest -q \
                -n ${PYTEST_WORKERS:-8} -p no:cacheprovider -p no:benchmark -rfE ${FOCUS_TESTS:-tests/python} 2>&1 | tail -n 30
        done
        R=/tmp/gpu-focus; mkdir -p "$R"
        train_runs "$R" "${TRAIN_RUNS-resnet18:fp32}"
        $PY tests/gpu/compare.py "$R" ;;
    # the tests that failed on the last GPU run (tests/gpu/h200_failures_*.txt),
    # with their messages: `bash bench/gpu.sh failures [apple|native]`
    failures)
        set +e
        [ -d .whl ] && $PY -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site
        prof=${2:-apple}
        if [ ! -s tests/gpu/h200_failures_$prof.txt ]; then echo "no listed failures under $prof"; after_mode; exit 0; fi
        # the device's float controls under this profile (rs_features.preserve_*)
        CUDA_VISIBLE_DEVICES= RUSSET_PROFILE=$prof PYTHONPATH=python $PY -c \
            'import torch, russet; f = torch.russet.get_device_properties().features; print("float controls: infnan", f.preserve_infnan, "denorm", f.preserve_denorm)'
        # FAIL_TB=short: each failure's assertion message, not only its line
        CUDA_VISIBLE_DEVICES= RUSSET_PROFILE=$prof PYTHONPATH=python${PYTHONPATH:+:$PYTHONPATH} timeout ${FAIL_LIMIT:-300} \
            $PY -m pytest -q -n ${PYTEST_WORKERS:-8} -p no:cacheprovider -p no:benchmark --tb=${FAIL_TB:-line} -rfE \
            $(cat tests/gpu/h200_failures_$prof.txt) 2>&1 | tee "${OUT:-/tmp}/failures-$prof.log" | grep -vE "^(\.|F|s)+ *\[" ;;
    # ordering races (tests/gpu/race_probe.py) under each stream mode and
    # profile: a result that changes with the mode is a hazard bug
    race)
        set +e
        for prof in apple native; do
            for mode in "" "RUSSET_SERIALIZE=1" "RUSSET_BATCH_BYTES=1 RUSSET_BATCH_AHEAD=0" "RUSSET_BATCH_BYTES=0"; do
                env RUSSET_PROFILE=$prof $mode PYTHONPATH=python $PY tests/gpu/race_probe.py --batch ${RACE_BATCH:-64}
            done
        done ;;
    # tensors past 2^31 elements and 4 GiB (tests/python/test_big_tensors.py,
    # which pytest skips on devices under 32 GiB)
    big) RUSSET_TEST_BIG=1 PYTHONPATH=python $PY tests/python/test_big_tensors.py ;;
    speed)
        # the bandwidth probe (C core only), then the peer benchmarks; each
        # step runs even when one before it fails
        # (SPEED_STEPS picks the steps: probe pointwise reduce sort nn conv attention train)
        set +e
        steps=" ${SPEED_STEPS:-probe pointwise reduce sort nn conv attention train} "
        if [[ $steps == *" probe "* ]]; then
            echo "== bw-probe"
            (build_probe bw_probe >/tmp/probe-build.log 2>&1 || { tail -20 /tmp/probe-build.log; exit 1; }; ./build/bw_probe)
        fi
        for b in pointwise reduce sort nn conv attention train; do
            if [[ $steps == *" $b "* ]]; then
                echo; PYTHONPATH=python $PY bench/bench_$b.py ${OUT:+--json "$OUT/bench-$b.json"}
            fi
        done ;;
    # none: only the build and the check, then GPU_CTESTS / GPU_THEN
    none) ;;
    *)
        PYTHONPATH=python $PY bench/run.py --size-mib 256 --reps 10 "${json_args[@]}"
        echo
        PYTHONPATH=python $PY bench/bench_pointwise.py ${OUT:+--json "$OUT/bench-pointwise.json"}
        echo
        PYTHONPATH=python $PY bench/bench_reduce.py ${OUT:+--json "$OUT/bench-reduce.json"} ;;
esac
after_mode
