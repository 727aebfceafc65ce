"""GLSL for Inductor's loop IR: value types, constants, index expressions, and
the elementwise ops (Inductor's `ops.*`), for russet's generated kernels.

Values are computed in the opmath types of russet's own kernels
(kernels/common/opmath.glsl): bool, int64_t for every signed integer and
the small unsigned ones, uint64_t, float for float16/bfloat16/float32 (as
Inductor computes them), double for float64 (devices with fp64 only). The
functions are kernels/common/ops*.glsl's, the ones the eager pointwise
engine calls, so a compiled op rounds as the eager op does: exp, log, tanh
and the rest follow PyTorch's CPU results, not the GPU's fast built-ins.
"""

import math

import sympy
import torch
from torch._inductor.codegen.common import OpOverrides
from torch._inductor.utils import get_bounds_index_expr
from torch._inductor.virtualized import V, ops
from torch.utils._sympy.printers import ExprPrinter

_INT = (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8, torch.uint16, torch.uint32)
_FLOAT = (torch.float16, torch.bfloat16, torch.float32)


def glsl_type(dtype):
    """The GLSL type a value of `dtype` is computed in."""
    if dtype == torch.bool:
        return "bool"
    if dtype in _INT:
        return "int64_t"
    if dtype == torch.uint64:
        return "uint64_t"
    if dtype in _FLOAT:
        return "float"
    if dtype == torch.float64:
        return "double"
    raise NotImplementedError(f"russet: torch.compile does not generate kernels for {dtype}")


def dtype_code(dtype):
    """c10::ScalarType number (rs_dtype), which kernels/common/dtype.glsl keys on."""
    codes = {
        torch.uint8: 0, torch.int8: 1, torch.int16: 2, torch.int32: 3, torch.int64: 4,
        torch.float16: 5, torch.float32: 6, torch.float64: 7, torch.bool: 11,
        torch.bfloat16: 15, torch.uint16: 27, torch.uint32: 28, torch.uint64: 29,
    }
    if dtype not in codes:
        raise NotImplementedError(f"russet: torch.compile does not generate kernels for {dtype}")
    return codes[dtype]


def float_literal(value, dtype=torch.float32):
    """An exact literal: float32 values by their bits, float64 by repr."""
    if glsl_type(dtype) == "double":
        if math.isnan(value):
            return "uint64BitsToDouble(0x7FF8000000000000UL)"
        if math.isinf(value):
            return f"uint64BitsToDouble({'0xFFF' if value < 0 else '0x7FF'}0000000000000UL)"
        return f"{float(value)!r}LF"
    # float32(value) as C rounds a double (nearest even, inf past the range)
    f32 = torch.tensor([value], dtype=torch.float64).to(torch.float32)
    if math.isfinite(value) and f32.item() == value and value == int(value) and abs(value) < 2**24:
        return "(-0.0)" if value == 0 and math.copysign(1, value) < 0 else f"{int(value)}.0"
    bits = f32.view(torch.int32).item() & 0xFFFFFFFF
    return f"uintBitsToFloat(0x{bits:08X}u)"


def int_literal(value):
    value = int(value)
    if value == -(2**63):
        return "(-9223372036854775807L - 1L)"
    return f"{value}L"


def constant(value, dtype):
    t = glsl_type(dtype)
    if t == "bool":
        return "true" if value else "false"
    if t == "int64_t":
        return int_literal(value)
    if t == "uint64_t":
        return f"{int(value) & 0xFFFFFFFFFFFFFFFF}UL"
    return float_literal(float(value), dtype)


