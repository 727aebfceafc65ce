"""Copies and casts: host->device, device->host, device->device.

Every result is compared bit for bit with PyTorch CPU's own cast of the same
data. The values (small powers of two, and a few signed fractions for the
float pairs) are exactly representable in every dtype involved, so there is
no rounding-mode question: any difference is a bug.
"""

import os
import warnings

import pytest
import torch

D = "russet"

DTYPES = [
    torch.bool, torch.uint8, torch.uint16, torch.uint32, torch.uint64,
    torch.int8, torch.int16, torch.int32, torch.int64,
    torch.float16, torch.bfloat16, torch.float32, torch.float64,
    torch.complex32, torch.complex64, torch.complex128,
    torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e4m3fnuz, torch.float8_e5m2fnuz,
    torch.float8_e8m0fnu,
]
FLOATISH = {
    torch.float16, torch.bfloat16, torch.float32, torch.float64,
    torch.complex32, torch.complex64, torch.complex128,
    torch.float8_e4m3fn, torch.float8_e5m2, torch.float8_e4m3fnuz, torch.float8_e5m2fnuz,
}
PAIRS = [(a, b) for a in DTYPES for b in DTYPES]


def name(dt):
    return str(dt).replace("torch.", "")


def base_values(src, dst):
    # float8_e8m0fnu has no zero and no sign: powers of two only.
    if torch.float8_e8m0fnu in (src, dst):
        vals = [1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 1.0, 2.0]
    else:
        vals = [0.0, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 0.0, 1.0]
    if src in FLOATISH and dst in FLOATISH:
        vals += [-1.5, 0.25, 3.0, -0.5, 0.375]
    return torch.tensor(vals, dtype=torch.float64)


def make(values, dtype):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return values.to(dtype)


