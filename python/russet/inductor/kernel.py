"""Inductor's SIMD kernels as GLSL compute kernels (torch.compile on russet).

A kernel is one of three shapes (docs/compile.md):

- pointwise: one invocation per EPI elements of the flattened iteration
  space, a workgroup apart (its x, and y and z where Inductor tiles, taken
  apart from one linear id);
- persistent reduction: one workgroup an output row (x) of known length
  that the workgroup holds, an element an invocation; the row stays in
  registers and each reduction is a shared-memory tree in line;
- looped reduction: one workgroup of WG invocations a row; the invocations
  stride over the reduction index r0, each folding its values into private
  accumulators, then combine them through shared memory, so that every
  invocation holds the row's result and the code after the loop (another
  loop, the stores) can use it. Inductor's loop IR may hold several such
  loops in a kernel (softmax: the max, the sum, the stores).

Arguments arrive as 64-bit words (russet/inductor/launch.py): the error flag
and site, the tensors' addresses (outputs first), the integers (size
symbols, then the numels that are not constants). Loads and stores go
through kernels/common/dtype.glsl's codecs, so every dtype reads and writes
as in russet's eager kernels; the arithmetic is glsl.py's.
"""

import itertools
import os

import sympy
import torch
from torch._inductor.codegen.common import CSE, DeferredLine, IndentedBuffer, RemovedArg
from torch._inductor.codegen.simd import SIMDKernel, SIMDScheduling
from torch._inductor.runtime.runtime_utils import next_power_of_2
from torch._inductor.utils import get_kernel_metadata
from torch._inductor.virtualized import V
from torch.utils._sympy.printers import PythonPrinter
from torch.utils._sympy.symbol import SymT, free_symbol_is_type, symbol_is_type

from . import glsl
from .device import device_props
from .launch import PUSH_WORDS


def _has_fp64():
    return bool(device_props().has_fp64)


def _max_workgroup():
    """The most invocations a persistent reduction's workgroup may have: the
    device's limit (Vulkan guarantees 128), at most 1024."""
    return min(1024, int(device_props().max_workgroup_invocations))


WG = 256  # invocations a workgroup: within every device's limits (apple: 1024)


def _elements_per_invocation():
    """Elements a pointwise invocation handles, WG apart, so that a
    workgroup covers EPI * WG consecutive elements: on an H100 a copy
    kernel of 16M floats took 104 us at 256 elements a workgroup, 67 us at
    1024 and 200 us at 64 (fifty-third session, docs/compile.md); the
    accesses stay coalesced at each step. RUSSET_INDUCTOR_EPI overrides it
    (in the graph cache key) for measuring."""
    return max(1, int(os.environ.get("RUSSET_INDUCTOR_EPI", "4")))


def _persistent_allowed():
    """RUSSET_INDUCTOR_PERSISTENT=0 forces the looped form of reductions,
    for measuring it (docs/compile.md; in the graph cache key)."""
    return os.environ.get("RUSSET_INDUCTOR_PERSISTENT", "1") != "0"


class GlslCSE(CSE):
    """CSE whose variables are declared with their GLSL type (GLSL has no
    auto). Narrow integers are computed in int64_t and wrapped to their
    dtype's range at each value, as each eager op of PyTorch's CPU wraps."""

    def generate(self, buffer, expr, *, dtype=None, **kwargs):
        if isinstance(expr, str) and dtype in glsl.NARROW_INTS:
            expr = glsl.wrap_int(expr, dtype)
        prefix = self.prefix
        self.prefix = f"{glsl.glsl_type(dtype) if dtype is not None else 'int64_t'} "
        try:
            return super().generate(buffer, expr, dtype=dtype, **kwargs)
        finally:
            self.prefix = prefix