class IndexPrinter(ExprPrinter):
    """sympy index expressions as GLSL in the kernel's index type: `int`
    where Inductor found every index below 2^31 (32-bit arithmetic is
    native on every GPU, 64-bit division is not), else int64_t. Inductor's
    index symbols are non-negative, so most divisions are C's."""

    def __init__(self, index_type="int64_t", widen_symbols=False):
        super().__init__()
        self.t = index_type
        self.widen = widen_symbols  # each (32-bit) symbol widened to int64_t

    def _print_Integer(self, expr):
        v = int(expr)
        if self.t == "int" and -(2**31) < v < 2**31:
            return str(v)
        return int_literal(v)

    def _print_Symbol(self, expr):
        # zero-extended: index symbols and sizes are never negative, and
        # lavapipe miscompiles 64-bit comparisons of sign-extended values
        return f"int64_t(uint({expr}))" if self.widen else str(expr)

    def _int_division(self, expr, c_op, helper):
        """C's `/` or `%` where both sides are known non-negative (they then
        agree with floor division and Python's modulo), else the int64 helper
        of kernels/common/ops.glsl that has Python's semantics."""
        a, b = expr.args
        if a.is_nonnegative and b.is_positive:
            return f"(({self.doprint(a)}) {c_op} ({self.doprint(b)}))"
        return f"{self.t}({helper}(int64_t({self.doprint(a)}), int64_t({self.doprint(b)})))"

    def _print_FloorDiv(self, expr):
        return self._int_division(expr, "/", "rs_div_floor")

    def _print_ModularIndexing(self, expr):
        x, div, mod = expr.args
        x = self.doprint(x)
        if div != 1:
            x = f"({x}) / ({self.doprint(div)})"
        return f"(({x}) % ({self.doprint(mod)}))"

    def _print_PythonMod(self, expr):
        return self._int_division(expr, "%", "rs_remainder")

    def _print_CleanDiv(self, expr):
        a, b = expr.args
        return f"(({self.doprint(a)}) / ({self.doprint(b)}))"

    def _fold(self, fn, expr):
        args = [self.doprint(a) for a in expr.args]
        out = args[0]
        for a in args[1:]:
            out = f"{fn}({self.t}({out}), {self.t}({a}))"
        return out

    def _print_Min(self, expr):
        return self._fold("min", expr)

    def _print_Max(self, expr):
        return self._fold("max", expr)

    def _print_Abs(self, expr):
        return f"abs({self.t}({self.doprint(expr.args[0])}))"

    def _print_Where(self, expr):
        c, p, q = (self.doprint(a) for a in expr.args)
        return f"(({c}) ? {self.t}({p}) : {self.t}({q}))"

    def _print_PowByNatural(self, expr):
        base, exp = expr.args
        if isinstance(exp, sympy.Integer) and 0 <= int(exp) <= 8:
            b = self.doprint(base)
            return "(" + " * ".join([f"({b})"] * int(exp)) + ")" if int(exp) else "1L"
        return f"rs_ipow(int64_t({self.doprint(base)}), int64_t({self.doprint(exp)}))"

    _print_Pow = _print_PowByNatural

    def _print_And(self, expr):
        return " && ".join(f"({self.doprint(a)})" for a in expr.args)

    def _print_Or(self, expr):
        return " || ".join(f"({self.doprint(a)})" for a in expr.args)

    def _print_Not(self, expr):
        return f"!({self.doprint(expr.args[0])})"

    def _print_BooleanTrue(self, expr):
        return "true"

    def _print_BooleanFalse(self, expr):
        return "false"

    def _print_ToFloat(self, expr):
        return f"float({self.doprint(expr.args[0])})"

    def _print_FloatTrueDiv(self, expr):
        a, b = expr.args
        return f"(float({self.doprint(a)}) / float({self.doprint(b)}))"

    _print_IntTrueDiv = _print_FloatTrueDiv

    def _print_Float(self, expr):
        return float_literal(float(expr))

    def _print_floor(self, expr):
        return f"int64_t(floor({self.doprint(expr.args[0])}))"

    _print_FloorToInt = _print_floor

    def _print_ceiling(self, expr):
        return f"int64_t(ceil({self.doprint(expr.args[0])}))"

    _print_CeilToInt = _print_ceiling

    def _print_TruncToInt(self, expr):
        return f"int64_t(trunc({self.doprint(expr.args[0])}))"

    def _print_RoundToInt(self, expr):
        return f"int64_t(roundEven({self.doprint(expr.args[0])}))"


