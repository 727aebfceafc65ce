"""View ops are native: they share storage, keep offsets, and writes through a
view show on the base. Nothing here may go through host execution."""

import pytest
import torch

D = "russet"


def base(shape=(4, 6), dtype=torch.float32):
    n = 1
    for s in shape:
        n *= s
    c = torch.arange(n, dtype=dtype).reshape(shape)
    return c, c.to(D)


def storage_ptr(t):
    return t.untyped_storage().data_ptr()


def check_view(dv, cv, d):
    assert dv.device.type == D
    assert storage_ptr(dv) == storage_ptr(d), "a view must share its base's storage"
    assert dv.shape == cv.shape
    assert dv.stride() == cv.stride()
    assert dv.storage_offset() == cv.storage_offset()
    torch.testing.assert_close(dv.cpu(), cv, rtol=0, atol=0)


VIEWS = {
    "view": lambda t: t.view(3, 8),
    "view_flat": lambda t: t.view(-1),
    "reshape": lambda t: t.reshape(2, 12),
    "transpose": lambda t: t.transpose(0, 1),
    "t": lambda t: t.t(),
    "permute": lambda t: t.reshape(2, 3, 4).permute(2, 0, 1),
    "expand": lambda t: t[:1].expand(5, 6),
    "unsqueeze": lambda t: t.unsqueeze(1),
    "squeeze": lambda t: t.unsqueeze(0).squeeze(0),
    "squeeze_dim": lambda t: t[:, :1].squeeze(1),
    "slice": lambda t: t[1:3, 2:5],
    "slice_step": lambda t: t[::2, 1::3],
    "select": lambda t: t[2],
    "select_col": lambda t: t[:, 3],
    "narrow": lambda t: t.narrow(1, 2, 3),
    "unfold": lambda t: t.unfold(1, 2, 2),
    "diagonal": lambda t: t.diagonal(),
    "diagonal_offset": lambda t: t.diagonal(1),
    "as_strided": lambda t: t.as_strided((3, 3), (5, 1), 2),
    "movedim": lambda t: t.reshape(2, 3, 4).movedim(0, 2),
    "unbind0": lambda t: t.unbind(0)[2],
    "split": lambda t: t.split(2, dim=1)[1],
    "chunk": lambda t: t.chunk(3, dim=0)[1],
    "view_as_dtype": lambda t: t.view(torch.int32),
    "flatten": lambda t: t.flatten(),
    "unflatten": lambda t: t.unflatten(1, (2, 3)),
    "alias": lambda t: t.view_as(t),
    "detach": lambda t: t.detach(),
    "indexing_none": lambda t: t[None, :, None],
    "ellipsis": lambda t: t[..., 1],
}


@pytest.mark.parametrize("name", list(VIEWS))
def test_view_shares_storage(name):
    f = VIEWS[name]
    c, d = base()
    check_view(f(d), f(c), d)


@pytest.mark.parametrize("name", [n for n in VIEWS if n not in ("expand",)])
def test_write_through_view(name):
    f = VIEWS[name]
    c, d = base()
    dv, cv = f(d), f(c)
    if name == "view_as_dtype":
        dv.fill_(7)
        cv.fill_(7)
    else:
        dv.fill_(-1.0)
        cv.fill_(-1.0)
    torch.testing.assert_close(d.cpu(), c, rtol=0, atol=0)


def test_views_do_not_use_host_execution():
    c, d = base()
    torch.russet.reset_host_op_counts()
    for f in VIEWS.values():
        f(d)
    assert torch.russet.host_op_counts() == {} or all(
        v == 0 for v in torch.russet.host_op_counts().values()
    ), torch.russet.host_op_counts()


def test_copy_into_view_shows_on_base():
    c, d = base()
    d[1:3, ::2].copy_(torch.full((2, 3), 100.0))
    c[1:3, ::2] = 100.0
    torch.testing.assert_close(d.cpu(), c, rtol=0, atol=0)
    d.t()[5].zero_()
    c.t()[5] = 0
    torch.testing.assert_close(d.cpu(), c, rtol=0, atol=0)
    d.diagonal().fill_(-3)
    c.diagonal().fill_(-3)
    torch.testing.assert_close(d.cpu(), c, rtol=0, atol=0)


def test_view_of_view_offsets():
    c, d = base((6, 8))
    dv = d[1:, 2:][1:, 1:].t()[1:]
    cv = c[1:, 2:][1:, 1:].t()[1:]
    check_view(dv, cv, d)
    dv.fill_(0.5)
    cv.fill_(0.5)
    torch.testing.assert_close(d.cpu(), c, rtol=0, atol=0)


def test_setitem_scalar_and_tensor():
    c, d = base()
    d[0, 0] = 42.0
    c[0, 0] = 42.0
    d[2] = torch.arange(6, dtype=torch.float32, device=D) * 0 + 5
    c[2] = 5.0
    torch.testing.assert_close(d.cpu(), c, rtol=0, atol=0)
    assert d[0, 0].item() == 42.0


@pytest.mark.parametrize("dtype", [torch.complex64, torch.complex128, torch.complex32], ids=str)
def test_real_imag_views(dtype):
    c = torch.complex(torch.arange(6.0), -torch.arange(6.0)).to(dtype)
    d = c.to(D)
    for fn in (torch.real, torch.imag, torch.view_as_real):
        dv, cv = fn(d), fn(c)
        assert storage_ptr(dv) == storage_ptr(d)
        assert dv.stride() == cv.stride() and dv.storage_offset() == cv.storage_offset()
        assert dv.dtype == cv.dtype
        torch.testing.assert_close(dv.cpu(), cv, rtol=0, atol=0)
    d.imag.fill_(2.0)
    c.imag.fill_(2.0)
    assert torch.equal(torch.view_as_real(d.cpu()), torch.view_as_real(c))
    d.real[1:3].zero_()
    c.real[1:3].zero_()
    assert torch.equal(torch.view_as_real(d.cpu()), torch.view_as_real(c))
    r = torch.view_as_real(d)
    back = torch.view_as_complex(r)
    assert storage_ptr(back) == storage_ptr(d)
    assert torch.equal(torch.view_as_real(back.cpu()), torch.view_as_real(c))


def test_as_strided_overlapping_read():
    c, d = base((10,))
    dv = d.as_strided((4, 3), (2, 1), 1)
    torch.testing.assert_close(dv.cpu(), c.as_strided((4, 3), (2, 1), 1), rtol=0, atol=0)


def test_resize_and_set():
    d = torch.zeros(4, device=D)
    d.resize_(3, 5)
    assert d.shape == (3, 5)
    d.fill_(1.0)
    assert d.cpu().sum().item() == 15.0
    d.resize_(0)
    assert d.numel() == 0
    src = torch.arange(12.0, device=D)
    t = torch.empty(0, device=D)
    t.set_(src.untyped_storage(), 2, (2, 3), (3, 1))
    assert storage_ptr(t) == storage_ptr(src)
    torch.testing.assert_close(t.cpu(), torch.arange(12.0).as_strided((2, 3), (3, 1), 2))
    t.zero_()
    assert src.cpu()[2:8].eq(0).all() and src.cpu()[8:].ne(0).all()
    u = torch.empty(0, device=D)
    u.set_(src)
    assert storage_ptr(u) == storage_ptr(src) and u.shape == src.shape


def test_view_errors_are_pythonic():
    d = torch.zeros(4, 6, device=D)
    with pytest.raises(RuntimeError):
        d.t().view(24)
    with pytest.raises(RuntimeError):
        d.view(5, 5)
    with pytest.raises(IndexError):
        d[7]
