"""No hidden syncs: the ops of a training step only record work, as on CUDA.

torch.russet.host_sync_count() counts every time the host waited for the
device (synchronizations and reads of device data). Each case runs once to
warm up (a first use may build device tables), then must wait exactly as
often as PyTorch on CUDA would: zero times for everything here but the reads
the op's definition needs.
"""

import pytest
import torch
import torch.nn.functional as F

D = "russet"


def _data():
    torch.manual_seed(0)
    x = torch.randn(64, 32, device=D)
    w = torch.randn(16, 32, device=D, requires_grad=True)
    tgt = torch.randint(0, 16, (64,), device=D)
    img = torch.randn(4, 3, 16, 16, device=D)
    return x, w, tgt, img


def _syncs(fn):
    torch.russet.synchronize()
    before = torch.russet.host_sync_count()
    fn()
    return torch.russet.host_sync_count() - before


x, w, tgt, img = _data()
conv = torch.nn.Conv2d(3, 8, 3).to(D)
# sparse (docs/sparse.md): a coalesced COO tensor and an uncoalesced one
sp_c = (x * (x > 1)).to_sparse()
sp_u = torch.sparse_coo_tensor(torch.cat([sp_c._indices()] * 2, 1), torch.cat([sp_c._values()] * 2), sp_c.shape)
CASES = [
    ("linear_cross_entropy_backward", lambda: F.cross_entropy(F.linear(x, w), tgt).backward(), 0),
    ("softmax_log_softmax_nll", lambda: F.nll_loss(F.log_softmax(x[:, :16], 1), tgt), 0),
    ("layer_norm_group_norm", lambda: (F.layer_norm(x, (32,)), F.group_norm(img, 3)), 0),
    ("batch_norm_train", lambda: F.batch_norm(x, torch.zeros(32, device=D), torch.ones(32, device=D), training=True), 0),
    ("conv2d_backward_pool", lambda: (F.max_pool2d(conv(img), 2).sum().backward()), 0),
    ("dropout_embedding", lambda: (F.dropout(x, 0.5), F.embedding(tgt, torch.randn(16, 8, device=D))), 0),
    ("activations", lambda: (F.gelu(x), F.silu(x), F.relu(x), torch.sigmoid(x)), 0),
    ("where_masked_fill_clamp", lambda: (torch.where(x > 0, x, -x), x.masked_fill(x > 0, 0.0),
                                         torch.clamp(x, min=torch.zeros(32, device=D))), 0),
    ("reductions", lambda: (x.sum(), x.mean(0), x.var(1), x.argmax(1), x.max(1), torch.linalg.vector_norm(x)), 0),
    ("scans_sort_topk", lambda: (x.cumsum(1), x.sort(1), x.topk(3, 1), x.kthvalue(3, 1), x.median(1)), 0),
    ("gather_scatter_index", lambda: (x.index_select(0, tgt), x[tgt], x.clone().index_put_(
        (tgt,), torch.ones(64, 32, device=D), accumulate=True)), 0),
    ("matmul_cat", lambda: (torch.bmm(x.view(4, 16, 32), x.view(4, 32, 16)), torch.cat([x, x])), 0),
    ("random", lambda: (torch.randn(10, device=D), torch.randint(0, 5, (10,), device=D),
                        torch.bernoulli(torch.rand(10, device=D))), 0),
    ("clip_grad_norm", lambda: torch.nn.utils.clip_grad_norm_([w], 1.0), 0),
    ("attention", lambda: F.scaled_dot_product_attention(*(x.view(2, 4, 8, 32),) * 3), 0),
    ("interpolate_pad", lambda: (F.interpolate(img, scale_factor=2, mode="bilinear"),
                                 F.pad(img, (1, 1, 1, 1), mode="reflect")), 0),
    ("fft", lambda: torch.fft.rfft(x, dim=1), 0),
    ("sparse_products_sums", lambda: (torch.sparse.mm(sp_c, x.t()), sp_c.to_dense(), x + sp_c, sp_c * 2.0,
                                      torch.sparse.sum(sp_c)), 0),
    ("sparse_mask_softmax", lambda: (x.sparse_mask(sp_c), torch.sparse.softmax(sp_c, 1), sp_c.sparse_mask(sp_c)), 0),
    # reads by definition
    # the result's size depends on the data, as on CUDA: a sum over a sparse
    # dim coalesces its result
    ("sparse_coalesce", lambda: sp_u.coalesce(), 1),
    ("sparse_sum_dim", lambda: torch.sparse.sum(sp_c, 1), 1),
    ("item", lambda: x.sum().item(), 1),
    ("cpu", lambda: x.cpu(), 1),
]


@pytest.mark.parametrize("name,fn,want", CASES, ids=[c[0] for c in CASES])
def test_op_syncs(name, fn, want):
    fn()  # warm-up: first uses may build tables
    assert _syncs(fn) == want


@pytest.mark.parametrize("opt", ["adam", "adam_foreach", "adamw", "sgd_momentum", "adam_fused", "adamw_fused",
                                 "sgd_fused", "adagrad_fused"])
def test_train_step_syncs(opt):
    """A whole step (forward, backward, optimizer) records work only; fused
    Adam, AdamW and Adagrad read their step counts on the device
    (rs_adam_step_run, rs_adagrad_step_run)."""
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 16)).to(D)
    o = {
        "adam": lambda p: torch.optim.Adam(p),
        "adam_foreach": lambda p: torch.optim.Adam(p, foreach=True),
        "adamw": lambda p: torch.optim.AdamW(p, weight_decay=0.1),
        "sgd_momentum": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9),
        "adam_fused": lambda p: torch.optim.Adam(p, fused=True),
        "adamw_fused": lambda p: torch.optim.AdamW(p, weight_decay=0.1, amsgrad=True, fused=True),
        "sgd_fused": lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9, fused=True),
        "adagrad_fused": lambda p: torch.optim.Adagrad(p, fused=True),
    }[opt](m.parameters())

    def step():
        o.zero_grad()
        F.cross_entropy(m(x), tgt).backward()
        o.step()

    step()
    assert _syncs(step) == 0