def _dtype(x):
    """The torch dtype of an operand (a CSE variable, or a literal)."""
    d = getattr(x, "dtype", None)
    if d is not None:
        return d
    if isinstance(x, bool):
        return torch.bool
    if isinstance(x, int):
        return torch.int64
    if isinstance(x, float):
        return torch.float32
    return None


def _cast(x, dtype):
    """x as a value of dtype's GLSL type (x's own type when already so)."""
    src = _dtype(x)
    if src is not None and glsl_type(src) == glsl_type(dtype):
        return str(x)
    return convert(str(x), src, dtype)


def convert(x, src, dtype):
    """GLSL converting x (of src's type) to `dtype`, as PyTorch's CPU casts do
    (c10/util/TypeCast.h: truncation toward zero, integer wrap-around, bool
    is != 0 with NaN true, float16/bfloat16 rounded to nearest even)."""
    t = glsl_type(dtype)
    s = glsl_type(src) if src is not None else None
    if t == "bool":
        return x if s == "bool" else f"rs_truth({x})"
    if s == "bool":
        return f"({x} ? {constant(1, dtype)} : {constant(0, dtype)})"
    if t in ("int64_t", "uint64_t"):
        if s == "float":
            bits = f"rs_i32_from_f({x})" if dtype in (torch.int8, torch.int16, torch.int32, torch.uint16) else (
                f"rs_u64_from_f({x})" if dtype == torch.uint64 else f"rs_i64_from_f({x})")
            v = f"{t}({bits})"
        elif s == "double":
            bits = f"rs_i32_from_d(doubleBitsToUint64({x}))" if dtype in (torch.int8, torch.int16, torch.int32, torch.uint16) else (
                f"rs_u64_from_d(doubleBitsToUint64({x}))" if dtype == torch.uint64 else f"rs_i64_from_d(doubleBitsToUint64({x}))")
            v = f"{t}({bits})"
        else:
            v = f"{t}({x})"
        return wrap_int(v, dtype)
    if t == "float":
        v = x if s == "float" else f"float({x})"
        if dtype == torch.float16:
            return f"rs_f16_dec(rs_f16_enc({v}))"
        if dtype == torch.bfloat16:
            return f"rs_bf16_dec(rs_bf16_enc({v}))"
        return v
    if t == "double":
        return x if s == "double" else f"double({x})"
    raise NotImplementedError(f"russet: torch.compile cannot convert to {dtype}")


NARROW_INTS = (torch.int8, torch.int16, torch.int32, torch.uint8, torch.uint16, torch.uint32)


def wrap_int(v, dtype):
    """An int64_t value wrapped to a narrower integer dtype's range."""
    bits = {torch.int8: 8, torch.int16: 16, torch.int32: 32}.get(dtype)
    if bits:
        return f"((({v}) << {64 - bits}) >> {64 - bits})"
    ubits = {torch.uint8: 8, torch.uint16: 16, torch.uint32: 32}.get(dtype)
    if ubits:
        return f"(({v}) & {int_literal((1 << ubits) - 1)})"
    return v


def _promote(*xs):
    """The operands converted to their promoted dtype, and that dtype."""
    dts = [_dtype(x) for x in xs]
    known = [d for d in dts if d is not None]
    out = known[0] if known else torch.int64
    for d in known[1:]:
        out = torch.promote_types(out, d)
    return [_cast(x, out) if d is not None else str(x) for x, d in zip(xs, dts)], out


def _binary(fmt, ordered=False):
    def op(a, b):
        (x, y), dt = _promote(a, b)
        if ordered and dt == torch.bool:  # GLSL orders no bools: false < true as ints
            x, y = f"int({x})", f"int({y})"
        return fmt.format(x, y)

    return staticmethod(op)


def _call(fn):
    return staticmethod(lambda *xs: f"{fn}({', '.join(_promote(*xs)[0])})")