class GlslKernel(SIMDKernel):
    overrides = glsl.GlslOverrides
    suffix = ";"
    newvar_prefix = ""
    sexpr = glsl.IndexPrinter().doprint
    kexpr = sexpr
    pexpr = PythonPrinter().doprint

    def __init__(self, tiling, **kwargs):
        super().__init__(tiling, **kwargs)
        # the index type: 32-bit where every index fits (Inductor decides)
        self.idx = "int" if self._index_is_32bit() else "int64_t"
        self.sexpr = self.kexpr = glsl.IndexPrinter(self.idx).doprint
        self.vexpr = glsl.IndexPrinter("int64_t", widen_symbols=self.idx != "int64_t").doprint
        self.cse = GlslCSE(self.newvar_prefix, self.suffix)
        self.dtypes = set()  # dtype codes the kernel loads or stores
        self.prologue = IndentedBuffer()  # the next loop's accumulators
        self.post_loop = IndentedBuffer()  # the next loop's combines
        self.post_loop_store = IndentedBuffer()
        self.shared = []  # shared arrays: (glsl type, name)
        self._smem_free = {}  # glsl type -> arrays free for the next reduction
        self.helpers = {}  # name -> GLSL source of a helper function
        self.acc_ids = itertools.count()
        self.outside_loop_vars = set()
        self.cpu_scalars = set()  # inner names of 0-d CPU tensors (their values are arguments)
        self._guards = []  # (indirect symbols, the GLSL bool that says they are in range)

    # ------------------------------------------------------------ sizes

    def _index_is_32bit(self):
        # Inductor's choice (get_index_dtype_as_torch_dtype is in torch 2.11
        # and 2.13 alike; where 2.13 keeps it, _index_dtype, 2.11 does not)
        return self.get_index_dtype_as_torch_dtype() == torch.int32

    def dtype_to_str(self, dtype):
        return glsl.glsl_type(dtype)

    def should_use_persistent_reduction(self):
        """A row of known length that one workgroup can hold, an element an
        invocation, is reduced without a loop: its values stay in registers
        between the reductions and the stores that use them (softmax reads
        its row once, not three times)."""
        r = self.numels.get("r0_")
        if not self.features.is_reduction() or "r1_" in self.numels or not isinstance(r, (int, sympy.Integer)):
            return False
        if not _persistent_allowed():
            return False
        # rows up to WG only: at 1024 (an invocation an element, a 1024-wide
        # tree a reduction) the looped form was 2.2x faster on the H200
        # (forty-first session: layer norm 0.075 ms against 0.165 at (8192, 1024))
        return int(r) <= WG

    @property
    def epi(self):
        """Elements an invocation handles: a pointwise kernel's
        _elements_per_invocation(), a reduction's 1 (a workgroup a row)."""
        return 1 if self.inside_reduction_kernel() else _elements_per_invocation()

    @property
    def wg(self):
        """Invocations a workgroup: a reduction's is the power of two that
        holds its row, from 32 to WG (looped) or to the row (persistent),
        when the row length is known."""
        if not self.inside_reduction_kernel():
            return WG
        r = self.numels.get("r0_")
        if isinstance(r, (int, sympy.Integer)):
            cap = _max_workgroup() if self.persistent_reduction else WG
            return max(32, min(cap, next_power_of_2(int(r))))
        return WG

    def inside_reduction_kernel(self):
        return self.features.is_reduction()

    # ------------------------------------------------------------ loads and stores

    def _address(self, var, name):
        dt = V.graph.get_dtype(name)
        if dt in (torch.float64, torch.complex128) and not _has_fp64():
            raise RuntimeError(
                f"russet: torch.compile generates no {dt} kernels on this device: it has no fp64 (the apple "
                "profile never has): run this code uncompiled, where russet computes float64 on the host, "
                "or in float32"
            )
        self.dtypes.add(glsl.dtype_code(dt))
        return dt, glsl.dtype_code(dt)

    @staticmethod
    def _on_cpu(name):
        """A CPU tensor among the inputs: a 0-d one (a Python number turned
        tensor, `x * torch.tensor(3.0)`), which PyTorch lets a device op read."""
        node = V.graph.try_get_buffer(name)
        dev = node.get_device() if node is not None else None
        return dev is not None and dev.type == "cpu"

    def load(self, name, index):
        var = self.args.input(name)
        if self._on_cpu(name):
            # its value comes in its argument word (launch.py), not an address
            dt = V.graph.get_dtype(name)
            self.cpu_scalars.add(var)
            compute_dt = torch.float32 if glsl.glsl_type(dt) == "float" else dt
            if dt == torch.float64 and not _has_fp64():
                compute_dt = torch.float32  # rounded once, as eager's float opmath does
            return self.cse.generate(self.body, f"{var}_value", dtype=compute_dt)
        index = self.prepare_indexing(index)
        dt, code = self._address(var, name)
        raw = f"RS_GET({code})({var}, {self.index_to_str(index)})"
        t = glsl.glsl_type(dt)
        if t == "bool":
            line = f"({raw} != 0UL)"
        elif t == "int64_t":
            line = f"int64_t({raw})"
        elif t == "double":
            line = f"uint64BitsToDouble({raw})"
        else:
            line = raw
        compute_dt = torch.float32 if t == "float" else dt
        guard = self._guard(index)
        if self.persistent_reduction and self._has_rindex(index):
            guard = "r0_mask" + (f" && {guard}" if guard else "")  # an invocation past the row reads nothing
        if guard:  # an index out of range reads nothing (check_bounds)
            line = f"({guard} ? {line} : {glsl.constant(0, compute_dt)})"
        indirect = free_symbol_is_type(index, (SymT.TMP, SymT.INDIRECT))
        if indirect or self._load_mask is not None:
            buf = self.compute  # after the index or mask it needs
        elif self.inside_reduction and self.range_trees[-1].is_loop and not self._has_rindex(index):
            buf = self.body  # the same in every iteration: before the loop, and every later loop may use it
        else:
            buf = self.loads
        result = self.cse.generate(buf, line, dtype=compute_dt)
        if not self.inside_reduction or not self._has_rindex(index):
            self.outside_loop_vars.add(result)
        return result

    def _has_rindex(self, index):
        return free_symbol_is_type(index, (SymT.R0_INDEX, SymT.R1_INDEX))

    def _store_line(self, name, index, value):
        var = self.args.output(name)
        index = self.prepare_indexing(index)
        dt, code = self._address(var, name)
        t = glsl.glsl_type(dt)
        v = glsl._cast(value, dt)
        setter = {"bool": "RS_SET_B", "int64_t": "RS_SET_I", "uint64_t": "RS_SET_U", "float": "RS_SET_F"}
        if t == "double":
            return f"RS_SET_D({code})({var}, {self.index_to_str(index)}, doubleBitsToUint64({v}));"
        if t == "int64_t":
            v = f"uint64_t({v})"
        return f"{setter[t]}({code})({var}, {self.index_to_str(index)}, {v});"

    def store(self, name, index, value, mode=None):
        if mode == "atomic_add":
            text = self._atomic_add_line(name, index, value)
        elif mode is not None:
            raise NotImplementedError(f"russet: store mode {mode}")
        else:
            text = self._store_line(name, index, value)
        index = self.prepare_indexing(index)
        guard = self._guard(index)
        if self.persistent_reduction and self._has_rindex(index):
            guard = "r0_mask" + (f" && {guard}" if guard else "")  # an invocation past the row writes nothing
        if guard:  # an index out of range writes nothing (check_bounds)
            text = f"if ({guard}) {text}"
        # DeferredLine: dropped if the buffer is fused away later
        line = DeferredLine(name, text)
        if self.inside_reduction:
            self.compute.writeline(line)  # inside the loop, in order
        else:
            self.stores.writeline(line)
            self.outside_loop_vars.add(value)

    # atomic adds (scatter_add, index_put with accumulate, the backward of
    # gathers): a compare-and-swap loop on the 32-bit word that holds the
    # element, so no float or 64-bit atomics are needed (apple has neither)
    _ATOMIC = {
        torch.float32: ("float", "uintBitsToFloat(w)", "floatBitsToUint(v)"),
        torch.float16: ("float", "rs_f16_dec(w)", "rs_f16_enc(v)"),
        torch.bfloat16: ("float", "rs_bf16_dec(w)", "rs_bf16_enc(v)"),
        torch.int32: ("int64_t", "int64_t(int(w))", "uint(v)"),
    }

    def _atomic_add_line(self, name, index, value):
        var = self.args.output(name)
        index = self.prepare_indexing(index)
        dt, code = self._address(var, name)
        if dt not in self._ATOMIC:
            raise NotImplementedError(f"russet: atomic add of {dt}")
        t, dec, enc = self._ATOMIC[dt]
        size = dt.itemsize
        fn = f"rs_atomic_add_{code}"
        if fn not in self.helpers:
            mask = (1 << (8 * size)) - 1
            self.helpers[fn] = (
                f"void {fn}(uint64_t base, int64_t off, {t} x) {{\n"
                f"    uint64_t a = base + uint64_t(off) * {size}UL;\n"
                f"    uint64_t wa = a & ~3UL;\n"
                f"    uint sh = uint(a - wa) * 8u;\n"
                f"    RsU32 p = RsU32(wa);\n"
                f"    uint old = p.v;\n"
                f"    for (;;) {{\n"
                f"        uint w = (old >> sh) & {mask}u;\n"
                f"        {t} v = {dec} + x;\n"
                f"        uint nw = (old & ~({mask}u << sh)) | ((({enc}) & {mask}u) << sh);\n"
                f"        uint prev = atomicCompSwap(p.v, old, nw);\n"
                f"        if (prev == old) break;\n"
                f"        old = prev;\n"
                f"    }}\n"
                f"}}\n"
            )
        return f"{fn}({var}, {self.index_to_str(index)}, {glsl._cast(value, dt)});"

    def store_reduction(self, name, index, value):
        # every invocation holds the result; one writes it
        line = self._store_line(name, index, value)
        self.post_loop_store.writeline(DeferredLine(name, f"if (lid == 0u) {line}"))

    # ------------------------------------------------------------ masks and checks

    def masked_value(self, mask, body, other):
        """ops.masked: body() where mask holds, else other."""
        scoped = IndentedBuffer()
        with self.swap_buffers(scoped), scoped.indent():
            result = body()
        dt = glsl._dtype(result) or torch.float32
        var = self.cse.newvar(dtype=dt)
        other_s = glsl.constant(other, dt) if isinstance(other, (bool, int, float)) else glsl._cast(other, dt)
        self.compute.writeline(f"{glsl.glsl_type(dt)} {var};")
        self.compute.writeline(f"if ({glsl._cast(mask, torch.bool)}) {{")
        self.compute.splice(scoped)
        with self.compute.indent():
            self.compute.writeline(f"{var} = {glsl._cast(result, dt)};")
        self.compute.writeline(f"}} else {{ {var} = {other_s}; }}")
        return var

    def check_bounds(self, expr, size, lower, upper):
        """An indirect index out of range raises at the next sync (code 1;
        the message names torch.compile's kernel), and the loads and stores
        through it are skipped: no return, which would leave a workgroup's
        barriers to part of it."""
        if not (lower or upper):
            return
        e, n = self.index_to_str(expr), self.index_to_str(size)
        cond = " || ".join(([f"({e}) < 0L"] if lower else []) + ([f"({e}) >= ({n})"] if upper else []))
        ok = self.cse.newvar(dtype=torch.bool)
        self.compute.writeline(f"bool {ok} = !({cond});")
        self.compute.writeline(f"if (!{ok}) rs_raise(1u, int64_t({e}));")
        self._guards.append((self._indirect_symbols(expr), str(ok)))

    def device_assert_async(self, cond, msg):
        """torch._assert_async and the checks Inductor generates (one_hot's
        range): a false condition raises at the next sync (code 6: the
        message names the generated kernel; the check's own text, `msg`,
        is in the kernel's source as a comment)."""
        comment = " ".join(str(msg).split())[:120].replace("*/", "* /")
        self.compute.writeline(f"if (!({glsl._cast(cond, torch.bool)})) rs_raise(6u, 0L);  /* {comment} */")

    @staticmethod
    def _indirect_symbols(expr):
        return frozenset(x for x in expr.free_symbols if symbol_is_type(x, (SymT.TMP, SymT.INDIRECT)))

    def _guard(self, index):
        """The bounds checks (check_bounds) that an access through `index` needs."""
        syms = self._indirect_symbols(index)
        return " && ".join(ok for key, ok in self._guards if key and key <= syms) or None

    # ------------------------------------------------------------ reductions

    def _acc(self, gtype, init):
        """An invocation's accumulator: before the loop (looped), or where
        the reduction is (persistent)."""
        name = f"acc{next(self.acc_ids)}"
        (self.compute if self.persistent_reduction else self.prologue).writeline(f"{gtype} {name} = {init};")
        return name

    def _fold(self, line):
        """The accumulating step: every iteration of the loop (looped), or
        once where the invocation holds an element of the row (persistent)."""
        self.compute.writeline(f"if (r0_mask) {line}" if self.persistent_reduction else line)

    @property
    def _after(self):
        """Where the workgroup's combine goes: after the loop (looped), or
        in line, where later code uses the result (persistent)."""
        return self.compute if self.persistent_reduction else self.post_loop

    def _smem(self, gtype):
        """A shared array of wg elements; those of finished reductions are
        reused (each reduction ends with a barrier after its result is read)."""
        free = self._smem_free.setdefault(gtype, [])
        if free:
            return free.pop()
        name = f"smem{len(self.shared)}"
        self.shared.append((gtype, name))
        return name

    def _release(self, *arrays):
        types = dict((n, t) for t, n in self.shared)
        for a in arrays:
            self._smem_free.setdefault(types[a], []).append(a)

    def _combine_tree(self, arrays, combine):
        """Shared-memory tree over the workgroup; `combine(dst_index, src_index)`
        writes the GLSL that folds element src into dst."""
        out = self._after
        out.writeline("barrier();")
        out.writeline(f"for (uint s = {self.wg // 2}u; s > 0u; s >>= 1u) {{")
        with out.indent():
            out.writeline("if (lid < s) {")
            with out.indent():
                for line in combine("lid", "lid + s"):
                    out.writeline(line)
            out.writeline("}")
            out.writeline("barrier();")
        out.writeline("}")

    def reduction(self, dtype, src_dtype, reduction_type, value):
        cache_key = (src_dtype, reduction_type, value)
        if cache_key in self.cse.reduction_cache:
            return self.cse.reduction_cache[cache_key]
        result = self._reduction(dtype, src_dtype, reduction_type, value)
        self.cse.reduction_cache[cache_key] = result
        return result

    def _reduction(self, dtype, src_dtype, reduction_type, value):
        assert self.inside_reduction
        if reduction_type in ("welford_reduce", "welford_combine"):
            return self._welford(reduction_type, value)
        if reduction_type in ("argmax", "argmin"):
            return self._arg_reduction(reduction_type, src_dtype, value)
        acc_dt = src_dtype if reduction_type not in ("sum", "prod") else torch.promote_types(src_dtype, dtype)
        if acc_dt in (torch.float16, torch.bfloat16):
            acc_dt = torch.float32
        if reduction_type == "any":
            acc_dt = torch.bool
        gtype = glsl.glsl_type(acc_dt)
        v = glsl._cast(value, acc_dt)
        if reduction_type == "sum":
            init, step = glsl.constant(0, acc_dt), "{a} + {b}"
        elif reduction_type == "prod":
            init, step = glsl.constant(1, acc_dt), "{a} * {b}"
        elif reduction_type == "max":
            init, step = self._identity("max", acc_dt), "rs_maximum({a}, {b})"
        elif reduction_type == "min":
            init, step = self._identity("min", acc_dt), "rs_minimum({a}, {b})"
        elif reduction_type == "any":
            init, step = "false", "({a} || {b})"
        elif reduction_type == "xor_sum":
            init, step = glsl.constant(0, acc_dt), "rs_bxor({a}, {b})"
        else:
            raise NotImplementedError(f"russet: reduction {reduction_type}")
        acc = self._acc(gtype, init)
        self._fold(f"{acc} = {step.format(a=acc, b=v)};")
        sm = self._smem(gtype)
        self._after.writeline(f"{sm}[lid] = {acc};")
        self._combine_tree([sm], lambda d, s: [f"{sm}[{d}] = {step.format(a=f'{sm}[{d}]', b=f'{sm}[{s}]')};"])
        result = self.cse.newvar(dtype=acc_dt)
        self._after.writeline(f"{gtype} {result} = {sm}[0];")
        self._after.writeline("barrier();")
        self._release(sm)
        self.outside_loop_vars.add(result)
        return result

    @staticmethod
    def _identity(kind, dt):
        t = glsl.glsl_type(dt)
        if t == "float":
            return f"uintBitsToFloat({'0xFF800000u' if kind == 'max' else '0x7F800000u'})"
        if t == "double":
            return f"uint64BitsToDouble({'0xFFF0000000000000UL' if kind == 'max' else '0x7FF0000000000000UL'})"
        if t == "bool":
            return "false" if kind == "max" else "true"
        if t == "uint64_t":
            return "0UL" if kind == "max" else "0xFFFFFFFFFFFFFFFFUL"
        return "(-9223372036854775807L - 1L)" if kind == "max" else "9223372036854775807L"

    def _arg_reduction(self, reduction_type, src_dtype, value):
        dt = torch.float32 if src_dtype in (torch.float16, torch.bfloat16) else src_dtype
        t = glsl.glsl_type(dt)
        fn = self._arg_helper(reduction_type, t)
        kind = "max" if reduction_type == "argmax" else "min"
        v = self._acc(t, self._identity(kind, dt))
        i = self._acc("int64_t", "9223372036854775807L")
        r = next(tree for tree in self.range_trees if tree.is_reduction)
        # the index zero-extended (it is never negative; lavapipe miscompiles
        # comparisons of sign-extended 32-bit values)
        ridx = f"int64_t(uint({r.name}))" if self.idx == "int" else r.name
        self._fold(f"{fn}({v}, {i}, {glsl._cast(value, dt)}, {ridx});")
        sv, si = self._smem(t), self._smem("int64_t")
        self._after.writeline(f"{sv}[lid] = {v}; {si}[lid] = {i};")
        self._combine_tree(
            [sv, si],
            lambda d, s: [
                f"{{ {t} cv = {sv}[{d}]; int64_t ci = {si}[{d}]; {fn}(cv, ci, {sv}[{s}], {si}[{s}]);"
                f" {sv}[{d}] = cv; {si}[{d}] = ci; }}"
            ],
        )
        result = self.cse.newvar(dtype=torch.int64)
        self._after.writeline(f"int64_t {result} = {si}[0];")
        self._after.writeline("barrier();")
        self._release(sv, si)
        self.outside_loop_vars.add(result)
        return result

    def _arg_helper(self, reduction_type, t):
        """(v, i) <- the better of (v, i) and (nv, ni): NaN beats every
        number (as on CPU), ties go to the smaller index."""
        name = f"rs_{reduction_type}_step_{t}"
        if name not in self.helpers:
            better = "nv > v" if reduction_type == "argmax" else "nv < v"
            nan = "isnan(nv)" if t in ("float", "double") else "false"
            vnan = "isnan(v)" if t in ("float", "double") else "false"
            if t == "bool":
                better = "(nv && !v)" if reduction_type == "argmax" else "(!nv && v)"
            self.helpers[name] = (
                f"void {name}(inout {t} v, inout int64_t i, {t} nv, int64_t ni) {{\n"
                f"    if (ni == 9223372036854775807L) return;\n"
                f"    bool take;\n"
                f"    if ({vnan}) take = {nan} && ni < i;\n"
                f"    else if ({nan}) take = true;\n"
                f"    else take = {better} || (nv == v && ni < i) || i == 9223372036854775807L;\n"
                f"    if (take) {{ v = nv; i = ni; }}\n"
                f"}}\n"
            )
        return name

    def _welford(self, reduction_type, value):
        """(mean, m2, weight), folded per invocation then combined with
        Chan et al.'s formula, in float32 (float64 for float64 inputs)."""
        vals = value if isinstance(value, tuple) else (value,)
        dt = torch.float64 if any(glsl._dtype(x) == torch.float64 for x in vals) else torch.float32
        t = glsl.glsl_type(dt)
        fn = self._welford_helper(t)
        zero = glsl.constant(0, dt)
        m, m2, w = self._acc(t, zero), self._acc(t, zero), self._acc(t, zero)
        if reduction_type == "welford_reduce":
            x = glsl._cast(value, dt)
            self._fold(f"{fn}({m}, {m2}, {w}, {x}, {zero}, {glsl.constant(1, dt)});")
        else:
            a, b, c = (glsl._cast(x, dt) for x in value)
            self._fold(f"{fn}({m}, {m2}, {w}, {a}, {b}, {c});")
        sm, sm2, sw = self._smem(t), self._smem(t), self._smem(t)
        self._after.writeline(f"{sm}[lid] = {m}; {sm2}[lid] = {m2}; {sw}[lid] = {w};")
        self._combine_tree(
            [sm, sm2, sw],
            lambda d, s: [
                f"{{ {t} a = {sm}[{d}], b = {sm2}[{d}], c = {sw}[{d}]; {fn}(a, b, c, {sm}[{s}], {sm2}[{s}], {sw}[{s}]);"
                f" {sm}[{d}] = a; {sm2}[{d}] = b; {sw}[{d}] = c; }}"
            ],
        )
        out = []
        for arr in (sm, sm2, sw):
            r = self.cse.newvar(dtype=dt)
            self._after.writeline(f"{t} {r} = {arr}[0];")
            self.outside_loop_vars.add(r)
            out.append(r)
        self._after.writeline("barrier();")
        self._release(sm, sm2, sw)
        return tuple(out)

    def _welford_helper(self, t):
        name = f"rs_welford_{t}"
        if name not in self.helpers:
            self.helpers[name] = (
                f"void {name}(inout {t} m, inout {t} m2, inout {t} w, {t} bm, {t} bm2, {t} bw) {{\n"
                f"    if (bw == {t}(0)) return;\n"
                f"    {t} nw = w + bw;\n"
                f"    {t} delta = bm - m;\n"
                f"    {t} f = bw / nw;\n"
                f"    m = m + delta * f;\n"
                f"    m2 = m2 + bm2 + delta * delta * w * f;\n"
                f"    w = nw;\n"
                f"}}\n"
            )
        return name

    # ------------------------------------------------------------ structure

    def codegen_iteration_ranges_entry(self, entry):
        line = f"{self.idx} {entry.name} = {self.kexpr(self.rename_indexing(entry.expr))};"
        if entry.root.is_loop:
            self.indexing_code.writeline(line)
        else:
            self.body.writeline(line)

    def codegen_body(self):
        if not (self.indexing_code or self.loads or self.compute or self.stores or self.post_loop or self.post_loop_store):
            return
        loop = [t for t in self.range_trees if t.is_loop]
        if self.inside_reduction and loop:
            if len(loop) != 1:
                raise NotImplementedError("russet: reductions over more than one loop index")
            tree = loop[0]
            self.body.splice(self.prologue)
            self.body.writeline(
                f"for ({self.idx} {tree.name} = {self.idx}(lid); {tree.name} < {tree.prefix}numel; {tree.name} += {self.wg}) {{"
            )
            with self.body.indent():
                self.body.splice(self.indexing_code)
                self.body.splice(self.loads)
                self.body.splice(self.compute)
                self.body.splice(self.stores)
            self.body.writeline("}")
            self.cse.invalidate(self.outside_loop_vars)
            tree.cache_clear()
        else:
            self.body.splice(self.prologue)
            self.body.splice(self.indexing_code)
            self.body.splice(self.loads)
            self.body.splice(self.compute)
            self.body.splice(self.stores)
        self.body.splice(self.post_loop)
        self.body.splice(self.post_loop_store)
        for buf in (self.prologue, self.indexing_code, self.loads, self.compute, self.stores, self.post_loop, self.post_loop_store):
            buf.clear()

    def _tensor_args(self):
        """(outer name, inner name, written) of each tensor argument, outputs first."""
        out = []
        for outer, inner in self.args.output_buffers.items():
            if isinstance(inner, RemovedArg) or outer in self.removed_buffers:
                continue
            out.append((outer, inner, True))
        for outer, inner in self.args.input_buffers.items():
            if isinstance(inner, RemovedArg):
                continue
            out.append((outer, inner, False))
        return out

    def _int_args(self):
        """(kernel name, wrapper expression) of each integer argument."""
        ints = [(inner, str(outer)) for outer, inner in self.args.sizevars.items()]
        for tree in self.range_trees:
            if isinstance(tree.numel, (int, sympy.Integer)):
                continue
            if not tree.is_reduction or self.inside_reduction_kernel():
                ints.append((f"{tree.prefix}numel", None))
        return ints

    def codegen_kernel(self, name=None):
        self.codegen_body()
        tensors = self._tensor_args()
        ints = self._int_args()
        nwords = 2 + len(tensors) + len(ints)
        code = IndentedBuffer()
        code.writeline("#version 460")
        code.writeline("#include \"common/dtype.glsl\"")
        for c in sorted(self.dtypes):
            code.writelines([f"#define T_DT {c}", "#include \"common/dtype_inst.glsl\"", "#undef T_DT"])
        code.writeline("#define RS_CT_BITS 64")
        code.writeline(f"layout(local_size_x = {self.wg}) in;")
        if nwords > PUSH_WORDS:  # the rest through the arena, as rs_dispatch_words passes them
            code.writeline(f"layout(buffer_reference, std430, buffer_reference_align = 8) buffer RsArgs {{ uint64_t w[{nwords}]; }};")
            code.writeline("layout(push_constant) uniform Push { uint64_t args; } pc;")
            code.writeline("#define ARG(i) RsArgs(pc.args).w[i]")
        else:
            code.writeline(f"layout(push_constant) uniform Push {{ uint64_t w[{nwords}]; }} pc;")
            code.writeline("#define ARG(i) pc.w[i]")
        code.writeline("layout(buffer_reference, std430, buffer_reference_align = 8) buffer RsErr { uint site; uint code; int64_t value; };")
        code.writeline("void rs_raise(uint code, int64_t value) {")
        code.writeline("    RsErr e = RsErr(ARG(0));")
        code.writeline("    if (atomicCompSwap(e.site, 0u, uint(ARG(1))) == 0u) { e.code = code; e.value = value; }")
        code.writeline("}")
        code.writeline("#include \"common/ops.glsl\"")
        code.writeline(
            "int64_t rs_ipow(int64_t b, int64_t e) { int64_t r = 1L; if (e < 0L) return b == 1L ? 1L : (b == -1L ? ((e & 1L) != 0L ? -1L : 1L) : 0L);"
            " while (e > 0L) { if ((e & 1L) != 0L) r *= b; b *= b; e >>= 1; } return r; }"
        )
        for src in self.helpers.values():
            code.splice(src)
        for gtype, sname in self.shared:
            code.writeline(f"shared {gtype} {sname}[{self.wg}];")
        code.writeline("void main() {")
        with code.indent():
            code.writeline("uint lid = gl_LocalInvocationID.x;")
            code.writeline("uint gid = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;")
            for i, (outer, inner, _) in enumerate(tensors):
                if inner in self.cpu_scalars:
                    t = glsl.glsl_type(V.graph.get_dtype(outer))
                    if t == "double" and not _has_fp64():
                        t = "float"  # float64 bits, converted in software (dtype.glsl)
                        code.writeline(f"float {inner}_value = rs_f_from_d(ARG({2 + i}));")
                        continue
                    value = {
                        "float": f"uintBitsToFloat(uint(ARG({2 + i})))",
                        "double": f"uint64BitsToDouble(ARG({2 + i}))",
                        "bool": f"(ARG({2 + i}) != 0UL)",
                    }.get(t, f"{t}(ARG({2 + i}))")
                    code.writeline(f"{t} {inner}_value = {value};")
                else:
                    code.writeline(f"uint64_t {inner} = ARG({2 + i});")
            for j, (inner, _) in enumerate(ints):
                code.writeline(f"{self.idx} {inner} = {self.idx}(ARG({2 + len(tensors) + j}));")
            for tree in self.range_trees:
                if isinstance(tree.numel, (int, sympy.Integer)):
                    code.writeline(f"{self.idx} {tree.prefix}numel = {self.kexpr(sympy.Integer(tree.numel))};")
            outer_trees = [t for t in self.range_trees if not t.is_reduction]
            # in 64 bits until checked: the last workgroup may pass 2^31
            pointwise = not self.inside_reduction_kernel()
            linear = f"(int64_t(gid) * {self.epi}L + int64_t(rs_e)) * {self.wg}L + int64_t(lid)" if pointwise \
                else "int64_t(gid)"
            total = " * ".join(f"int64_t({t.prefix}numel)" for t in outer_trees) or "1L"
            if pointwise:  # this invocation's elements, a workgroup apart
                code.writeline(f"for (uint rs_e = 0u; rs_e < {self.epi}u; rs_e++) {{")
                code.do_indent()
            code.writeline(f"int64_t linear64 = {linear};")
            code.writeline(f"if (linear64 >= {total}) return;")
            code.writeline(f"{self.idx} linear = {self.idx}(linear64);")
            rest = "linear"
            for i, t in enumerate(outer_trees):
                # the last tree needs no remainder (linear < the total)
                last = i == len(outer_trees) - 1
                code.writeline(f"{self.idx} {t.name} = {rest if last else f'{rest} % {t.prefix}numel'};")
                rest = f"({rest} / {t.prefix}numel)"
            if self.persistent_reduction:
                # an element of the row an invocation; those past it hold identities
                code.writeline(f"{self.idx} r0_index = {self.idx}(lid);")
                code.writeline("bool r0_mask = r0_index < r0_numel;")
            code.splice(self.body)
            if pointwise:
                code.do_unindent()
                code.writeline("}")
        code.writeline("}")
        return code.getvalue()

    def call_kernel(self, name, node=None, deallocate_ws=True):
        wrapper = V.graph.wrapper_code
        for v in self.args.sizevars:
            wrapper.ensure_size_computed(v)
        args = [outer for outer, _, _ in self._tensor_args()]
        args += [str(outer) for outer in self.args.sizevars]
        outer_numel = sympy.Integer(1)
        for tree in self.range_trees:
            numel = tree.numel
            if not isinstance(numel, (int, sympy.Integer)):
                expr = numel if isinstance(numel, sympy.Symbol) else V.graph.wrapper_code.generate_numel_expr(name, tree).inner
                if not tree.is_reduction or self.inside_reduction_kernel():
                    args.append(str(expr))
            if not tree.is_reduction:
                outer_numel = outer_numel * numel
        if self.inside_reduction_kernel():
            args.append(f"threads={self.pexpr(outer_numel * self.wg)}")
        else:  # an invocation per epi elements, rounded up
            args.append(f"threads=-(-({self.pexpr(outer_numel)}) // {self.epi})")
        wrapper.generate_kernel_call(name, args, device=V.graph.get_current_device_or_throw(), triton=False)


class GlslScheduling(SIMDScheduling):
    kernel_type = GlslKernel
    _counter = itertools.count()

    def define_kernel(self, src_code, node_schedule, kernel):
        wrapper = V.graph.wrapper_code
        if src_code in wrapper.src_to_kernel:
            return wrapper.src_to_kernel[src_code]
        name = f"russet_glsl_{next(self._counter)}"
        wrapper.src_to_kernel[src_code] = name
        wrapper.add_import_once("from russet.inductor.launch import GlslKernel as _RussetGlsl")
        tensors = kernel._tensor_args()
        n_out = sum(1 for _, _, w in tensors if w)
        origins, _ = get_kernel_metadata(node_schedule, wrapper)
        wrapper.header.writeline(f"# {origins}")
        wrapper.header.writeline(f"{name} = _RussetGlsl({name!r}, r'''")
        wrapper.header.splice(src_code)
        wrapper.header.writeline(f"''', n_tensors={len(tensors)}, n_out={n_out}, wg={kernel.wg})")
        return name
