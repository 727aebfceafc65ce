"""F.pad's reflect and replicate modes (reflection_pad*d, replication_pad*d
and their backward kernels, src/torch/ops/pad.cpp) against CPU: OpInfo
samples of every F.pad mode, 1-d to 3-d, negative padding, gradients
(overlapping reflections add), dtypes, and CPU's errors."""

import pytest
import torch
import torch.nn.functional as F
from torch.testing import assert_close

from opinfo_check import check_opinfo, host_free

D = "russet"


@pytest.mark.parametrize("mode", ["reflect", "replicate", "replicate_negative", "circular", "constant"])
def test_opinfo_samples_match_cpu(mode):
    check_opinfo("nn.functional.pad", mode)


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
@pytest.mark.parametrize("shape,pad", [((2, 3, 7), (3, 2)), ((2, 5, 4), (0, 3)), ((1, 2, 5, 6), (2, 1, 4, 3)),
                                       ((2, 4, 4, 3), (2, 2, 1, 1)), ((1, 2, 3, 4, 5), (1, 2, 2, 0, 1, 1)),
                                       ((3, 6), (2, 2))])
def test_values_and_gradients(mode, shape, pad):
    torch.manual_seed(0)
    x = torch.randn(shape)
    xc, xd = x.clone().requires_grad_(), x.to(D).requires_grad_()
    yc = F.pad(xc, pad, mode=mode)
    yd = host_free(lambda: F.pad(xd, pad, mode=mode))
    assert_close(yd.detach().cpu(), yc.detach())
    g = torch.randn(yc.shape)
    yc.backward(g)
    host_free(lambda: yd.backward(g.to(D)))
    assert_close(xd.grad.cpu(), xc.grad, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.int64, torch.uint8, torch.complex64])
def test_dtypes(dtype):
    x = (torch.randn(2, 3, 5, 4) * 10).to(dtype)
    for mode in ("reflect", "replicate"):
        assert_close(host_free(lambda: F.pad(x.to(D), (1, 2, 2, 1), mode=mode)).cpu(),
                     F.pad(x, (1, 2, 2, 1), mode=mode))


def test_errors_like_cpu():
    x = torch.randn(1, 2, 3, device=D)
    with pytest.raises(RuntimeError, match="Padding size should be less than"):
        F.pad(x, (3, 0), mode="reflect")
    with pytest.raises(RuntimeError):
        torch.ops.aten.reflection_pad2d(torch.randn(2, device=D), [1, 1, 1, 1])


@pytest.mark.parametrize("mode", ["reflect", "replicate"])
def test_empty_inputs_follow_cpu(mode):
    # CPU's rule: only a batch dim may be 0 (an unbatched input of 0
    # channels is refused: the fuzzer's pad of shape (0, 3)); results or the
    # same error, for 1-d to 3-d padding
    for k in (1, 2, 3):
        for shape in [(0,) + (3,) * k, (2, 0) + (3,) * (k - 1), (0, 2) + (3,) * k, (2, 0) + (3,) * k,
                      (2, 2, 0) + (3,) * (k - 1), (2, 3) + (3,) * k]:
            x, pad = torch.randn(shape), (1, 1) * k
            try:
                want = F.pad(x, pad, mode=mode)
            except RuntimeError as e:
                with pytest.raises(RuntimeError, match=r"tensor with possibly 0 batch size and other non-zero"):
                    F.pad(x.to(D), pad, mode=mode)
                assert "possibly 0 batch size" in str(e)
                continue
            assert_close(F.pad(x.to(D), pad, mode=mode).cpu(), want)
