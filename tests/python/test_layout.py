"""Where code lives (docs/architecture.md): the C++ adapter holds no GLSL.
Pointwise expressions are the C core's op table (src/engine/
pointwise_ops.c); the adapter names ops by id (RS_PW_*)."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')
# a call of a kernel function (rs_op_exp(a), rs_mx_pow(a, s0)) or an
# expression over the operands a..d and scalars s0..s3 ("(a ? b : c)")
GLSL = re.compile(r"\brs_[a-z0-9_]+\(|^\(.*\b([a-d]|s[0-3])\b.*[-+*/?<>=].*\)$")


def glsl_literals(text):
    return [m.group(1) for m in LITERAL.finditer(text) if GLSL.search(m.group(1))]


def test_the_adapter_holds_no_glsl():
    found = []
    for path in sorted((ROOT / "src" / "torch").rglob("*")):
        if path.suffix in (".cpp", ".h"):
            found += [f"{path.relative_to(ROOT)}: {s}" for s in glsl_literals(path.read_text())]
    assert not found, "GLSL in the C++ adapter (give it a row in src/engine/pointwise_ops.c):\n" + "\n".join(found)


def test_the_check_can_fail():
    assert glsl_literals('run(iter, "exp", "rs_op_exp(a)");') == ["rs_op_exp(a)"]
    assert glsl_literals('run(iter, "where", "(a ? b : c)");') == ["(a ? b : c)"]
    assert glsl_literals('TORCH_CHECK(ok, "expected (a, b) shapes, got ", n);') == []