def cpu_cast(t, dtype):
    """CPU's cast, or the exception CPU raises for it."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return t.to(dtype), None
        except Exception as e:  # noqa: BLE001
            return None, e


def as_bytes(t):
    t = t.contiguous()
    if t.dtype == torch.bool:
        t = t.view(torch.uint8)
    return t.reshape(-1).view(torch.uint8)


def assert_same(got, ref):
    assert got.device.type == "cpu"
    assert got.dtype == ref.dtype, (got.dtype, ref.dtype)
    assert got.shape == ref.shape
    gb, rb = as_bytes(got), as_bytes(ref)
    if not torch.equal(gb, rb):
        raise AssertionError(
            f"{ref.dtype}: got {got.to(torch.float64) if got.dtype != torch.complex32 else got}"
            f" expected {ref.to(torch.float64) if ref.dtype != torch.complex32 else ref}"
        )


@pytest.mark.parametrize("src,dst", PAIRS, ids=[f"{name(a)}->{name(b)}" for a, b in PAIRS])
def test_cast_pair(src, dst):
    src_cpu = make(base_values(src, dst), src)
    ref, err = cpu_cast(src_cpu, dst)

    # identity upload / download of the source dtype always works
    src_dev = src_cpu.to(D)
    assert src_dev.device.type == D and src_dev.dtype == src
    assert_same(src_dev.cpu(), src_cpu)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if err is not None:
            # CPU cannot do this cast: russet must raise too, not invent a result.
            with pytest.raises(Exception):
                src_cpu.to(D, dst).cpu()
            with pytest.raises(Exception):
                src_dev.to(dst).cpu()
            return
        # host -> device, cast on the way
        assert_same(src_cpu.to(D, dst).cpu(), ref)
        # device -> host, cast on the way
        assert_same(src_dev.to("cpu", dst), ref)
        # device -> device cast
        out = src_dev.to(dst)
        assert out.device.type == D and out.dtype == dst
        assert_same(out.cpu(), ref)
        # copy_ into an existing device tensor of the other dtype
        buf = torch.empty(src_cpu.shape, dtype=dst, device=D)
        buf.copy_(src_dev)
        assert_same(buf.cpu(), ref)


LAYOUT_DTYPES = [torch.float32, torch.int64, torch.float16, torch.bool, torch.uint8,
                 torch.complex64, torch.bfloat16, torch.float64, torch.int8]


def grid(dtype, shape=(5, 6)):
    n = 1
    for s in shape:
        n *= s
    v = (torch.arange(n, dtype=torch.float64) % 17).reshape(shape)
    if dtype == torch.bool:
        v = v % 2
    return make(v, dtype)


@pytest.mark.parametrize("dtype", LAYOUT_DTYPES, ids=name)
def test_noncontiguous_to_device(dtype):
    a = grid(dtype)
    views = {
        "transposed": a.t(),
        "sliced": a[1:4, ::2],
        "expanded": a[:, :1].expand(5, 6),
        "stepped_rows": a[::2],
        "negative_offset_slice": a[2:, 3:],
        "row": a[3],
    }
    for label, v in views.items():
        d = v.to(D)
        assert d.shape == v.shape, label
        assert_same(d.cpu(), v.contiguous())
        # into a contiguous device buffer
        buf = torch.empty(v.shape, dtype=dtype, device=D)
        buf.copy_(v)
        assert_same(buf.cpu(), v.contiguous())


@pytest.mark.parametrize("dtype", LAYOUT_DTYPES, ids=name)
def test_noncontiguous_from_device(dtype):
    a = grid(dtype)
    d = a.to(D)
    views = {
        "transposed": (d.t(), a.t()),
        "sliced": (d[1:4, ::2], a[1:4, ::2]),
        "expanded": (d[:, :1].expand(5, 6), a[:, :1].expand(5, 6)),
        "offset": (d[2:, 3:], a[2:, 3:]),
        "select": (d[:, 4], a[:, 4]),
    }
    for label, (dv, cv) in views.items():
        # device view -> host
        assert_same(dv.cpu(), cv.contiguous())
        # device view -> device contiguous
        c = dv.contiguous()
        assert c.is_contiguous(), label
        assert_same(c.cpu(), cv.contiguous())
        # device view -> host buffer that is itself non-contiguous
        host = torch.zeros(cv.shape[::-1], dtype=dtype).t() if cv.dim() == 2 else torch.zeros(
            cv.shape, dtype=dtype)
        host.copy_(dv)
        assert_same(host, cv.contiguous())


@pytest.mark.parametrize("dtype", LAYOUT_DTYPES, ids=name)
def test_copy_into_device_views(dtype):
    a = grid(dtype)
    # contiguous -> non-contiguous device destination (transposed, stepped)
    dst = torch.zeros(6, 5, dtype=dtype, device=D)
    dst.t().copy_(a.to(D))
    assert_same(dst.cpu(), a.t().contiguous())
    dst2 = torch.zeros(10, 6, dtype=dtype, device=D)
    dst2[::2].copy_(a.to(D))
    ref = torch.zeros(10, 6, dtype=dtype)
    ref[::2] = a
    assert_same(dst2.cpu(), ref)
    # host -> device view
    dst3 = torch.zeros(10, 6, dtype=dtype, device=D)
    dst3[1::2].copy_(a)
    ref3 = torch.zeros(10, 6, dtype=dtype)
    ref3[1::2] = a
    assert_same(dst3.cpu(), ref3)
    # broadcasting source
    row = a[0]
    dst4 = torch.empty(5, 6, dtype=dtype, device=D)
    dst4.copy_(row.to(D))
    assert_same(dst4.cpu(), row.expand(5, 6).contiguous())


def test_copy_with_cast_and_views():
    a = grid(torch.int32)
    dst = torch.zeros(6, 5, dtype=torch.float16, device=D)
    dst.t().copy_(a.to(D))
    assert_same(dst.cpu(), a.t().to(torch.float16).contiguous())
    dst2 = torch.zeros(5, 6, dtype=torch.float32, device=D)
    dst2.copy_(a.t().t())
    assert_same(dst2.cpu(), a.to(torch.float32))
    x = a.to(D).t().to(torch.float64)
    assert_same(x.cpu(), a.t().to(torch.float64).contiguous())


# Device copies and fills walk their views in the destination's memory
# order (src/engine/engine.h, rs_views_by_stride): a channels_last tensor is
# one run. Views stored in other orders than their dims, size-1 dims with
# odd strides, expanded sources, casts and sliced (not dense) views; each
# against CPU bit for bit
def test_copies_and_fills_in_memory_order():
    x = torch.arange(2 * 3 * 4 * 5, dtype=torch.float32).reshape(2, 3, 4, 5)
    cl, cl3 = torch.channels_last, torch.channels_last_3d
    xd = x.to(D)
    for fmt_from, fmt_to in ((cl, cl), (cl, torch.contiguous_format), (torch.contiguous_format, cl)):
        got = xd.to(memory_format=fmt_from).clone(memory_format=fmt_to)
        assert got.stride() == x.to(memory_format=fmt_from).clone(memory_format=fmt_to).stride()
        assert_same(got.cpu(), x)
    # casts between channels_last tensors, and a fill of each
    assert_same(xd.to(memory_format=cl).to(torch.float16).cpu(), x.to(torch.float16))
    for t in (xd.to(memory_format=cl).clone(), xd.permute(3, 1, 0, 2).contiguous().permute(2, 1, 3, 0)):
        t.fill_(7.0)
        assert_same(t.cpu(), torch.full_like(x, 7.0))
    # 5-d, channels_last_3d, a size-1 dim whose stride is not the dense one
    y = torch.arange(2 * 1 * 3 * 4 * 2, dtype=torch.int32).reshape(2, 1, 3, 4, 2)
    yd = y.to(D).to(memory_format=cl3)
    assert_same(yd.clone().cpu(), y)
    odd = torch.empty_strided((2, 1, 3, 4, 2), (24, 999, 1, 6, 3), dtype=torch.int32, device=D)
    odd.copy_(yd)
    assert_same(odd.cpu(), y)
    # an expanded source into a channels_last destination; a sliced one
    dst = torch.zeros(2, 3, 4, 5, device=D).to(memory_format=cl)
    dst.copy_(torch.arange(5.0, device=D).expand(2, 3, 4, 5))
    assert_same(dst.cpu(), torch.arange(5.0).expand(2, 3, 4, 5).contiguous())
    base = xd.to(memory_format=cl)
    part = base[:, 1:, :, ::2]
    assert_same(part.clone().cpu(), x[:, 1:, :, ::2].contiguous())
    part.fill_(-1.0)
    ref = x.clone()
    ref[:, 1:, :, ::2] = -1.0
    assert_same(base.cpu(), ref)


# Contiguous fills from 16-byte aligned addresses write 16-byte words of the
# repeated value, then the tail element by element (src/engine/fill.c):
# every element size, lengths around the word, offsets that misalign the
# start, and the neighbours left alone
@pytest.mark.parametrize("dtype", [torch.bool, torch.uint8, torch.int16, torch.float16, torch.float32, torch.int64,
                                   torch.float64, torch.complex64, torch.complex128], ids=name)
def test_contiguous_fills_by_words_leave_neighbours(dtype):
    v = True if dtype == torch.bool else 3
    for n in (1, 3, 15, 16, 17, 33, 1000, 4099):
        for off in (0, 1, 3):
            got = torch.zeros(n + off + 2, dtype=dtype, device=D)
            got[off:off + n].fill_(v)
            ref = torch.zeros(n + off + 2, dtype=dtype)
            ref[off:off + n].fill_(v)
            assert_same(got.cpu(), ref)


def test_device_to_device_same_dtype_overlapping_storage():
    a = torch.arange(20, dtype=torch.float32)
    d = a.to(D)
    d[5:15].copy_(d[0:10].clone())
    ref = torch.arange(20, dtype=torch.float32)
    ref[5:15] = torch.arange(10, dtype=torch.float32)
    assert_same(d.cpu(), ref)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.float16, torch.uint8], ids=name)
def test_non_blocking(dtype):
    a = grid(dtype, (64, 33))
    d = a.to(D, non_blocking=True)
    torch.russet.synchronize()
    assert_same(d.cpu(), a)
    back = d.t().to("cpu", non_blocking=True)
    torch.russet.synchronize()
    assert_same(back, a.t().contiguous())
    host = torch.empty_like(a)
    host.copy_(d, non_blocking=True)
    torch.russet.synchronize()
    assert_same(host, a)
    d2 = torch.empty_like(d)
    d2.copy_(d, non_blocking=True)
    torch.russet.synchronize()
    assert_same(d2.cpu(), a)


def test_non_blocking_source_reuse():
    """The host source may be overwritten after synchronize without changing the device copy,
    and a copy issued before a later write to the device tensor sees the old data."""
    a = torch.arange(1000, dtype=torch.float32)
    d = a.to(D, non_blocking=True)
    torch.russet.synchronize()
    a.fill_(-1)
    assert_same(d.cpu(), torch.arange(1000, dtype=torch.float32))
    snap = d.clone()
    d.fill_(5.0)
    assert_same(snap.cpu(), torch.arange(1000, dtype=torch.float32))


def test_large_copy_roundtrip():
    a = torch.randn(1 << 20)  # 4 MiB
    d = a.to(D)
    assert_same(d.cpu(), a)
    assert_same(d.clone().cpu(), a)
    assert_same(d.to(torch.float16).cpu(), a.to(torch.float16))


def test_zero_size_copies():
    e = torch.empty(0, 3)
    assert e.to(D).cpu().shape == (0, 3)
    z = torch.empty(0, 3, device=D)
    z.copy_(e)
    assert z.to(torch.int8).shape == (0, 3)


def test_pinned_memory_non_blocking():
    a = torch.arange(4096, dtype=torch.float32).pin_memory()
    assert a.is_pinned()
    d = a.to(D, non_blocking=True)
    torch.russet.synchronize()
    assert_same(d.cpu(), torch.arange(4096, dtype=torch.float32))
    h = torch.empty(4096, dtype=torch.float32, pin_memory=True)
    h.copy_(d, non_blocking=True)
    torch.russet.synchronize()
    assert_same(h, torch.arange(4096, dtype=torch.float32))


@pytest.mark.parametrize("n", [4, 4099, 1 << 16])
@pytest.mark.parametrize("pair", [(torch.float32, torch.float16), (torch.float32, torch.bfloat16),
                                  (torch.float16, torch.float32), (torch.bfloat16, torch.float32)],
                         ids=str)
def test_fast_half_casts_match_cpu(n, pair):
    """float32 <-> float16/bfloat16 take a 16-byte path when aligned; an
    offset view (unaligned) takes the plain one; both must equal CPU."""
    src_dt, dst_dt = pair
    x = (torch.randn(n + 3) * 1000).to(src_dt)
    x[:3] = torch.tensor([float("nan"), float("inf"), 65519.9]).to(src_dt)
    d = x.to("russet")
    bits = torch.int16 if dst_dt != torch.float32 else torch.int32
    for view_cpu, view_dev in ((x, d), (x[1:], d[1:])):
        got, want = view_dev.to(dst_dt).cpu(), view_cpu.to(dst_dt)
        # NaN payloads: CPU's own scalar and vector bf16 conversions differ
        # (0x7FC0 against 0xFFFF); NaN must stay NaN, every other value
        # must match bit for bit
        nan = torch.isnan(want)
        assert torch.equal(torch.isnan(got), nan)
        assert torch.equal(got[~nan].view(bits), want[~nan].view(bits))


def test_conj_and_neg_views_copy_correctly():
    """Copies of conjugate and negative views, in every direction (these once
    recursed forever through the Conjugate fallback)."""
    x = torch.tensor([1 + 2j, 3 - 4j, -5 + 0.5j], dtype=torch.cfloat)
    d = x.to("russet")
    assert torch.equal(d.conj().cpu(), x.conj())
    assert torch.equal(d.conj().resolve_conj().cpu(), x.conj())
    assert torch.equal(d.conj().clone().cpu(), x.conj())
    e = torch.empty(3, dtype=torch.cfloat, device="russet")
    e.copy_(d.conj())
    assert torch.equal(e.cpu(), x.conj())
    f = torch.zeros(3, dtype=torch.cfloat, device="russet")
    f.conj().copy_(d)  # into a conjugate view
    assert torch.equal(f.cpu(), x.conj())
    g = torch.zeros(3, dtype=torch.cfloat, device="russet")
    g.copy_(x.conj())  # host to device, conj source
    assert torch.equal(g.cpu(), x.conj())
    r = torch.tensor([1.0, -2.0, 3.0])
    n = r.to("russet")._neg_view()
    assert torch.equal(n.cpu(), -r)
    assert torch.equal(n.clone().cpu(), -r)


@pytest.mark.parametrize("dtype", [torch.complex32, torch.complex64, torch.complex128], ids=str)
def test_conj_neg_bits_resolve_natively(dtype):
    """Device copies between views whose conjugate/negative bits differ run
    natively (the pointwise engine), also with a dtype change, broadcast,
    strides and overlap; complex128 is host execution under apple."""
    host_ok = dtype == torch.complex128 and os.environ.get("RUSSET_PROFILE", "apple") == "apple"
    x = torch.tensor([[1 + 2j, 3 - 4j, -5 + 0.5j], [0.25j, -1 + 0j, 2 - 2j]], dtype=dtype)
    d = x.to(D)
    cases = {
        "resolve_conj": (lambda t: t.conj().resolve_conj(), lambda t: t.conj().resolve_conj()),
        "clone_conj_t": (lambda t: t.t().conj().clone(), lambda t: t.t().conj().clone()),
        "neg_of_conj": (lambda t: t.conj()._neg_view().resolve_neg().resolve_conj(),
                        lambda t: -t.conj()),
        # stored = conj(t) under the conjugate view, read back without it
        "into_conj_view": (lambda t: torch.zeros_like(t).conj().copy_(t).conj(), lambda t: t.conj()),
        "conj_to_cfloat": (lambda t: torch.empty(2, 3, dtype=torch.complex64, device=t.device).copy_(t.conj()),
                           lambda t: t.conj().to(torch.complex64)),
        "broadcast_conj": (lambda t: torch.empty(4, 2, 3, dtype=t.dtype, device=t.device).copy_(t.conj()),
                           lambda t: t.conj().expand(4, 2, 3).resolve_conj()),
    }
    for name, (fn, ref) in cases.items():
        if dtype == torch.complex32 and name == "neg_of_conj":
            continue  # CPU has no complex32 neg
        torch.russet.reset_host_op_counts()
        got = fn(d).cpu()
        host = torch.russet.host_op_counts()
        want = ref(x)
        # complex32 compared through its exact complex64 values
        assert torch.equal(got.resolve_conj().to(torch.complex128), want.resolve_conj().to(torch.complex128)), name
        if not host_ok:
            assert not host, (name, host)
    # in place: a tensor copied from its own conjugate view
    y = x.to(D).clone()
    y.copy_(y.conj())
    assert torch.equal(y.cpu().to(torch.complex128), x.conj().resolve_conj().to(torch.complex128))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.int32, torch.int8], ids=str)
def test_neg_bit_resolves_natively(dtype):
    x = torch.tensor([[1, -2, 3], [4, 5, -6]], dtype=dtype)
    torch.russet.reset_host_op_counts()
    n = x.to(D)._neg_view()
    got = n.clone().cpu()
    out = torch.empty(2, 3, dtype=torch.float32, device=D).copy_(n).cpu()
    assert not torch.russet.host_op_counts()
    assert torch.equal(got, -x)
    assert torch.equal(out, (-x).float())


def test_conj_physical_inplace_and_grads_native():
    x = torch.tensor([1 + 2j, 3 - 4j], dtype=torch.complex64)
    d = x.to(D)
    torch.russet.reset_host_op_counts()
    d.conj_physical_()
    assert not torch.russet.host_op_counts()
    assert torch.equal(d.cpu(), x.conj_physical())
    r = torch.tensor([1.0, -2.0, 0.0])
    rr = r.to(D).conj_physical_()  # real: unchanged
    assert torch.equal(rr.cpu(), r)
    # polar's backward materializes conjugate views; sgn's is a zero tensor
    a = torch.rand(5, device=D, requires_grad=True)
    b = torch.rand(5, device=D, requires_grad=True)
    s = torch.randn(5, device=D, requires_grad=True)
    torch.russet.reset_host_op_counts()
    torch.polar(a, b).abs().sum().backward()
    torch.sgn(s).sum().backward()
    assert not torch.russet.host_op_counts()
    ac, bc = a.detach().cpu().requires_grad_(True), b.detach().cpu().requires_grad_(True)
    torch.polar(ac, bc).abs().sum().backward()
    torch.testing.assert_close(a.grad.cpu(), ac.grad)
    torch.testing.assert_close(b.grad.cpu(), bc.grad)
    assert torch.equal(s.grad.cpu(), torch.zeros(5))
