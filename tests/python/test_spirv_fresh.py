"""The committed SPIR-V (kernels/spirv/, made by tools/build_spirv.py with
glslang 13.1.1, which the build does not need) must be built from the GLSL
as it is now: each module's recorded source hash (the kernel and every file
it includes) must match the sources, and each module file its recorded hash.
A failure here means: rerun tools/build_spirv.py (its docstring says how)."""
import importlib.util
import json
import os

from conftest import REPO

_spec = importlib.util.spec_from_file_location("build_spirv", os.path.join(REPO, "tools", "build_spirv.py"))
build_spirv = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_spirv)

MANIFEST = os.path.join(REPO, "kernels", "spirv", "MANIFEST.json")


def load():
    with open(MANIFEST, encoding="utf-8") as f:
        return json.load(f)


def test_every_variant_is_committed():
    mods = load()["modules"]
    want = {name for name, _, _ in build_spirv.MODULES}
    assert set(mods) == want, "kernels/spirv/MANIFEST.json and tools/build_spirv.py's MODULES differ"
    on_disk = {n[:-4] for n in os.listdir(os.path.dirname(MANIFEST)) if n.endswith(".spv")}
    assert on_disk == want


def test_spirv_is_not_older_than_its_glsl():
    stale = []
    for name, src, defs in build_spirv.MODULES:
        rec = load()["modules"][name]
        if rec["source"] != src or rec["defines"] != defs or rec["source_sha256"] != build_spirv.source_hash(src):
            stale.append(name)
    assert not stale, (f"SPIR-V older than its GLSL (rerun tools/build_spirv.py): {stale}; sources: "
                       f"{build_spirv.source_files('gemm_coopmat_khr.comp')}")


def test_spirv_files_match_the_manifest():
    for name, rec in load()["modules"].items():
        path = os.path.join(os.path.dirname(MANIFEST), name + ".spv")
        assert build_spirv.file_hash(path) == rec["spirv_sha256"], name
        with open(path, "rb") as f:
            assert f.read(4) == b"\x03\x02\x23\x07", name  # SPIR-V magic, little-endian


def test_the_check_can_fail(tmp_path, monkeypatch):
    """An edit to an included file changes the recorded hash."""
    kdir = tmp_path / "kernels"
    for n in build_spirv.source_files("gemm_coopmat_khr.comp"):
        (kdir / n).parent.mkdir(parents=True, exist_ok=True)  # common/, params/
        (kdir / n).write_bytes(open(os.path.join(REPO, "kernels", n), "rb").read())
    monkeypatch.setattr(build_spirv, "KERNELS", str(kdir))
    before = build_spirv.source_hash("gemm_coopmat_khr.comp")
    with open(kdir / "common" / "gemm_params.glsl", "a") as f:
        f.write("// edit\n")
    assert build_spirv.source_hash("gemm_coopmat_khr.comp") != before