def _float_call(fn):
    """A float function: integer and bool operands go to float first."""

    def op(*xs):
        dts = [_dtype(x) for x in xs]
        target = torch.float64 if any(d == torch.float64 for d in dts) else torch.float32
        return f"{fn}({', '.join(_cast(x, target) for x in xs)})"

    return staticmethod(op)


_PHILOX = """#include "common/philox.glsl"
float rs_inductor_randn(uint64_t seed, uint64_t offset) {
    uvec4 w = rs_philox_block(seed, 0UL, offset);
    float r = sqrt(-2.0 * rs_op_log(rs_u01_open0(w.x)));
    return r * rs_op_cos(6.2831855 * rs_u01(w.y));
}
int64_t rs_inductor_randint(uint64_t seed, uint64_t offset, int64_t low, int64_t high) {
    uvec4 w = rs_philox_block(seed, 0UL, offset);
    uint64_t u = (uint64_t(w.y) << 32) | uint64_t(w.x);
    return low + int64_t(u % uint64_t(high - low));
}
"""


def _need_philox():
    V.kernel.helpers.setdefault("philox", _PHILOX)


class GlslOverrides(OpOverrides):
    """Inductor's ops as GLSL expressions over russet's op library. An op
    not defined here (nor decomposed by OpOverrides into ones that are)
    raises NotImplementedError while the kernel is generated."""

    @staticmethod
    def constant(value, dtype):
        return constant(value, dtype)

    @staticmethod
    def to_dtype(x, dtype, src_dtype=None, use_compute_types=True):
        return convert(str(x), src_dtype if src_dtype is not None else _dtype(x), dtype)

    @staticmethod
    def to_dtype_bitcast(x, dtype, src_dtype):
        pairs = {
            (torch.float32, torch.int32): "int64_t(floatBitsToInt({}))",
            (torch.int32, torch.float32): "intBitsToFloat(int({}))",
            (torch.float64, torch.int64): "doubleBitsToInt64({})",
            (torch.int64, torch.float64): "int64BitsToDouble({})",
        }
        fmt = pairs.get((src_dtype, dtype))
        if fmt is None:
            raise NotImplementedError(f"russet: bitcast {src_dtype} -> {dtype}")
        return fmt.format(x)

    @staticmethod
    def index_expr(expr, dtype):
        # a value, not an address: in 64 bits from the start (lavapipe
        # miscompiles 64-bit comparisons of sign-extended 32-bit values)
        idx = V.kernel.vexpr(V.kernel.rename_indexing(V.kernel.prepare_indexing(expr)))
        # an integer expression is int64_t; one with true divisions is float
        kind = torch.int64 if expr.is_integer else (torch.float64 if dtype == torch.float64 else torch.float32)
        var = V.kernel.cse.generate(V.kernel.compute, idx, bounds=get_bounds_index_expr(expr), dtype=kind)
        return ops.to_dtype(var, dtype)

    @staticmethod
    def value_expr(expr, dtype):
        return GlslOverrides.index_expr(expr, dtype)

    @staticmethod
    def masked(mask, body, other):
        return V.kernel.masked_value(mask, body, other)

    @staticmethod
    def where(a, b, c):
        (x, y), _ = _promote(b, c)
        return f"({_cast(a, torch.bool)} ? {x} : {y})"

    add = _binary("({} + {})")
    sub = _binary("({} - {})")
    mul = _binary("({} * {})")
    eq = _binary("({} == {})")
    ne = _binary("({} != {})")
    lt = _binary("({} < {})", ordered=True)
    le = _binary("({} <= {})", ordered=True)
    gt = _binary("({} > {})", ordered=True)
    ge = _binary("({} >= {})", ordered=True)
    bitwise_and = and_ = _call("rs_band")
    bitwise_or = or_ = _call("rs_bor")
    bitwise_xor = xor = _call("rs_bxor")
    maximum = _call("rs_maximum")
    minimum = _call("rs_minimum")
    truncdiv = _call("rs_div_trunc")
    floordiv = _call("rs_div_floor")
    mod = fmod = _call("rs_fmod")
    remainder = _call("rs_remainder")

    @staticmethod
    def truediv(a, b):
        (x, y), dt = _promote(a, b)
        if not dt.is_floating_point:
            x, y = _cast(a, torch.float32), _cast(b, torch.float32)
        return f"({x} / {y})"

    div_rn = truediv

    @staticmethod
    def pow(a, b):
        (x, y), dt = _promote(a, b)
        if dt.is_floating_point:
            return f"rs_mx_pow({x}, {y})"
        return f"rs_ipow({x}, {y})"

    @staticmethod
    def bitwise_not(x):
        return f"rs_bnot({x})"

    @staticmethod
    def bitwise_left_shift(a, b):
        (x, y), _ = _promote(a, b)
        return f"rs_shl({x}, {y}, 64)"

    @staticmethod
    def bitwise_right_shift(a, b):
        (x, y), _ = _promote(a, b)
        return f"rs_shr({x}, {y}, 64)"

    @staticmethod
    def logical_and(a, b):
        return f"({_cast(a, torch.bool)} && {_cast(b, torch.bool)})"

    @staticmethod
    def logical_or(a, b):
        return f"({_cast(a, torch.bool)} || {_cast(b, torch.bool)})"

    @staticmethod
    def logical_xor(a, b):
        return f"({_cast(a, torch.bool)} != {_cast(b, torch.bool)})"

    @staticmethod
    def logical_not(a):
        return f"(!{_cast(a, torch.bool)})"

    @staticmethod
    def neg(x):
        return f"(-{x})"

    @staticmethod
    def abs(x):
        return str(x) if _dtype(x) == torch.bool else f"abs({x})"

    @staticmethod
    def sign(x):
        return f"rs_sign({x})"

    @staticmethod
    def signbit(x):
        return f"rs_op_signbit({x})"

    @staticmethod
    def isnan(x):
        return f"rs_op_isnan({x})"

    @staticmethod
    def isinf(x):
        return f"rs_op_isinf({x})"

    @staticmethod
    def relu(x):
        return f"rs_relu({x})"

    @staticmethod
    def fma(a, b, c):
        (x, y, z), _ = _promote(a, b, c)
        return f"fma({x}, {y}, {z})"

    # random numbers (dropout, rand_like): Philox 4x32-10 (kernels/common/
    # philox.glsl) keyed by Inductor's seed, counter by its offset; not
    # eager's stream of numbers (on CUDA neither is)
    @staticmethod
    def rand(seed, offset):
        _need_philox()
        return f"rs_u01(rs_philox_block(uint64_t({seed}), 0UL, uint64_t({offset})).x)"

    @staticmethod
    def randn(seed, offset):
        _need_philox()
        return f"rs_inductor_randn(uint64_t({seed}), uint64_t({offset}))"

    @staticmethod
    def randint64(seed, offset, low, high):
        _need_philox()
        return f"rs_inductor_randint(uint64_t({seed}), uint64_t({offset}), int64_t({low}), int64_t({high}))"

    @staticmethod
    def reciprocal(x):
        return ops.truediv(ops.constant(1.0, torch.float32), x)

    @staticmethod
    def square(x):
        return ops.mul(x, x)

    for _name in (
        "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin",
        "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "erf",
        "erfc", "erfinv", "lgamma", "digamma", "sqrt", "rsqrt", "i0", "i0e", "i1", "i1e",
        "erfcx", "ndtri", "log_ndtr", "entr",
    ):
        locals()[_name] = _float_call(f"rs_op_{_name}")
    for _name in ("floor", "ceil", "trunc", "round"):
        locals()[_name] = _call(f"rs_op_{_name}")
    atan2 = _float_call("rs_atan2")
    hypot = _float_call("rs_mx_hypot")
    copysign = _float_call("rs_mx_copysign")
    nextafter = _float_call("rs_mx_nextafter")
    igamma = _float_call("rs_op_igamma")
    igammac = _float_call("rs_op_igammac")
    zeta = _float_call("rs_op_zeta")
    del _name

