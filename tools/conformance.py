"""Conformance sweep: PyTorch's OpInfo database run on russet against CPU.

For every OpInfo (``op_db`` plus the ``_foreach`` OpInfos), every dtype that
PyTorch's CPU supports for it and a capped number of its sample inputs
(``sample_inputs`` plus ``reference_inputs`` where the op has its own), this
runs the op on russet and on CPU with the same inputs and compares:

- variant ``op``: the function; outputs (values with PyTorch's per-dtype
  tolerances and the OpInfo's own tolerance overrides; dtype, shape, device,
  and strides where CPU and CUDA agree on them: STRIDES_BACKEND_CHOICE)
  and the inputs afterwards (they must be unchanged, or changed as on CPU);
- variant ``inplace``: ``op.inplace_variant`` on a copy of the input;
- variant ``out``: the ``out=`` form, where the OpInfo supports out, into
  fresh contiguous tensors;
- variant ``out-layouts``: the ``out=`` form into a non-contiguous ``out``
  of the right shape (written through, strides kept) and into a non-empty
  one of the wrong shape (resized with PyTorch's warning, to CPU's shape and
  strides); where CPU raises, russet must raise the same type. The first 3
  samples;
- variant ``channels-last``: the op with every 4-d (5-d) tensor of the
  sample in channels_last (channels_last_3d): values and strides as CPU's
  ("channels_last in, channels_last out"). The first 3 samples that have one;
- variant ``grad``: for ops that support autograd, in every floating and
  complex dtype that CPU's OpInfo declares differentiable
  (``supported_backward_dtypes``): gradients of the sum of the outputs (of
  their real and imaginary parts, for complex outputs: PyTorch's Wirtinger
  convention) with respect to every input that requires grad. Gradients
  that differ from CPU's pass when they are as accurate as CPU's: at most
  twice as far from the same gradients computed in a wider dtype (float32
  for float16/bfloat16, float64 for float32, complex128 for complex64:
  _as_accurate_as_cpu);
- variant ``fwad``: float32 only, for ops that support forward-mode AD, on
  the gradient's samples: every input that requires grad becomes a dual
  tensor (torch.autograd.forward_ad) with a tangent drawn on the CPU from a
  fixed seed, and the outputs' tangents are compared;
- variant ``gradgrad``: float32 only, for ops that support second
  derivatives (``supports_gradgrad``), on the gradient's samples: the first
  gradients taken with ``create_graph=True``, then the gradient of their
  inner product with fixed weights (drawn on the CPU) with respect to the
  same inputs (as accurate as CPU's where they differ, as for ``grad``); a
  sample whose first gradient does not depend on the inputs is skipped;
- variant ``vmap``: on the op's float32 task (its first dtype where it has
  no float32), the first 3 samples whose result does not depend on a random
  draw: ``torch.func.vmap`` over a new leading dimension of 2 added to
  every tensor of the sample (the tensor and its flip along every
  dimension, so both batch entries are valid inputs and differ), compared
  with CPU's vmap of the same batch;
- variant ``errors``: the OpInfo's ``error_inputs`` (bad arguments), built on
  russet, each of which must raise the error type the OpInfo names with a
  message its regex matches, as PyTorch's own test_errors asks of every
  device (after a synchronize, so that a device-side assertion counts); a
  case CPU itself does not raise as listed is skipped. Recorded once per op,
  with the op's first dtype: ``wrong`` where russet accepts the bad input,
  ``error`` where it raises another error or message.

RNG ops are compared by shape, dtype, device and loose statistics, never by
value, except their samples that do not depend on the draw (dropout outside
training or at p 0 or 1, rrelu outside training, a low-rank SVD's S and
product), which are compared like any op; attention with dropout
(scaled_dot_product_attention's dropout_p, multi-head attention in training)
counts as random. Ops whose result is uninitialized memory (``empty``...)
are compared by metadata.

Each case is classified as ``pass-native`` (passed, and the host-op counters
did not move), ``pass-host`` (passed through host execution), ``wrong``,
``error`` (russet raised where CPU did not), ``unsupported`` (russet raised a
clear "not supported" error) or ``skipped`` (with a reason; "cpu raises" when
CPU rejects the inputs too).

The sweep runs in worker subprocesses, a bounded number of (op, dtype) tasks
each, with a per-task alarm and a watchdog in the parent: a crash or a hang
marks that one task as an error and the sweep goes on with a fresh worker.

Entry points: ``python -m russet coverage [--full|--quick] [--profile P]``
(russet/__main__.py) and tests/conformance/ (quick mode, known failures).
"""

import datetime
import hashlib
import json
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import time
import traceback

TOOLS = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(TOOLS)
DOCS = os.path.join(REPO, "docs")
KNOWN_FAILURES = os.path.join(REPO, "tests", "conformance", "known_failures.json")

CLASSES = ["pass-native", "pass-host", "wrong", "error", "unsupported", "skipped"]
# each case's class in a record's "cases" string, one letter per sample
CASE_CODES = {"pass-native": "N", "pass-host": "H", "wrong": "W", "error": "E",
              "unsupported": "U", "skipped": "S"}
FAILING = ("wrong", "error")
VARIANTS = ["op", "inplace", "out", "out-layouts", "channels-last", "grad", "fwad", "gradgrad", "vmap",
            "errors"]
# the variants that differentiate (the OpInfo's requires_grad samples):
# grad is reverse mode (torch.autograd.grad of the outputs' sum), fwad
# forward mode (dual tensors, the same tangents on both devices), gradgrad
# reverse over reverse
AD_VARIANTS = ("grad", "fwad", "gradgrad")
VMAP_SAMPLES = 3  # samples per op in the vmap variant

# ---------------------------------------------------------------- families
#
# THE table: every OpInfo name (OpInfo.name; the variants of one name, such as
# max.reduction_with_dim, share it) maps to exactly one family. A test checks
# that every OpInfo of the installed torch is here exactly once.

FAMILIES = [
    "pointwise arithmetic",
    "comparison, logical and bitwise",
    "transcendental",
    "special functions",
    "reductions and statistics",
    "scans",
    "indexing, slicing and masking",
    "gather, scatter and index reduction",
    "sorting and searching",
    "shape and composition",
    "foreach",
    "matrix products",
    "linear algebra",
    "FFT",
    "convolution",
    "pooling",
    "normalization",
    "activations",
    "loss functions",
    "embeddings",
    "attention",
    "interpolation and grid sampling",
    "random distributions",
    "signal processing",
    "sparse",
    "complex",
]

_FAMILY_TABLE = {
    "pointwise arithmetic": """
        __radd__ __rdiv__ __rmod__ __rmul__ __rpow__ __rsub__ abs add addcdiv addcmul
        ceil clamp clamp_max clamp_min copysign deg2rad div float_power floor
        floor_divide fmax fmin fmod frac frexp gcd heaviside hypot lcm ldexp lerp
        maximum minimum mul nan_to_num neg nextafter positive pow rad2deg reciprocal
        remainder round rsub sgn sign square sub true_divide trunc where fill zero_
        bfloat16 bool byte char double float half int long short to
        jiterator_2inputs_2outputs jiterator_4inputs_with_extra_args jiterator_binary
        jiterator_binary_return_by_ref jiterator_unary
    """,
    "comparison, logical and bitwise": """
        __rand__ __ror__ __rxor__ bitwise_and bitwise_left_shift bitwise_not bitwise_or
        bitwise_right_shift bitwise_xor eq ne ge gt le lt isclose allclose equal
        isfinite isinf isnan isneginf isposinf isreal signbit logical_and logical_not
        logical_or logical_xor isin
    """,
    "transcendental": """
        exp exp2 expm1 log log10 log1p log2 sin cos tan asin acos atan atan2 sinh cosh
        tanh asinh acosh atanh sigmoid logaddexp logaddexp2 sqrt rsqrt
    """,
    "special functions": """
        digamma erf erfc erfinv lgamma polygamma mvlgamma i0 igamma igammac sinc logit
        xlogy special.airy_ai special.bessel_j0 special.bessel_j1 special.bessel_y0
        special.bessel_y1 special.chebyshev_polynomial_t special.chebyshev_polynomial_u
        special.chebyshev_polynomial_v special.chebyshev_polynomial_w special.entr
        special.erfcx special.hermite_polynomial_h special.hermite_polynomial_he
        special.i0e special.i1 special.i1e special.laguerre_polynomial_l
        special.legendre_polynomial_p special.log_ndtr special.modified_bessel_i0
        special.modified_bessel_i1 special.modified_bessel_k0 special.modified_bessel_k1
        special.ndtr special.ndtri special.polygamma special.scaled_modified_bessel_k0
        special.scaled_modified_bessel_k1 special.shifted_chebyshev_polynomial_t
        special.shifted_chebyshev_polynomial_u special.shifted_chebyshev_polynomial_v
        special.shifted_chebyshev_polynomial_w special.spherical_bessel_j0
        special.xlog1py special.zeta
    """,
    "reductions and statistics": """
        all any amax amin aminmax argmax argmin count_nonzero max min mean median
        nanmean nanmedian nansum prod sum std std_mean var var_mean norm dist logsumexp
        mode quantile nanquantile histc histogram histogramdd bincount corrcoef cov
        trace trapezoid trapz sum_to_size hash_tensor _segment_reduce cdist
        nn.functional.cosine_similarity nn.functional.pairwise_distance
        nn.functional.pdist masked.amax masked.amin masked.argmax masked.argmin
        masked.logaddexp masked.logsumexp masked.mean masked.median masked.norm
        masked.prod masked.std masked.sum masked.var
    """,
    "scans": """
        cummax cummin cumprod cumsum logcumsumexp cumulative_trapezoid diff gradient
        masked.cumprod masked.cumsum
    """,
    "indexing, slicing and masking": """
        __getitem__ _unsafe_masked_index index_select index_fill masked_fill
        masked_select nonzero nonzero_static argwhere take select slice narrow
        narrow_copy select_scatter slice_scatter diagonal_scatter as_strided_scatter
        tril triu tril_indices triu_indices unravel_index
    """,
    "gather, scatter and index reduction": """
        gather scatter scatter_add scatter_reduce index_add index_reduce index_put
        index_copy _unsafe_masked_index_put_accumulate put take_along_dim masked_scatter
    """,
    "sorting and searching": """
        sort argsort msort topk kthvalue searchsorted bucketize unique unique_consecutive
    """,
    "shape and composition": """
        H T mT mH alias_copy as_strided as_strided_copy atleast_1d atleast_2d atleast_3d
        block_diag broadcast_shapes broadcast_tensors broadcast_to cartesian_prod cat
        _chunk_cat chunk clone column_stack combinations constant_pad_nd contiguous diag
        diag_embed diagflat diagonal diagonal_copy dsplit dstack expand expand_as
        expand_copy flatten flip fliplr flipud hsplit hstack meshgrid movedim permute
        permute_copy ravel repeat repeat_interleave reshape reshape_as resize_
        resize_as_ roll rot90 split split_with_sizes split_with_sizes_copy squeeze
        squeeze_copy stack t t_copy tensor_split tile transpose transpose_copy unbind
        unbind_copy unflatten unfold unfold_copy unsafe_chunk unsafe_split unsqueeze
        unsqueeze_copy view view_as view_copy vsplit vstack item nn.functional.pad
        nn.functional.channel_shuffle nn.functional.pixel_shuffle
        nn.functional.pixel_unshuffle arange empty empty_like empty_permuted
        empty_strided eye full full_like linspace logspace new_empty new_empty_strided
        new_full new_ones new_zeros ones ones_like scalar_tensor zeros zeros_like
    """,
    "foreach": """
        _foreach_exp _foreach_acos _foreach_asin _foreach_atan _foreach_cos
        _foreach_cosh _foreach_log _foreach_log10 _foreach_log2 _foreach_tan
        _foreach_tanh _foreach_sin _foreach_sinh _foreach_neg _foreach_sqrt
        _foreach_rsqrt _foreach_ceil _foreach_erf _foreach_erfc _foreach_expm1
        _foreach_floor _foreach_log1p _foreach_round _foreach_frac _foreach_reciprocal
        _foreach_sigmoid _foreach_trunc _foreach_abs _foreach_zero _foreach_sign
        _foreach_lgamma _foreach_clone _foreach_add _foreach_sub _foreach_mul
        _foreach_div _foreach_clamp_min _foreach_clamp_max _foreach_minimum
        _foreach_maximum _foreach_pow _foreach_copy _foreach_addcmul _foreach_addcdiv
        _foreach_max _foreach_norm _foreach_lerp _foreach_mm
    """,
    "matrix products": """
        __rmatmul__ addbmm addmm addmv addr baddbmm bmm dot einsum inner kron matmul mm
        mv outer tensordot vdot nn.functional.linear nn.functional.bilinear
        torch._scaled_mm torch._scaled_mm_v2
    """,
    "linear algebra": """
        cholesky cholesky_inverse cholesky_solve geqrf lu lu_solve lu_unpack ormqr
        pinverse qr svd svd_lowrank pca_lowrank triangular_solve logdet matrix_exp
        cross linalg.cholesky linalg.cholesky_ex linalg.cond linalg.cross linalg.det
        linalg.diagonal linalg.eig linalg.eigh linalg.eigvals linalg.eigvalsh
        linalg.householder_product linalg.inv linalg.inv_ex linalg.ldl_factor
        linalg.ldl_factor_ex linalg.ldl_solve linalg.lstsq linalg.lu linalg.lu_factor
        linalg.lu_factor_ex linalg.lu_solve linalg.matrix_norm linalg.matrix_power
        linalg.matrix_rank linalg.multi_dot linalg.norm linalg.pinv linalg.qr
        linalg.slogdet linalg.solve linalg.solve_ex linalg.solve_triangular linalg.svd
        linalg.svdvals linalg.tensorinv linalg.tensorsolve linalg.vander linalg.vecdot
        linalg.vector_norm
    """,
    "FFT": """
        fft.fft fft.fft2 fft.fftn fft.fftshift fft.hfft fft.hfft2 fft.hfftn fft.ifft
        fft.ifft2 fft.ifftn fft.ifftshift fft.ihfft fft.ihfft2 fft.ihfftn fft.irfft
        fft.irfft2 fft.irfftn fft.rfft fft.rfft2 fft.rfftn stft istft
    """,
    "convolution": """
        nn.functional.conv1d nn.functional.conv2d nn.functional.conv3d
        nn.functional.conv_transpose1d nn.functional.conv_transpose2d
        nn.functional.conv_transpose3d nn.functional.unfold
    """,
    "pooling": """
        nn.functional.adaptive_avg_pool1d nn.functional.adaptive_avg_pool2d
        nn.functional.adaptive_avg_pool3d nn.functional.adaptive_max_pool1d
        nn.functional.adaptive_max_pool2d nn.functional.adaptive_max_pool3d
        nn.functional.avg_pool1d nn.functional.avg_pool2d nn.functional.avg_pool3d
        nn.functional.fractional_max_pool2d nn.functional.fractional_max_pool3d
        nn.functional.max_pool1d nn.functional.max_pool2d nn.functional.max_pool3d
        nn.functional.max_unpool1d nn.functional.max_unpool2d nn.functional.max_unpool3d
        max_pool2d_with_indices_backward
    """,
    "normalization": """
        nn.functional.batch_norm nn.functional.group_norm nn.functional.instance_norm
        nn.functional.layer_norm nn.functional.local_response_norm
        nn.functional.rms_norm nn.functional.normalize native_batch_norm
        native_group_norm native_layer_norm _native_batch_norm_legit
        _batch_norm_with_update renorm masked.normalize
    """,
    "activations": """
        nn.functional.celu nn.functional.elu nn.functional.gelu nn.functional.glu
        nn.functional.hardshrink nn.functional.hardsigmoid nn.functional.hardswish
        nn.functional.hardtanh nn.functional.leaky_relu nn.functional.logsigmoid
        nn.functional.mish nn.functional.prelu nn.functional.relu nn.functional.relu6
        nn.functional.selu nn.functional.silu nn.functional.softmin
        nn.functional.softplus nn.functional.softshrink nn.functional.softsign
        nn.functional.tanhshrink nn.functional.threshold softmax log_softmax
        _softmax_backward_data torch.ops.aten._safe_softmax.default masked.softmax
        masked.log_softmax masked.softmin
    """,
    "loss functions": """
        nn.functional.binary_cross_entropy nn.functional.binary_cross_entropy_with_logits
        nn.functional.cosine_embedding_loss nn.functional.cross_entropy
        nn.functional.ctc_loss nn.functional.gaussian_nll_loss
        nn.functional.hinge_embedding_loss nn.functional.huber_loss
        nn.functional.kl_div nn.functional.l1_loss nn.functional.linear_cross_entropy
        nn.functional.margin_ranking_loss nn.functional.mse_loss
        nn.functional.multi_margin_loss nn.functional.multilabel_margin_loss
        nn.functional.multilabel_soft_margin_loss nn.functional.nll_loss
        nn.functional.poisson_nll_loss nn.functional.smooth_l1_loss
        nn.functional.soft_margin_loss nn.functional.triplet_margin_loss
        nn.functional.triplet_margin_with_distance_loss
    """,
    "embeddings": """
        nn.functional.embedding nn.functional.embedding_bag nn.functional.one_hot
    """,
    "attention": """
        nn.functional.multi_head_attention_forward
        nn.functional.scaled_dot_product_attention
        torch.ops.aten._efficient_attention_forward
        torch.ops.aten._flash_attention_forward
    """,
    "interpolation and grid sampling": """
        nn.functional.interpolate nn.functional.upsample_bilinear
        nn.functional.upsample_nearest nn.functional.grid_sample grid_sampler_2d
        grid_sampler_3d _upsample_bilinear2d_aa
    """,
    "random distributions": """
        bernoulli normal multinomial rand_like randn_like randint randint_like randn
        uniform exponential geometric cauchy log_normal nn.functional.rrelu
        nn.functional.dropout nn.functional.dropout2d nn.functional.dropout3d
        nn.functional.alpha_dropout nn.functional.feature_alpha_dropout
        native_dropout_backward
    """,
    "signal processing": """
        signal.windows.bartlett signal.windows.blackman signal.windows.cosine
        signal.windows.exponential signal.windows.gaussian signal.windows.general_cosine
        signal.windows.general_hamming signal.windows.hamming signal.windows.hann
        signal.windows.kaiser signal.windows.nuttall
    """,
    "sparse": """
        sparse.mm sparse.sampled_addmm to_sparse
    """,
    "complex": """
        angle complex conj conj_physical imag real polar resolve_conj resolve_neg
        view_as_complex view_as_real cdouble cfloat chalf
    """,
}


def _family_of():
    out = {}
    for fam, names in _FAMILY_TABLE.items():
        for n in names.split():
            if n in out:
                raise AssertionError(f"{n} is in two families: {out[n]} and {fam}")
            out[n] = fam
    return out


FAMILY_OF = _family_of()

# Ops whose values are random: compared by shape, dtype, device and loose
# statistics. (op_db has no attribute for this; the list is by name.)
RANDOM_OPS = {
    "bernoulli", "normal", "multinomial", "rand_like", "randn_like", "randint",
    "randint_like", "randn", "uniform", "exponential", "geometric", "cauchy",
    "log_normal", "nn.functional.rrelu", "nn.functional.dropout",
    "nn.functional.dropout2d", "nn.functional.dropout3d", "nn.functional.alpha_dropout",
    "nn.functional.feature_alpha_dropout", "nn.functional.fractional_max_pool2d",
    "nn.functional.fractional_max_pool3d", "svd_lowrank", "pca_lowrank",
}
# Random ops' samples whose result does not depend on the draw: dropout that
# does not train, or drops nothing or everything; rrelu outside training (its
# slope is then (lower + upper) / 2). These are compared like any other op.
# (The functions' own default for `training`: alpha and feature-alpha
# dropout and rrelu default to False, the others to True.)
TRAINING_DEFAULT_FALSE = {"nn.functional.alpha_dropout", "nn.functional.feature_alpha_dropout",
                          "nn.functional.rrelu"}
# Low-rank factorizations: a random projection picks U and V's signs and
# basis, but S and the product U diag(S) V^H are determined when q covers the
# matrix's rank (as in every OpInfo sample): those are compared exactly.
LOWRANK_OPS = {"svd_lowrank", "pca_lowrank"}


def _random_sample(op_name, sample):
    """Whether this sample's result depends on the random draw: a random op's
    sample except the deterministic ones above, and attention with dropout
    (SDPA's dropout_p, multi-head attention's dropout_p (argument 9) while
    training). The others are compared exactly."""
    k = sample.kwargs
    if op_name == "nn.functional.scaled_dot_product_attention":
        return k.get("dropout_p", 0.0) > 0
    if op_name == "nn.functional.multi_head_attention_forward":
        p = sample.args[9] if len(sample.args) > 9 else k.get("dropout_p", 0.0)
        return bool(k.get("training", True)) and p > 0
    if op_name not in RANDOM_OPS:
        return False
    training = k.get("training", op_name not in TRAINING_DEFAULT_FALSE)
    if "dropout" in op_name:
        return training and k.get("p", 0.5) not in (0.0, 1.0)
    if op_name == "nn.functional.rrelu":
        return training
    return True


def _lowrank_determined(res):
    """(S, U diag(S) V^H): the parts of a low-rank SVD that do not depend on
    the random projection"""
    u, s, v = res
    return s, (u * s.unsqueeze(-2).to(u.dtype)) @ v.mH


# Ops whose positional args must stay on CPU (PyTorch requires CPU index tensors).
CPU_ARGS_OPS = {"tensor_split"}
# Ops whose result is uninitialized memory: metadata only.
UNINITIALIZED_OPS = {
    "empty", "empty_like", "empty_permuted", "empty_strided", "new_empty",
    "new_empty_strided",
}

# dtype classes, for the quick subset and the report's columns
DTYPE_ORDER = [
    "bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
    "float16", "bfloat16", "float32", "float64", "complex32", "complex64", "complex128",
    "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu",
]


def dtype_class(name):
    if name == "bool":
        return "bool"
    if name.startswith(("uint", "int")):
        return "int"
    if name in ("float16", "bfloat16") or name.startswith("float8"):
        return "low-precision float"
    if name == "float32":
        return "float32"
    if name == "float64":
        return "float64"
    if name.startswith("complex"):
        return "complex"
    return "other"


# ---------------------------------------------------------------- limits

LIMITS = {
    # samples per (op, dtype) from sample_inputs / reference_inputs; grad samples
    # quick runs fewer (op, dtype) tasks, each exactly as in full, so that a
    # known failure means the same thing in both modes
    "quick": {"samples": 8, "reference": 4, "grad_samples": 3, "task_timeout": 120},
    "full": {"samples": 8, "reference": 4, "grad_samples": 3, "task_timeout": 120},
}
MAX_NUMEL = 1 << 16  # skip samples with more elements than this in one tensor
MAX_SAMPLES_SCANNED = 40  # sample generators are lazy; stop looking after this many
WATCHDOG_S = 240  # parent kills a worker whose task makes no progress for this long
TASKS_PER_WORKER = 120

# ---------------------------------------------------------------- op database


def load_ops():
    """[(key, opinfo)] for op_db and the foreach OpInfos; key is name[.variant]."""
    import torch.testing._internal.common_methods_invocations as cmi

    ops = list(cmi.op_db)
    for attr in ("foreach_unary_op_db", "foreach_binary_op_db", "foreach_pointwise_op_db",
                 "foreach_reduce_op_db", "foreach_other_op_db"):
        ops += list(getattr(cmi, attr, []))
    out, seen = [], set()
    for op in ops:
        key = op_key(op)
        if key in seen:
            continue
        seen.add(key)
        out.append((key, op))
    return out


def family(op_name):
    return FAMILY_OF.get(op_name)


def _dtype_name(dt):
    return str(dt).replace("torch.", "")


def cpu_dtypes(op):
    import torch

    try:
        dts = op.supported_dtypes("cpu")
    except Exception:  # noqa: BLE001
        return []
    return sorted((_dtype_name(d) for d in dts if isinstance(d, torch.dtype)),
                  key=lambda n: DTYPE_ORDER.index(n) if n in DTYPE_ORDER else 99)


def _h(s):
    return int(hashlib.sha1(s.encode()).hexdigest()[:8], 16)


def all_tasks():
    """Every (key, dtype) of the full sweep, in a fixed order."""
    return [(key, dt) for key, op in load_ops() for dt in cpu_dtypes(op)]


def quick_tasks(ops=None):
    """The fixed, deterministic quick subset: in every family, up to 3 OpInfos
    (chosen by a stable hash of the name), each with one dtype of each dtype
    class it supports (the int dtype also chosen by hash), plus every dtype
    that the subset has not covered yet on one op that supports it."""
    ops = ops if ops is not None else load_ops()
    by_fam = {}
    for key, op in ops:
        by_fam.setdefault(family(op.name), []).append((key, op))
    tasks, covered = [], set()
    for fam in FAMILIES:
        cands = [(k, o) for k, o in by_fam.get(fam, []) if cpu_dtypes(o)]
        cands.sort(key=lambda ko: (_h("quick:" + ko[0]), ko[0]))
        for key, op in cands[:3]:
            dts = cpu_dtypes(op)
            by_class = {}
            for d in dts:
                by_class.setdefault(dtype_class(d), []).append(d)
            for cls in sorted(by_class):
                ds = sorted(by_class[cls], key=lambda d: (_h(key + d), d))
                if cls == "low-precision float":
                    ds = [d for d in ("float16", "bfloat16") if d in by_class[cls]] or ds
                    ds = ds[:2]
                else:
                    ds = ds[:1]
                for d in ds:
                    tasks.append((key, d))
                    covered.add(d)
        # every dtype class the family has, on one more op where the three lack it
        have = {dtype_class(d) for k, d in tasks if k in {c[0] for c in cands}}
        for key, op in cands[3:]:
            for d in sorted(cpu_dtypes(op), key=lambda d: (_h(key + d), d)):
                if dtype_class(d) not in have:
                    have.add(dtype_class(d))
                    tasks.append((key, d))
                    covered.add(d)
    # every dtype at least once
    pref = ("pointwise arithmetic", "shape and composition")
    for key, op in sorted(ops, key=lambda ko: (family(ko[1].name) not in pref,
                                               _h("dt:" + ko[0]), ko[0])):
        for d in cpu_dtypes(op):
            if d not in covered:
                tasks.append((key, d))
                covered.add(d)
    seen, out = set(), []
    for t in tasks:
        if t not in seen:
            seen.add(t)
            out.append(t)
    return out


# ---------------------------------------------------------------- one case


class _Timeout(Exception):
    pass


def _first_line(e):
    msg = str(e).strip().splitlines()
    line = msg[0] if msg else ""
    return f"{type(e).__name__}: {line}"[:300]


def _is_unsupported(e):
    """russet's own, declared refusals: a NotImplementedError or a "not
    supported" message from russet ("russet: ..."). PyTorch's dispatcher errors
    ("Could not run ... from the 'russet' backend") are errors, not this."""
    msg = str(e)
    if "RUSSET_HOST_OPS" in msg:
        return False
    if isinstance(e, NotImplementedError) and msg.startswith("russet:"):
        return True
    return bool(re.search(r"russet: .*(not supported|unsupported)", msg))


class CaseFailure(Exception):
    """A mismatch between russet and CPU (class `wrong`)."""


def _tree_map(fn, obj):
    from torch.utils._pytree import tree_map

    return tree_map(fn, obj)


def _leaves(obj):
    from torch.utils._pytree import tree_flatten

    return tree_flatten(obj)[0]


def _view_to_russet(t):
    """t on russet. A strided view of a larger storage (a slice, a partial
    view) moves with its whole storage and keeps its sizes, strides and
    offset, so that the op sees the same layout as on CPU (and as_strided
    reaches the same elements); anything else moves with .to()."""
    import torch

    t = t.detach()
    st = t.untyped_storage() if t.layout == torch.strided and t.device.type == "cpu" else None
    if st is None or t.is_conj() or t.is_neg() or t.numel() == 0 or st.nbytes() % t.element_size():
        return t.to("russet")
    if st.nbytes() == t.numel() * t.element_size() and t.is_contiguous():
        return t.to("russet")
    whole = torch.empty(0, dtype=t.dtype).set_(st, 0, (st.nbytes() // t.element_size(),), (1,))
    return whole.to("russet").as_strided(t.size(), t.stride(), t.storage_offset()).detach()


def _to_russet(obj):
    import torch

    def f(t):
        if isinstance(t, torch.Tensor):
            r = _view_to_russet(t)
            if t.requires_grad:
                r.requires_grad_(True)
            return r
        # factories and .to(): the sample names the CPU device; russet's run names russet
        if isinstance(t, torch.device) and t.type == "cpu":
            return torch.device("russet")
        if isinstance(t, str) and t == "cpu":
            return "russet"
        return t

    return _tree_map(f, obj)


def _devmap(obj):
    """The CPU device named in a sample, as russet's run names it."""
    import torch

    def f(t):
        if isinstance(t, torch.device) and t.type == "cpu":
            return torch.device("russet")
        if isinstance(t, str) and t == "cpu":
            return "russet"
        return t

    return _tree_map(f, obj)


def _clone_cpu(obj):
    import torch

    def f(t):
        if isinstance(t, torch.Tensor):
            return t.detach().to("cpu", copy=True) if t.layout == torch.strided else t
        return t

    return _tree_map(f, obj)


def _numel_ok(obj):
    import torch

    for t in _leaves(obj):
        if isinstance(t, torch.Tensor) and t.layout == torch.strided and t.numel() > MAX_NUMEL:
            return False
    return True


def _names_device(obj):
    import torch

    for x in _leaves(obj):
        if isinstance(x, torch.device) or (isinstance(x, str) and x in ("cpu", "cuda", "meta")):
            return True
    return False


def tolerances(op, dtype):
    """(atol, rtol) overrides of the OpInfo for this dtype, or None: from
    toleranceOverride / precisionOverride decorators that apply to all tests
    or to test_compare_cpu (PyTorch's own device-vs-CPU test)."""
    atol = rtol = None
    for d in getattr(op, "decorators", ()) or ():
        if type(d).__name__ != "DecorateInfo":
            continue
        if d.test_name not in (None, "test_compare_cpu"):
            continue
        if d.test_name is None and d.device_type not in (None, "cpu"):
            continue
        if d.dtypes is not None and dtype not in d.dtypes:
            continue
        active = d.active_if
        if callable(active):
            continue
        if not active:
            continue
        for dec in d.decorators:
            name = type(dec).__name__
            if name == "toleranceOverride" and dtype in dec.d:
                t = dec.d[dtype]
                atol = max(atol or 0, t.atol)
                rtol = max(rtol or 0, t.rtol)
            elif name == "precisionOverride" and dtype in dec.d:
                atol = max(atol or 0, dec.d[dtype])
    if atol is None and rtol is None:
        return None
    return atol or 0.0, rtol or 0.0


def _assert_close(actual, expected, tol, what):
    """Tensors/scalars: russet `actual` (moved to CPU) against CPU `expected`."""
    import torch
    from torch.testing._comparison import default_tolerances

    if isinstance(expected, torch.Tensor):
        if not isinstance(actual, torch.Tensor):
            raise CaseFailure(f"{what}: expected a tensor, got {type(actual).__name__}")
        if actual.dtype != expected.dtype:
            raise CaseFailure(f"{what}: dtype {actual.dtype} != {expected.dtype}")
        if actual.shape != expected.shape:
            raise CaseFailure(f"{what}: shape {tuple(actual.shape)} != {tuple(expected.shape)}")
        if expected.layout != torch.strided:
            actual, expected = actual.to_dense(), expected.to_dense()
        a = actual.detach().cpu()
        e = expected.detach()
        if a.is_conj():
            a = a.resolve_conj()
        if e.is_conj():
            e = e.resolve_conj()
        if a.is_neg():
            a = a.resolve_neg()
        if e.is_neg():
            e = e.resolve_neg()
        dr, da = default_tolerances(a, e)
        if tol is not None:
            da, dr = max(da, tol[0]), max(dr, tol[1])
        try:
            torch.testing.assert_close(a, e, rtol=dr, atol=da, equal_nan=True,
                                       check_device=False, check_stride=False)
        except AssertionError as ex:
            lines = [ln.strip() for ln in str(ex).splitlines() if ln.strip()]
            raise CaseFailure(f"{what}: " + "; ".join(lines[:3])) from None
        return
    if isinstance(expected, (list, tuple)):
        if not isinstance(actual, (list, tuple)) or len(actual) != len(expected):
            raise CaseFailure(f"{what}: structure {type(actual).__name__} != "
                              f"{type(expected).__name__} of {len(expected)}")
        for i, (a, e) in enumerate(zip(actual, expected)):
            _assert_close(a, e, tol, f"{what}[{i}]")
        return
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or set(actual) != set(expected):
            raise CaseFailure(f"{what}: dict keys differ")
        for k in expected:
            _assert_close(actual[k], expected[k], tol, f"{what}[{k!r}]")
        return
    if isinstance(expected, float) and isinstance(actual, (float, int)):
        import math

        if math.isnan(expected) and math.isnan(actual):
            return
        t = tol or (1e-5, 1.3e-6)
        if abs(actual - expected) > t[0] + t[1] * abs(expected):
            raise CaseFailure(f"{what}: {actual} != {expected}")
        return
    if actual != expected and not (actual is None and expected is None):
        raise CaseFailure(f"{what}: {actual!r} != {expected!r}")


def _check_devices(out, expect_russet, what):
    import torch

    if not expect_russet:
        return
    for i, t in enumerate(_leaves(out)):
        if isinstance(t, torch.Tensor) and t.device.type != "russet":
            raise CaseFailure(f"{what}: output {i} is on {t.device}, expected russet")


def _check_meta(actual, expected, what):
    """Metadata only: structure, dtype, shape (values are not comparable)."""
    import torch

    la, le = _leaves(actual), _leaves(expected)
    if len(la) != len(le):
        raise CaseFailure(f"{what}: {len(la)} outputs != {len(le)}")
    for i, (a, e) in enumerate(zip(la, le)):
        if isinstance(e, torch.Tensor):
            if not isinstance(a, torch.Tensor):
                raise CaseFailure(f"{what}[{i}]: not a tensor")
            if a.dtype != e.dtype or a.shape != e.shape:
                raise CaseFailure(f"{what}[{i}]: {a.dtype}{tuple(a.shape)} != "
                                  f"{e.dtype}{tuple(e.shape)}")


def _sized_strides(t):
    """t's strides over the dims of more than one element (a size-1 dim's
    stride is arbitrary)"""
    return tuple(st for n, st in zip(t.shape, t.stride()) if n > 1)


# Where CPU and CUDA lay a result out differently, the layout is the
# backend's choice and is not compared: (OpInfo, variant) pairs measured by
# tests/gpu/strides_probe.py (torch 2.11, H200; docs/gpu-testing.md). The
# transposed convolutions are also held contiguous by PyTorch itself for
# russet: its fake tensors plan an out-of-tree backend's convolution outputs
# contiguous (src/torch/ops/conv.cpp), and the forward convolution with them.
STRIDES_BACKEND_CHOICE = {
    ("nn.functional.conv2d", "channels-last"), ("nn.functional.conv_transpose2d", "channels-last"),
    ("nn.functional.conv_transpose3d", "channels-last"), ("nn.functional.conv3d", "channels-last"),
    ("nn.functional.pad.replicate_negative", "channels-last"), ("nn.functional.max_unpool2d", "channels-last"),
    ("nn.functional.max_unpool2d.grad", "channels-last"), ("nn.functional.pixel_shuffle", "channels-last"),
    ("nn.functional.channel_shuffle", "channels-last"), ("fft.rfftn", "op"), ("linalg.eig", "op"),
}


def op_key(op):
    """An OpInfo's key: name[.variant_test_name]"""
    v = getattr(op, "variant_test_name", "")
    return op.name + (f".{v}" if v else "")


def _check_strides(actual, expected, what):
    """Each dense result laid out as CPU lays it out where CUDA agrees
    (STRIDES_BACKEND_CHOICE): channels_last in gives channels_last out,
    linear algebra's column-major results, nonzero's transposed one."""
    import torch

    la, le = _leaves(actual), _leaves(expected)
    for i, (a, e) in enumerate(zip(la, le)):
        if not (isinstance(a, torch.Tensor) and isinstance(e, torch.Tensor)):
            continue
        if a.layout != torch.strided or e.layout != torch.strided or e.numel() <= 1 or a.shape != e.shape:
            continue
        if _sized_strides(a) != _sized_strides(e):
            name = what if len(le) == 1 else f"{what}[{i}]"
            raise CaseFailure(f"{name}: strides {tuple(a.stride())} != CPU's {tuple(e.stride())} "
                              f"(shape {tuple(e.shape)})")


def _channels_last(obj):
    """A sample with every 4-d tensor in channels_last and every 5-d one in
    channels_last_3d (the channels-last variant)"""
    import torch

    def f(t):
        if isinstance(t, torch.Tensor) and t.layout == torch.strided and t.dim() in (4, 5):
            fmt = torch.channels_last if t.dim() == 4 else torch.channels_last_3d
            return t.detach().contiguous(memory_format=fmt).requires_grad_(t.requires_grad)
        return t

    return _tree_map(f, obj)


def _has_channels(sample):
    import torch

    return any(isinstance(t, torch.Tensor) and t.layout == torch.strided and t.dim() in (4, 5)
               and t.numel() > 1 for t in _leaves(_sample_parts(sample)))


# unbounded or heavy-tailed distributions: no range check (their extremes are
# legitimately far apart between two draws); cauchy has no mean either
UNBOUNDED_RANDOM = {"normal", "randn", "randn_like", "cauchy", "log_normal", "exponential",
                    "geometric"}
NO_MEAN_RANDOM = {"cauchy"}


def _check_random(actual, expected, what, op_name="", stats=True):
    """RNG ops: metadata, plus loose statistics of one seeded draw compared with
    CPU's draw: the same finiteness; for bounded distributions, values inside
    CPU's observed range widened by its spread; means within 6 standard errors
    (not for cauchy); medians within a band scaled by CPU's interquartile range.
    stats=False (the gradients and tangents of a random sample: their values
    are no sample of one distribution, since each depends on which elements
    the draw kept, in whole channels for dropout2d/3d): metadata and
    finiteness only. tests/python/test_attention.py checks that attention's
    dropout backward uses the forward's mask."""
    import torch

    _check_meta(actual, expected, what)
    for i, (a, e) in enumerate(zip(_leaves(actual), _leaves(expected))):
        if not isinstance(e, torch.Tensor) or e.numel() == 0 or e.is_complex():
            continue
        a = a.detach().cpu().double()
        e = e.detach().double()
        fa, fe = torch.isfinite(a), torch.isfinite(e)
        if bool(fe.all()) and not bool(fa.all()):
            raise CaseFailure(f"{what}[{i}]: non-finite values where CPU has none")
        a, e = a[fa], e[fe]
        if a.numel() == 0 or e.numel() == 0 or not stats:
            continue
        lo, hi = float(e.min()), float(e.max())
        spread = max(hi - lo, 1.0)
        if e.numel() >= 16 and op_name not in UNBOUNDED_RANDOM and (
                float(a.min()) < lo - spread or float(a.max()) > hi + spread):
            raise CaseFailure(f"{what}[{i}]: values in [{float(a.min()):.4g}, "
                              f"{float(a.max()):.4g}], CPU in [{lo:.4g}, {hi:.4g}]")
        if e.numel() >= 64 and op_name not in NO_MEAN_RANDOM:
            se = float(e.std()) / (e.numel() ** 0.5) * 2 ** 0.5
            if abs(float(a.mean()) - float(e.mean())) > 6 * se + 1e-3 * max(1.0, abs(float(e.mean()))):
                raise CaseFailure(f"{what}[{i}]: mean {float(a.mean()):.4g} vs CPU "
                                  f"{float(e.mean()):.4g} (se {se:.3g})")
        if e.numel() >= 64 and op_name in UNBOUNDED_RANDOM:
            q = torch.tensor([0.25, 0.5, 0.75], dtype=torch.float64)
            qa, qe = torch.quantile(a, q), torch.quantile(e, q)
            iqr = float(qe[2] - qe[0])
            band = iqr * (0.25 + 2.5 / e.numel() ** 0.5) + 1e-6
            if abs(float(qa[1] - qe[1])) > band:
                raise CaseFailure(f"{what}[{i}]: median {float(qa[1]):.4g} vs CPU "
                                  f"{float(qe[1]):.4g} (band {band:.3g})")


class _HostCounter:
    def __init__(self, torch):
        self.torch = torch

    def __enter__(self):
        self.torch.russet.synchronize()
        self.before = dict(self.torch.russet.host_op_counts())
        return self

    def __exit__(self, *exc):
        try:
            self.torch.russet.synchronize()
        except Exception:  # noqa: BLE001
            pass
        after = self.torch.russet.host_op_counts()
        self.ops = sorted(k for k, v in after.items() if v > self.before.get(k, 0))
        return False


def _sample_parts(s):
    return [s.input, list(s.args), dict(s.kwargs)]


def _call(fn, parts):
    return fn(parts[0], *parts[1], **parts[2])


# Called with "cpu" and "russet" as run_variant moves from CPU's call to
# russet's (the fuzzer's worker logs it: a crash in CPU's own kernel, which
# reads out of bounds on some arguments, is then not counted as russet's).
PHASE_HOOK = None


def _phase(name):
    if PHASE_HOOK is not None:
        PHASE_HOOK(name)


def run_variant(torch, op, op_name, variant, dtype, sample, tol):
    """One case: returns (class, detail, host_ops)."""
    process = getattr(sample, "output_process_fn_grad", None) or (lambda x: x)
    randomish = _random_sample(op_name, sample)
    if op_name in LOWRANK_OPS and variant not in AD_VARIANTS:
        randomish = False
        process = _lowrank_determined
    uninit = op_name in UNINITIALIZED_OPS
    parts_cpu = _sample_parts(sample)
    if variant == "channels-last":  # otherwise as the op variant
        parts_cpu = _channels_last(parts_cpu)
    if variant == "inplace":
        fn = op.inplace_variant
        parts_cpu[0] = _clone_cpu(parts_cpu[0])
    else:
        fn = op
    expect_russet = True
    parts_r = _to_russet(parts_cpu)
    if op_name in CPU_ARGS_OPS:  # these take index tensors on CPU (as on CUDA)
        parts_r[1] = parts_cpu[1]

    # CPU first (it defines what should happen)
    seed = 1234
    _phase("cpu")
    try:
        torch.manual_seed(seed)
        if variant == "out":
            out_c = _call(fn, _clone_cpu(parts_cpu))  # a copy: the op may update inputs
            outs_c = _tree_map(lambda t: torch.zeros_like(t) if isinstance(t, torch.Tensor) else t, out_c)
            if not isinstance(outs_c, torch.Tensor) and not (
                    isinstance(outs_c, (tuple, list)) and all(isinstance(t, torch.Tensor) for t in outs_c)):
                return "skipped", "out: result is not a tensor or a tuple of tensors", []
            if isinstance(outs_c, list):
                outs_c = tuple(outs_c)
            ret_c = fn(parts_cpu[0], *parts_cpu[1], **parts_cpu[2], out=outs_c)
            res_c = outs_c
        elif variant in VARIANT_RUNS:
            res_c = VARIANT_RUNS[variant](torch, fn, parts_cpu, process)
        else:
            res_c = process(_call(fn, parts_cpu))
    except _Timeout:
        raise
    except _NotApplicable as e:
        return "skipped", str(e), []
    except Exception as e:  # noqa: BLE001
        return "skipped", "cpu raises: " + _first_line(e), []

    _phase("russet")
    try:
        with _HostCounter(torch) as hc:
            torch.manual_seed(seed)
            if variant == "out":
                outs_r = _tree_map(lambda t: torch.zeros_like(t, device="russet"), outs_c)
                ret_r = fn(parts_r[0], *parts_r[1], **parts_r[2], out=outs_r)
                res_r = outs_r
            elif variant in VARIANT_RUNS:
                res_r = VARIANT_RUNS[variant](torch, fn, parts_r, process)
            else:
                res_r = process(_call(fn, parts_r))
            # materialize results inside the counted region (errors surface here)
            for t in _leaves(res_r):
                if isinstance(t, torch.Tensor) and t.device.type == "russet" and t.layout == torch.strided:
                    t.detach().cpu()
    except _Timeout:
        raise
    except Exception as e:  # noqa: BLE001
        return ("unsupported" if _is_unsupported(e) else "error"), _first_line(e), []
    host_ops = hc.ops

    try:
        _check_devices(res_r, expect_russet, variant)
        if uninit and variant not in AD_VARIANTS:
            _check_meta(res_r, res_c, variant)
        elif randomish:
            _check_random(res_r, res_c, variant, op_name, stats=variant not in AD_VARIANTS)
        else:
            try:
                _assert_close_or_processed(res_r, res_c, tol, "output" if variant not in AD_VARIANTS else variant,
                                           process if variant == "out" else None)
            except CaseFailure as first:
                failure, want, parts_want = first, res_c, parts_cpu
                dense = _cpu_dense_where_channels_last_wrong(torch, fn, sample, process, res_c, tol) \
                    if variant == "channels-last" else None
                if dense is not None:  # CPU's channels-last values differ from its dense ones
                    want, parts_want = dense, _sample_parts(sample)
                    try:  # russet right on the dense ones: CPU's kernel was wrong on the layout
                        _assert_close(res_r, want, tol, "output")
                        failure = None
                    except CaseFailure:
                        pass  # russet's own difference (CPU's rounding may differ by layout too)
                accurate = dtype in WIDER and (variant in ("grad", "gradgrad") or (
                    op_name in FUSED_ATTENTION_OPS and variant in ("op", "channels-last", "vmap")))
                if failure is not None:
                    if not accurate:
                        raise failure
                    _as_accurate_as_cpu(torch, variant, fn, parts_want, process, res_r, want, dtype)
        if variant in ("op", "channels-last") and not randomish and \
                (op_key(op), variant) not in STRIDES_BACKEND_CHOICE:
            _check_strides(res_r, res_c, "output")
        if variant == "out":
            if isinstance(outs_r, torch.Tensor):
                if ret_r is not outs_r and not (isinstance(ret_r, torch.Tensor) and ret_r.data_ptr() == outs_r.data_ptr()):
                    raise CaseFailure("out: the returned tensor is not `out`")
            _check_meta(ret_r, ret_c, "out return")
        if variant == "inplace" and not (randomish or uninit):
            _assert_close(parts_r[0], parts_cpu[0], tol, "inplace self")
        # inputs afterwards: unchanged, or changed exactly as on CPU
        if variant not in AD_VARIANTS and not randomish:
            start = 1 if variant == "inplace" else 0
            for i in range(start, 3):
                _assert_close(_clone_cpu(parts_r[i]), _devmap(parts_cpu[i]), tol,
                              f"input {i} after the call")
    except CaseFailure as e:
        return "wrong", str(e)[:300], host_ops
    except _Timeout:
        raise
    except Exception as e:  # noqa: BLE001  (a comparison that raised: russet gave something odd)
        return "wrong", "comparison raised " + _first_line(e), host_ops
    return ("pass-host" if host_ops else "pass-native"), "", host_ops


OUT_LAYOUTS = ("strided", "resized")
OUT_LAYOUT_SAMPLES = 3  # samples per (op, dtype) in the out-layouts variant


def _layout_out(torch, t, kind, device):
    """An `out=` tensor for the result `t` (CPU) on `device`: "strided", of
    t's shape but not contiguous (its dims stored in reverse order, or every
    other element of a longer vector); "resized", a non-empty tensor of the
    wrong shape, which PyTorch resizes with a warning. None where the kind
    does not apply (0-d or one-element results cannot be strided)."""
    if kind == "strided":
        if t.dim() == 0 or t.numel() < 2:
            return None
        if t.dim() == 1:
            return torch.zeros(2 * t.shape[0], dtype=t.dtype, device=device)[::2]
        rev = list(range(t.dim() - 1, -1, -1))
        return torch.zeros([t.shape[i] for i in rev], dtype=t.dtype, device=device).permute(rev)
    return torch.zeros(t.numel() + 3, dtype=t.dtype, device=device)


def _call_out(torch, fn, parts, outs):
    """fn(..., out=outs) with the warnings it gives: (result or exception,
    whether it warned of a resize)"""
    import warnings

    with warnings.catch_warnings(record=True) as ws:
        warnings.simplefilter("always")
        try:
            ret = fn(parts[0], *parts[1], **parts[2], out=outs)
        except Exception as e:  # noqa: BLE001
            ret = e
    return ret, any("resized" in str(w.message) for w in ws)


def _cpu_dense_where_channels_last_wrong(torch, fn, sample, process, res_c, tol):
    """The channels-last variant where russet differs from CPU: CPU's result
    on the sample as given (dense) when CPU's own channels-last values differ
    from it (CPU's kernel assumed a layout: the flash attention for CPU reads
    a dense last dimension without checking and returns uninitialized
    values), which is then the reference; None when CPU agrees with itself
    (the difference is russet's)."""
    torch.manual_seed(1234)
    dense = process(_call(fn, _sample_parts(sample)))
    try:
        _assert_close(res_c, dense, tol, "cpu")
        return None
    except CaseFailure:
        return dense


def _assert_close_or_processed(got, want, tol, what, process, wrap=None):
    """got as want; where they differ, an out= variant's results may still
    pass through the sample's output_process_fn_grad, as the op variant
    compares them (eigenvectors and singular vectors are unique only up to
    each one's sign or phase: OpInfo's process takes it out). A failure
    reports the plain comparison's difference. `wrap` turns the list of
    out tensors into what the op returns."""
    try:
        if wrap is None:
            _assert_close(got, want, tol, what)
        else:
            for i, (a, e) in enumerate(zip(got, want)):
                _assert_close(a, e, tol, f"{what}[{i}]")
    except CaseFailure:
        if process is None:
            raise
        try:
            _assert_close(process(wrap(got) if wrap else got), process(wrap(want) if wrap else want), tol, what)
        except CaseFailure:
            pass
        else:
            return
        raise


def run_out_layouts(torch, op, dtype, sample, tol):
    """The out-layouts variant: `out=` tensors that are not the fresh
    contiguous ones of the out variant. For each kind (OUT_LAYOUTS) russet
    must do what CPU does: write through a non-contiguous `out` keeping its
    strides, or resize a wrongly sized one with the same warning, the same
    shape and strides; and where CPU raises, raise the same type."""
    parts_cpu = _sample_parts(sample)
    process = getattr(sample, "output_process_fn_grad", None)
    try:
        out_c = _call(op, _clone_cpu(parts_cpu))
    except Exception as e:  # noqa: BLE001
        return "skipped", "cpu raises: " + _first_line(e), []
    leaves_c = [out_c] if isinstance(out_c, torch.Tensor) else list(out_c) \
        if isinstance(out_c, (tuple, list)) and all(isinstance(t, torch.Tensor) for t in out_c) else None
    if not leaves_c or any(t.layout != torch.strided for t in leaves_c):
        return "skipped", "out: result is not a tensor or a tuple of tensors", []
    tried, host_ops = 0, []
    for kind in OUT_LAYOUTS:
        made_c = [_layout_out(torch, t, kind, "cpu") for t in leaves_c]
        if any(m is None for m in made_c):
            continue
        made_r = [_layout_out(torch, t, kind, "russet") for t in leaves_c]
        wrap = (lambda ts: ts[0]) if isinstance(out_c, torch.Tensor) else tuple
        ret_c, warned_c = _call_out(torch, op, _clone_cpu(parts_cpu), wrap(made_c))
        with _HostCounter(torch) as hc:
            ret_r, warned_r = _call_out(torch, op, _to_russet(parts_cpu), wrap(made_r))
            try:
                torch.russet.synchronize()
            except Exception as e:  # noqa: BLE001
                ret_r = e
        host_ops += hc.ops
        tried += 1
        what = f"out {kind}"
        if isinstance(ret_c, Exception):
            if not isinstance(ret_r, Exception):
                return "wrong", f"{what}: CPU raises {_first_line(ret_c)}; russet does not", host_ops
            if type(ret_r) is not type(ret_c):
                return "wrong", f"{what}: raises {_first_line(ret_r)}, CPU {_first_line(ret_c)}", host_ops
            continue
        if isinstance(ret_r, Exception):
            return ("unsupported" if _is_unsupported(ret_r) else "error"), \
                f"{what}: {_first_line(ret_r)}", host_ops
        try:
            if warned_r != warned_c:
                raise CaseFailure(f"{what}: {'a' if warned_r else 'no'} resize warning, CPU "
                                  f"{'warns' if warned_c else 'does not'}")
            _assert_close_or_processed(made_r, made_c, tol, what, process, wrap)
            for i, (a, e) in enumerate(zip(made_r, made_c)):
                if a.stride() != e.stride():
                    raise CaseFailure(f"{what}[{i}]: strides {a.stride()} != CPU's {e.stride()}")
            # (ops whose out= form returns nothing, as split_with_sizes_copy: CPU's None)
            if any(isinstance(t, torch.Tensor) for t in _leaves(ret_c)):
                for i, (a, m) in enumerate(zip(_leaves(ret_r), made_r)):
                    if not isinstance(a, torch.Tensor) or a.data_ptr() != m.data_ptr():
                        raise CaseFailure(f"{what}: returned tensor {i} is not `out`")
        except CaseFailure as e:
            return "wrong", str(e)[:300], host_ops
        except Exception as e:  # noqa: BLE001
            return "wrong", f"{what}: comparison raised " + _first_line(e), host_ops
    if not tried:
        return "skipped", "out: no layout applies to a one-element result", []
    host_ops = sorted(set(host_ops))
    return ("pass-host" if host_ops else "pass-native"), "", host_ops


class _NotApplicable(RuntimeError):
    """A variant that does not apply to a sample (no second derivative, no
    tensor to batch): the case is skipped with this message. (The older
    "no input requires grad" and "no differentiable output" are plain
    RuntimeErrors, skipped as "cpu raises: ...".)"""


def _first_grads(torch, fn, parts, process, create_graph):
    """The inputs that require grad and the gradients of the sum of the
    outputs (real and imaginary parts of complex ones) with respect to them."""
    leaves = [t for t in _leaves(parts) if isinstance(t, torch.Tensor) and t.requires_grad]
    if not leaves:
        raise RuntimeError("no input requires grad")
    out = process(_call(fn, parts))
    outs = [t for t in _leaves(out) if isinstance(t, torch.Tensor) and t.requires_grad]
    if not outs:
        raise RuntimeError("no differentiable output")
    loss = 0
    for t in outs:
        loss = loss + (torch.view_as_real(t).sum() if t.is_complex() else t.sum())
    return leaves, torch.autograd.grad(loss, leaves, allow_unused=True, create_graph=create_graph)


# the dtype a gradient is recomputed in to judge one that differs from CPU's
WIDER = {"float16": "float32", "bfloat16": "float32", "float32": "float64", "complex64": "complex128"}
# Fused attention kernels called by name: their results (not only their
# gradients) are held to the as-accurate-as-CPU rule, PyTorch's own for
# them (CPU's flash kernel is itself 1.9e-5 from float64 on OpInfo's
# float32 samples, past the default tolerance's 1e-5 of its own result)
FUSED_ATTENTION_OPS = {"torch.ops.aten._scaled_dot_product_flash_attention_for_cpu"}


def _as_accurate_as_cpu(torch, variant, fn, parts_cpu, process, res_r, res_c, dtype, fudge=2):
    """Gradients (`variant`: grad or gradgrad; or a FUSED_ATTENTION_OPS
    result, any forward variant, on the dense sample) that differ from CPU's:
    CPU's backward kernels round intermediates in the dtype (its float16
    grid_sampler backward is off by 3.8 where russet's is off by 0.015), and
    second derivatives magnify a float32 rounding. russet's pass if each is
    at most `fudge` times as far as CPU's from the same computation in the
    wider dtype WIDER[dtype] on the same inputs (or within a rounding step
    of it): PyTorch's own rule for its fused attention kernels,
    tests/python/opinfo_check.py's as_accurate_as_cpu. Raises CaseFailure
    otherwise."""
    lo, hi = getattr(torch, dtype), getattr(torch, WIDER[dtype])

    def wide(t):
        if isinstance(t, torch.Tensor) and t.dtype == lo:
            return t.detach().to(hi).requires_grad_(t.requires_grad)
        return t

    run = VARIANT_RUNS.get(variant, lambda torch, fn, parts, process: process(_call(fn, parts)))
    ref = run(torch, fn, _tree_map(wide, parts_cpu), process)
    listed = lambda x: [x] if isinstance(x, torch.Tensor) else x  # noqa: E731  (an op's single result)
    for i, (a, c, r) in enumerate(zip(listed(res_r), listed(res_c), listed(ref))):
        if a is None or c is None or r is None or r.numel() == 0:
            continue
        a, c = a.detach().cpu().to(hi), c.to(hi)
        # non-finite values where CPU has them (as assert_close's equal_nan);
        # the distances over the elements finite in all three
        if not torch.equal(torch.isfinite(a), torch.isfinite(c)):
            raise CaseFailure(f"{variant}[{i}]: non-finite values where CPU's are finite, or the reverse")
        fin = torch.isfinite(a) & torch.isfinite(c) & torch.isfinite(r)
        if not bool(fin.any()):
            continue
        a, c, r = a[fin], c[fin], r[fin]
        err = (a - r).abs().max().item()
        cpu_err = (c - r).abs().max().item()
        floor = torch.finfo(getattr(torch, dtype)).eps * max(r.abs().max().item(), 1.0)
        if not err <= max(fudge * cpu_err, floor):
            raise CaseFailure(f"{variant}[{i}]: {err:.3g} from the {WIDER[dtype]} result, CPU's {cpu_err:.3g} "
                              f"(not as accurate as CPU)")


def _grad_run(torch, fn, parts, process):
    _, grads = _first_grads(torch, fn, parts, process, False)
    return [g.detach() if g is not None else None for g in grads]


def _gradgrad_run(torch, fn, parts, process):
    """Reverse over reverse: the gradient, with respect to the same inputs,
    of the first gradients' inner product with weights drawn on the CPU from
    a fixed seed (the same on both devices)."""
    leaves, grads = _first_grads(torch, fn, parts, process, True)
    gen = torch.Generator().manual_seed(20261204)
    second = 0
    for g in grads:
        if g is None or not g.requires_grad:
            continue
        w = torch.randn(g.shape, generator=gen, dtype=g.dtype).to(g.device)
        prod = g * w
        second = second + (torch.view_as_real(prod).sum() if prod.is_complex() else prod.sum())
    if isinstance(second, int):
        raise _NotApplicable("no second derivative (the first gradient does not depend on the inputs)")
    g2 = torch.autograd.grad(second, leaves, allow_unused=True)
    return [g.detach() if g is not None else None for g in g2]


def _vmap_run(torch, fn, parts, process):
    """torch.func.vmap of the op over a new leading dimension of 2: every
    tensor of the sample stacked with its flip along every dimension (same
    values, so index and mask inputs stay valid; a different batch entry)."""
    from torch.utils._pytree import tree_flatten, tree_unflatten

    flat, spec = tree_flatten(parts)
    where = [i for i, t in enumerate(flat) if isinstance(t, torch.Tensor) and t.layout == torch.strided]
    if not where:
        raise _NotApplicable("no tensor to batch")
    batched = []
    for i in where:
        t = flat[i].detach()
        batched.append(torch.stack([t, t.flip(list(range(t.dim()))) if t.dim() else t]))

    def one(*ts):
        f = list(flat)
        for i, t in zip(where, ts):
            f[i] = t
        return process(_call(fn, tree_unflatten(f, spec)))

    return torch.func.vmap(one)(*batched)


def _fwad_run(torch, fn, parts, process):
    """Forward-mode AD: every input that requires grad becomes a dual
    tensor with a tangent drawn on the CPU from a fixed seed (the same on
    both devices), then moved to the input's device; returns the outputs'
    tangents (None where an output has none)."""
    import torch.autograd.forward_ad as fwAD

    gen = torch.Generator().manual_seed(20261203)
    with fwAD.dual_level():
        def dual(t):
            if not (isinstance(t, torch.Tensor) and t.requires_grad):
                return t
            tan = torch.randn(t.shape, generator=gen, dtype=t.dtype).to(t.device)
            return fwAD.make_dual(t.detach(), tan)

        dparts = _tree_map(dual, parts)
        if not any(fwAD.unpack_dual(t).tangent is not None
                   for t in _leaves(dparts) if isinstance(t, torch.Tensor)):
            raise RuntimeError("no input requires grad")
        out = process(_call(fn, dparts))
        tans = [fwAD.unpack_dual(t).tangent for t in _leaves(out) if isinstance(t, torch.Tensor)]
        if all(t is None for t in tans):
            raise RuntimeError("no differentiable output")
        return [t.clone() if t is not None else None for t in tans]


# the variants that run the op their own way (the others call it directly)
VARIANT_RUNS = {"grad": _grad_run, "fwad": _fwad_run, "gradgrad": _gradgrad_run, "vmap": _vmap_run}


# ---------------------------------------------------------------- one task


def _samples(op, torch_dtype, lim, requires_grad=False):
    import itertools

    out, reasons = [], []

    def take(gen, n):
        got = 0
        for s in itertools.islice(gen, MAX_SAMPLES_SCANNED):
            if got >= n:
                break
            if not _numel_ok(_sample_parts(s)):
                reasons.append("too large")
                continue
            out.append(s)
            got += 1

    take(op.sample_inputs("cpu", torch_dtype, requires_grad=requires_grad), lim["samples"]
         if not requires_grad else lim["grad_samples"])
    if not requires_grad and getattr(op, "reference_inputs_func", None) is not None:
        take(op.reference_inputs("cpu", torch_dtype, requires_grad=False), lim["reference"])
    return out, reasons


def _torch_before(torch, version):
    """True when the running torch is older than `version` (major, minor)."""
    parts = torch.__version__.split("+")[0].split(".")
    return tuple(int(p) for p in parts[:2] if p.isdigit()) < version


def _raises_as_listed(torch, op, ei, sync):
    """(class, detail) of one ErrorInput: does op raise ei.error_type with a
    message matching ei.error_regex?"""
    si = ei.sample_input
    try:
        op(si.input, *si.args, **si.kwargs)
        if sync:
            torch.russet.synchronize()
    except _Timeout:
        raise
    except Exception as e:  # noqa: BLE001
        if isinstance(e, ei.error_type) and re.search(ei.error_regex, str(e)):
            return "pass", ""
        return "error", (f"{type(e).__name__}: {_first_line(e)} (expected {ei.error_type.__name__} "
                         f"matching {ei.error_regex!r})")
    return "wrong", f"no error (expected {ei.error_type.__name__} matching {ei.error_regex!r})"


def run_error_inputs(torch, op):
    """The errors variant's cases, or None where the OpInfo has no error_inputs."""
    if getattr(op, "error_inputs_func", None) is None:
        return None
    try:
        cpu = list(op.error_inputs("cpu"))
    except _Timeout:
        raise
    except Exception as e:  # noqa: BLE001
        return [["skipped", "error_inputs raise on CPU: " + _first_line(e), []]]
    cases = []
    dev = op.error_inputs("russet")
    for c in cpu:
        # built one at a time: where russet cannot build a case (the
        # generator then stops), the cases before it still count
        try:
            d = next(dev)
        except StopIteration:
            cases.append(["skipped", "error_inputs gives fewer cases on russet than on CPU", []])
            break
        except _Timeout:
            raise
        except Exception as e:  # noqa: BLE001
            cases.append(["error", "building the case on russet raised " + _first_line(e), []])
            break
        if _raises_as_listed(torch, op, c, False)[0] != "pass":
            cases.append(["skipped", "cpu does not raise as listed", []])
            continue
        with _HostCounter(torch) as hc:
            cls, detail = _raises_as_listed(torch, op, d, True)
        if cls == "pass":
            cls = "pass-host" if hc.ops else "pass-native"
        cases.append([cls, detail[:300], hc.ops])
    return cases


def _errors_dtype(op):
    """The dtype task that carries an op's errors variant: its first."""
    dts = cpu_dtypes(op)
    return dts[0] if dts else None


def run_task(torch, key, op, dtype_name, mode):
    """All cases of one (op, dtype): {variant: [[class, detail, host_ops], ...]}."""
    lim = LIMITS[mode]
    dtype = getattr(torch, dtype_name)
    tol = tolerances(op, dtype)
    res = {}
    if key.startswith("torch._scaled_mm") and _torch_before(torch, (2, 13)):
        # before 2.13, CPU's _scaled_mm took per-tensor scales only and had
        # no _scaled_mm_v2: it is not the reference (tests/python/test_scaled_mm.py)
        return {"op": [["skipped", "CPU's torch._scaled_mm before torch 2.13 is not the reference", []]]}
    # sample values come from the global RNG: seed it per task, so every run
    # of a task sees the same inputs whatever ran before it
    torch.manual_seed(_h(f"{key}:{dtype_name}") % (1 << 31))
    try:
        samples, why = _samples(op, dtype, lim)
    except _Timeout:
        raise
    except Exception as e:  # noqa: BLE001
        return {"op": [["skipped", "sample inputs raise: " + _first_line(e), []]]}
    if not samples:
        res["op"] = [["skipped", "no sample inputs" + (" (all too large)" if why else ""), []]]
        return _with_errors(torch, key, op, dtype_name, res)
    variants = ["op"]
    if getattr(op, "inplace_variant", None) is not None:
        variants.append("inplace")
    if getattr(op, "supports_out", False) and not op.name.startswith("_foreach"):
        variants.append("out")
    for v in variants:
        res[v] = []
        for s in samples:
            res[v].append(list(run_variant(torch, op, op.name, v, dtype_name, s, tol)))
    fixed = [s for s in samples if not _random_sample(op.name, s)]
    if "out" in variants and fixed and op.name not in UNINITIALIZED_OPS:
        res["out-layouts"] = [list(run_out_layouts(torch, op, dtype, s, tol))
                              for s in fixed[:OUT_LAYOUT_SAMPLES]]
    chans = [s for s in fixed if _has_channels(s)][:OUT_LAYOUT_SAMPLES]
    if chans:
        res["channels-last"] = [list(run_variant(torch, op, op.name, "channels-last", dtype_name, s, tol))
                                for s in chans]
    if dtype_name == _vmap_dtype(op) and fixed and op.name not in UNINITIALIZED_OPS:
        res["vmap"] = [list(run_variant(torch, op, op.name, "vmap", dtype_name, s, tol))
                       for s in fixed[:VMAP_SAMPLES]]
    if dtype_name in _grad_dtypes(op) and op.name not in UNINITIALIZED_OPS:
        try:
            gs, _ = _samples(op, dtype, lim, requires_grad=True)
        except _Timeout:
            raise
        except Exception as e:  # noqa: BLE001
            gs = []
            res["grad"] = [["skipped", "sample inputs raise: " + _first_line(e), []]]
        if gs:
            res["grad"] = [list(run_variant(torch, op, op.name, "grad", dtype_name, s, tol))
                           for s in gs]
            if dtype_name == "float32" and getattr(op, "supports_forward_ad", False):
                res["fwad"] = [list(run_variant(torch, op, op.name, "fwad", dtype_name, s, tol))
                               for s in gs]
            if dtype_name == "float32" and getattr(op, "supports_gradgrad", False):
                res["gradgrad"] = [list(run_variant(torch, op, op.name, "gradgrad", dtype_name, s, tol))
                                   for s in gs]
    return _with_errors(torch, key, op, dtype_name, res)


def _grad_dtypes(op):
    """The floating and complex dtypes whose gradients the sweep checks:
    those CPU's OpInfo declares differentiable."""
    import torch

    if not getattr(op, "supports_autograd", False):
        return ()
    try:
        dts = op.supported_backward_dtypes("cpu")
    except Exception:  # noqa: BLE001
        return ()
    return {_dtype_name(d) for d in dts if isinstance(d, torch.dtype) and (d.is_floating_point or d.is_complex)}


def _vmap_dtype(op):
    """The dtype task that carries an op's vmap variant: float32, or its first."""
    dts = cpu_dtypes(op)
    return "float32" if "float32" in dts else (dts[0] if dts else None)


def _with_errors(torch, key, op, dtype_name, res):
    """res plus the errors variant on the op's first dtype (seeded on its
    own, after the others: their inputs do not depend on it)."""
    if dtype_name == _errors_dtype(op):
        torch.manual_seed(_h(f"{key}:errors") % (1 << 31))
        errs = run_error_inputs(torch, op)
        if errs:
            res["errors"] = errs
    return res


def _alarm(signum, frame):
    raise _Timeout()


def worker_main(task_file, out_file, mode):
    """Runs tasks [(key, dtype)] and appends JSON lines to out_file."""
    import warnings

    warnings.filterwarnings("ignore")
    import torch

    import russet  # noqa: F401

    torch.set_num_threads(1)
    with open(task_file) as f:
        tasks = json.load(f)
    ops = dict(load_ops())
    signal.signal(signal.SIGALRM, _alarm)
    lim = LIMITS[mode]
    with open(out_file, "a", buffering=1) as out:
        for i, (key, dt) in enumerate(tasks):
            out.write(json.dumps({"start": i}) + "\n")
            out.flush()
            t0 = time.time()
            signal.alarm(lim["task_timeout"])
            try:
                res = run_task(torch, key, ops[key], dt, mode)
            except _Timeout:
                res = {"op": [["error", f"timeout: more than {lim['task_timeout']} s for this "
                                        "(op, dtype)", []]]}
            except Exception as e:  # noqa: BLE001  (a harness bug must not stop the sweep)
                if _is_unsupported(e):  # the sample's dtype itself (torch 2.15's bcomplex32): declared
                    res = {"op": [["unsupported", _first_line(e), []]]}
                else:
                    res = {"op": [["error", "harness: " + _first_line(e) + " | " +
                                   traceback.format_exc().strip().splitlines()[-2][:200], []]]}
            finally:
                signal.alarm(0)
            out.write(json.dumps({"done": i, "key": key, "dtype": dt, "s": round(time.time() - t0, 3),
                                  "res": res}) + "\n")
            out.flush()


# ---------------------------------------------------------------- the sweep


_SNAPSHOT = None


def snapshot_package():
    """Copies python/russet (with _russet.so) to a temporary directory, which
    the workers import: a rebuild of the library during the sweep (others
    build in the same tree) then cannot change what is measured midway."""
    global _SNAPSHOT
    import shutil

    if _SNAPSHOT is None:
        root = tempfile.mkdtemp(prefix="russet-cov-pkg-")
        shutil.copytree(os.path.join(REPO, "python", "russet"), os.path.join(root, "russet"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        _SNAPSHOT = root
    return _SNAPSHOT


def _drop_snapshot():
    global _SNAPSHOT
    import shutil

    if _SNAPSHOT is not None:
        shutil.rmtree(_SNAPSHOT, ignore_errors=True)
        _SNAPSHOT = None


def _worker_env(profile):
    env = dict(os.environ)
    env["RUSSET_PROFILE"] = profile
    env["RUSSET_HOST_OPS"] = "allow"
    env["RUSSET_COVERAGE_REPO"] = REPO
    env["TORCH_DEVICE_BACKEND_AUTOLOAD"] = "0"
    # the sweep compares russet with CPU: with CUDA visible, OpInfo's
    # *_like/new_* samples made tensors on cuda:0 (a CUDA torch on the
    # H200), and russet would share the process with CUDA
    env["CUDA_VISIBLE_DEVICES"] = ""
    pkg = _SNAPSHOT or os.path.join(REPO, "python")
    env["PYTHONPATH"] = pkg + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def run_tasks(tasks, mode, profile="apple", jobs=1, progress=None, deadline=None):
    """Runs the tasks in worker subprocesses; returns {(key, dtype): result}.
    A worker that dies or hangs costs only the task it was on (an error).
    At `deadline` (a time.time()) the tasks not finished are left out."""
    results = {}
    env = _worker_env(profile)
    tmp = tempfile.mkdtemp(prefix="russet-cov-")
    queue = list(range(len(tasks)))  # indices not started
    running = []  # dicts: proc, idx list, out path, pos, last progress time
    n_done = 0
    startup_failures = [0]
    t_start = time.time()
    chunk_id = 0

    def launch(idx):
        nonlocal chunk_id
        chunk_id += 1
        tf = os.path.join(tmp, f"tasks{chunk_id}.json")
        of = os.path.join(tmp, f"out{chunk_id}.jsonl")
        with open(tf, "w") as f:
            json.dump([tasks[i] for i in idx], f)
        open(of, "w").close()
        proc = subprocess.Popen(
            [sys.executable, "-c",
             "import sys; sys.path.insert(0, sys.argv[1]); from conformance import worker_main; worker_main(*sys.argv[2:])",
             TOOLS,
             tf, of, mode], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=REPO)
        return {"proc": proc, "idx": idx, "out": of, "read": 0, "started": None,
                "last": time.time(), "errtail": b""}

    def poll(w):
        """Reads new lines; returns the local index of the task in progress."""
        nonlocal n_done
        with open(w["out"]) as f:
            f.seek(w["read"])
            data = f.read()
        complete = data[: data.rfind("\n") + 1]
        w["read"] += len(complete.encode())
        for line in complete.splitlines():
            rec = json.loads(line)
            if "start" in rec:
                w["started"] = rec["start"]
                w["last"] = time.time()
            else:
                gi = w["idx"][rec["done"]]
                results[tuple(tasks[gi])] = {"res": rec["res"], "s": rec["s"]}
                w["started"] = None
                w["last"] = time.time()
                n_done += 1
                if progress:
                    progress(n_done, len(tasks), time.time() - t_start, tasks[gi])

    try:
        _loop(tasks, mode, jobs, queue, running, results, launch, poll, startup_failures, deadline)
    finally:
        for w in running:
            w["proc"].kill()
            w["proc"].wait()
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    return results


def _loop(tasks, mode, jobs, queue, running, results, launch, poll, startup_failures, deadline=None):
    while queue or running:
        if deadline is not None and time.time() > deadline:
            for w in running:  # what they finished counts; the rest is left out
                poll(w)
            break
        while queue and len(running) < jobs:
            idx, queue = queue[:TASKS_PER_WORKER], queue[TASKS_PER_WORKER:]
            running.append(launch(idx))
        time.sleep(0.2)
        for w in list(running):
            rc = w["proc"].poll()
            poll(w)
            hung = rc is None and w["started"] is not None and time.time() - w["last"] > WATCHDOG_S
            if hung:
                w["proc"].kill()
                w["proc"].wait()
                rc = "hang"
            if rc is None:
                continue
            running.remove(w)
            err = (w["proc"].stderr.read() or b"").decode(errors="replace")
            poll(w)
            done_local = {i for i, gi in enumerate(w["idx"]) if tuple(tasks[gi]) in results}
            rest = [i for i in range(len(w["idx"])) if i not in done_local]
            if not rest:
                continue
            if w["started"] is None and not done_local and rc != "hang":
                # died before its first task: the worker could not start
                startup_failures[0] += 1
                if startup_failures[0] > 3:
                    raise RuntimeError("coverage workers cannot start: " + err[-2000:])
                time.sleep(5)
                queue = w["idx"] + queue
                continue
            # the task in progress when the worker died: an error; the rest go back
            bad = w["started"] if w["started"] is not None else rest[0]
            gi = w["idx"][bad]
            if rc == "hang":
                why = f"hang: no progress for {WATCHDOG_S} s; worker killed"
            else:
                tail = [ln for ln in err.strip().splitlines() if ln.strip()][-1:] or [""]
                why = f"crash: worker exited with {rc}" + (
                    f" (signal {-rc})" if isinstance(rc, int) and rc < 0 else "") + f": {tail[0][:200]}"
            results[tuple(tasks[gi])] = {"res": {"op": [["error", why, []]]}, "s": None}
            queue = [w["idx"][i] for i in rest if i != bad] + queue
    return results


# ---------------------------------------------------------------- classify, report


def _variant_class(cases):
    classes = [c[0] for c in cases]
    for k in ("wrong", "error", "unsupported"):
        if k in classes:
            return k
    if "pass-host" in classes:
        return "pass-host"
    if "pass-native" in classes:
        return "pass-native"
    return "skipped"


def _combine(classes):
    for k in ("wrong", "error", "unsupported", "pass-host", "pass-native"):
        if k in classes:
            return k
    return "skipped"


def summarize_task(key, dtype, res):
    """A compact record of one (op, dtype) with its cases."""
    name = key.split(".", 1)[0] if key not in FAMILY_OF else key
    rec = {"op": key, "dtype": dtype, "variants": {}}
    for v, cases in res.items():
        cls = _variant_class(cases)
        first = next((c[1] for c in cases if c[0] == cls and c[1]), "")
        if not first:
            first = next((c[1] for c in cases if c[1]), "")
        host = sorted({h for c in cases for h in c[2]})
        rec["variants"][v] = {"class": cls, "cases": "".join(CASE_CODES[c[0]] for c in cases),
                              "detail": first, "host_ops": host[:12]}
    rec["class"] = _combine([x["class"] for x in rec["variants"].values()])
    del name
    return rec


def load_known_failures(path=KNOWN_FAILURES):
    with open(path) as f:
        data = json.load(f)
    out = {}
    for e in data["failures"]:
        k = (e["op"], e["variant"], e["dtype"])
        if k in out:
            raise ValueError(f"duplicate known failure {k}")
        if not e.get("reason", "").strip():
            raise ValueError(f"known failure {k} has no reason")
        out[k] = e
    return out


def failure_signature(detail):
    """The stable part of a failure's detail, which a known failure must
    keep: for a wrong value, which output and how it differs ("output[1]:
    Tensor-likes are not equal!", without the counts that follow); for an
    error, its type and the start of its message. Numbers other than an
    output's index become '#', so sizes and counts do not matter."""
    line = (detail or "").strip().split("\n")[0].split("; ")[0]
    return re.sub(r"(?<![\[\d])\d+(?![\d\]])", "#", line)[:80]


def check_against_known(records, known):
    """(new failures, known failures that now pass), for the cases that ran.
    A failure is `wrong`, `error` or `unsupported`. A listed case counts as
    known only while it fails the way it is listed: its class, and the
    stable part of its detail (failure_signature) where the entry records
    one. A known wrong result that turns into an error, an error with
    another message, or an unsupported case is a new failure. An entry
    marked `flaky` (CPU's own result differs between runs or machines) may also pass."""
    new, fixed = [], []
    for r in records:
        for v, x in r["variants"].items():
            k = (r["op"], v, r["dtype"])
            failing = x["class"] in FAILING + ("unsupported",)
            e = known.get(k)
            if failing and (e is None or e.get("class") != x["class"]
                            or e.get("detail", failure_signature(x["detail"])) != failure_signature(x["detail"])):
                listed = f" (listed as {e.get('class')}: {e.get('detail', '')})" if e else ""
                new.append((k, x["class"] + listed, x["detail"]))
            elif e is not None and not failing and not e.get("flaky"):
                fixed.append((k, x["class"]))
    return new, fixed


def registration_inventory(torch):
    """Counts over every aten op overload in the dispatcher."""
    names = set()
    for s in torch._C._dispatch_get_all_op_names():
        if s.startswith("aten::"):
            names.add(s)
    has = torch._C._dispatch_has_kernel_for_dispatch_key
    native = composite = host = 0
    native_list = []
    for n in sorted(names):
        try:
            if has(n, "PrivateUse1"):
                native += 1
                native_list.append(n)
            elif has(n, "CompositeImplicitAutograd") or has(n, "CompositeExplicitAutograd") \
                    or has(n, "CompositeExplicitAutogradNonFunctional"):
                composite += 1
            else:
                host += 1
        except Exception:  # noqa: BLE001
            host += 1
    return {"aten_ops": len(names), "privateuse1_kernel": native,
            "composite_only": composite, "fallback_only": host,
            "native_ops": native_list}


def _device_info(torch):
    p = torch.russet.get_device_properties()
    return {"name": p.name, "driver": p.driver, "profile": p.profile}


def _git_commit():
    try:
        c = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True,
                           text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no",
                                "src", "kernels", "include"], cwd=REPO, capture_output=True,
                               text=True).stdout.strip()
        return c + ("+dirty(src)" if dirty else "")
    except Exception:  # noqa: BLE001
        return "unknown"


def _meta_probe(profile):
    """Device, torch version and registration inventory, read in a subprocess
    under the profile of the sweep."""
    code = ("import json, os, torch, russet\n"
            f"import sys; sys.path.insert(0, {TOOLS!r})\n"
            "from conformance import registration_inventory, _device_info\n"
            "print(json.dumps({'device': _device_info(torch), 'torch': torch.__version__, "
            "'package': os.path.dirname(russet.__file__), "
            "'inventory': registration_inventory(torch)}))\n")
    r = subprocess.run([sys.executable, "-c", code], env=_worker_env(profile),
                       capture_output=True, text=True, cwd=REPO, timeout=300)
    if r.returncode != 0:
        raise RuntimeError("metadata probe failed: " + r.stderr[-2000:])
    return json.loads(r.stdout.strip().splitlines()[-1])


def sweep(mode="quick", profile="apple", jobs=1, tasks=None, verbose=True, time_limit=None):
    """Runs a sweep; returns the report dict (not written anywhere). With
    time_limit (seconds), the tasks not done by then are left out of the
    report, which says so ("partial")."""
    t0 = time.time()
    ops = load_ops()
    if tasks is None:
        tasks = quick_tasks(ops) if mode == "quick" else all_tasks()
    snapshot_package()
    try:
        meta = _meta_probe(profile)
    except Exception:
        _drop_snapshot()
        raise
    fam_of_key = {k: family(o.name) for k, o in ops}

    def progress(n, total, dt, task):
        if verbose and (n % 25 == 0 or n == total):
            eta = dt / n * (total - n)
            print(f"  {n}/{total} tasks, {dt:.0f} s, ~{eta:.0f} s left ({task[0]} {task[1]})",
                  flush=True)

    if verbose:
        print(f"coverage {mode}: {len(tasks)} (op, dtype) tasks, profile {profile}, "
              f"{jobs} worker(s)", flush=True)
    try:
        deadline = t0 + time_limit if time_limit is not None else None
        results = run_tasks([list(t) for t in tasks], mode, profile, jobs, progress, deadline)
    finally:
        _drop_snapshot()
    records = []
    partial = None
    if time_limit is not None and len(results) < len(tasks):
        partial = {"done": len(results), "of": len(tasks)}
        tasks = [t for t in tasks if tuple(t) in results]
    for key, dt in tasks:
        r = results.get((key, dt))
        if r is None:
            res = {"op": [["error", "harness: no result", []]]}
            s = None
        else:
            res, s = r["res"], r["s"]
        rec = summarize_task(key, dt, res)
        rec["family"] = fam_of_key.get(key) or "(unmapped)"
        rec["seconds"] = s
        records.append(rec)
    report = {
        "mode": mode,
        "profile": profile,
        "device": meta["device"],
        "torch": meta["torch"],
        "python": platform.python_version(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": _git_commit(),
        "measured_package": meta.get("package"),
        "seconds": round(time.time() - t0, 1),
        "limits": dict(LIMITS[mode], max_numel=MAX_NUMEL),
        "inventory": meta["inventory"],
        "summary": summary(records),
        "records": records,
    }
    if partial:
        report["partial"] = partial
    return report


def summary(records):
    pairs = [r for r in records]
    counts = {c: 0 for c in CLASSES}
    for r in pairs:
        counts[r["class"]] += 1
    tested = len(pairs) - counts["skipped"]
    out = {"op_dtype_pairs": len(pairs), "tested_pairs": tested,
           "opinfos": len({r["op"] for r in pairs})}
    for c in CLASSES:
        out[c] = counts[c]
    for c in CLASSES[:-1]:
        out[c + " %"] = round(100.0 * counts[c] / tested, 1) if tested else 0.0
    var = {}
    for r in pairs:
        for v, x in r["variants"].items():
            d = var.setdefault(v, {c: 0 for c in CLASSES})
            d[x["class"]] += 1
    out["by_variant"] = var
    out["cases"] = sum(len(x["cases"]) for r in pairs for x in r["variants"].values())
    return out


def write_report(report, json_path=None, md_path=None):
    json_path = json_path or os.path.join(DOCS, "coverage.json")
    md_path = md_path or os.path.join(DOCS, "coverage.md")
    os.makedirs(os.path.dirname(json_path), exist_ok=True)
    with open(json_path, "w") as f:
        f.write(dumps_report(report))
    with open(md_path, "w") as f:
        f.write(render_markdown(report))


def dumps_report(report):
    """JSON with one record per line (readable diffs between sweeps)."""
    head = {k: v for k, v in report.items() if k != "records"}
    head["case_codes"] = CASE_CODES
    lines = ["{"]
    for k, v in head.items():
        lines.append(f"{json.dumps(k)}: {json.dumps(v, separators=(',', ':'))},")
    lines.append('"records": [')
    recs = report["records"]
    for i, r in enumerate(recs):
        lines.append(json.dumps(r, separators=(",", ":")) + ("," if i < len(recs) - 1 else ""))
    lines.append("]}")
    return "\n".join(lines) + "\n"


def _pct(n, d):
    return f"{100.0 * n / d:.1f}%" if d else "-"


def render_markdown(rep, devices=None):
    s = rep["summary"]
    L = []
    w = L.append
    w("# russet op coverage\n")
    w("Generated by `python -m russet coverage --full` (tools/conformance.py): PyTorch's "
      "OpInfo database (`op_db` and the `_foreach` OpInfos) run on russet and compared with "
      "PyTorch's CPU on the same inputs. Do not edit by hand.\n")
    if rep.get("partial"):
        w(f"- **partial**: the sweep stopped at its time limit after {rep['partial']['done']} of "
          f"{rep['partial']['of']} (op, dtype) tasks; the counts below are of those")
    w(f"- profile: `{rep['profile']}`; device: {rep['device']['name']} "
      f"({rep['device']['driver']})")
    w(f"- torch {rep['torch']}, python {rep['python']}; date {rep['date']}; "
      f"commit `{rep['commit']}`")
    lim = rep["limits"]
    w(f"- per (op, dtype): up to {lim['samples']} sample inputs + {lim['reference']} reference "
      f"inputs, {lim['grad_samples']} gradient samples (each differentiable dtype; forward AD and "
      f"second derivatives in float32), {VMAP_SAMPLES} vmap samples (float32), tensors up to "
      f"{lim['max_numel']} elements; sweep time {rep['seconds'] / 60:.1f} min\n")
    w("## Summary\n")
    w("Counted over (op, dtype) pairs; a pair's class is the worst of its variants "
      "(function, in-place, out=, gradient, forward-mode AD, second derivative, vmap, and the OpInfo's "
      "error inputs on the op's first dtype): `wrong`/`error` if any case failed, "
      "`pass-host` if any passing case used host execution, `pass-native` only if "
      "every case ran without host execution. Percentages are of tested pairs "
      "(all but skipped).\n")
    w("| class | (op, dtype) pairs | % of tested |")
    w("|---|---:|---:|")
    for c in CLASSES:
        w(f"| {c} | {s[c]} | {s.get(c + ' %', '-') if c != 'skipped' else '-'}"
          f"{'%' if c != 'skipped' else ''} |")
    w(f"| **total** | {s['op_dtype_pairs']} ({s['opinfos']} OpInfos, {s['cases']} cases) | |\n")
    w("By variant (pairs):\n")
    w("| variant | " + " | ".join(CLASSES) + " |")
    w("|---|" + "---:|" * len(CLASSES))
    for v in VARIANTS:
        d = s["by_variant"].get(v)
        if d:
            w(f"| {v} | " + " | ".join(str(d[c]) for c in CLASSES) + " |")
    w("")
    # family table
    w("## By family\n")
    w("Cells: `native/host/fail` (op, dtype) pairs, where fail = wrong + error + "
      "unsupported; empty where no OpInfo of the family supports the dtype on CPU. "
      "Skipped pairs are not counted. Differentiable dtypes' pairs also include the gradient "
      "variant, and float32 pairs forward AD, second derivatives and vmap.\n")
    recs = rep["records"]
    dts = [d for d in DTYPE_ORDER if any(r["dtype"] == d for r in recs)]
    w("| family | ops | " + " | ".join(dts) + " | all |")
    w("|---|---:|" + "---|" * (len(dts) + 1))
    for fam in FAMILIES + ["(unmapped)"]:
        fr = [r for r in recs if r["family"] == fam]
        if not fr and fam == "(unmapped)":
            continue
        cells = []
        for d in dts + [None]:
            rr = [r for r in fr if (d is None or r["dtype"] == d) and r["class"] != "skipped"]
            if not rr:
                cells.append("")
                continue
            n = sum(r["class"] == "pass-native" for r in rr)
            h = sum(r["class"] == "pass-host" for r in rr)
            x = len(rr) - n - h
            cells.append(f"{n}/{h}/{x}")
        w(f"| {fam} | {len({r['op'] for r in fr})} | " + " | ".join(cells) + " |")
    w("")
    # inventory
    inv = rep["inventory"]
    w("## Registration inventory\n")
    w("Read from the dispatcher (`torch._C._dispatch_has_kernel_for_dispatch_key`) over "
      f"all {inv['aten_ops']} aten operator overloads registered in this torch:\n")
    w("| | overloads |")
    w("|---|---:|")
    w(f"| with a russet (PrivateUse1) kernel | {inv['privateuse1_kernel']} |")
    w(f"| composite (CompositeImplicitAutograd / CompositeExplicitAutograd[NonFunctional]), "
      f"no russet kernel: decompose into other ops | {inv['composite_only']} |")
    w(f"| reach russet only through the host-execution fallback | {inv['fallback_only']} |\n")
    w("A PrivateUse1 kernel is not always native compute: some registered kernels "
      "route particular dtypes or cases to host execution (fp64 under the apple profile); "
      "the sweep's pass-native/pass-host split measures what actually ran.\n")
    # failures
    w("## Failing (op, variant, dtype)\n")
    known = {}
    try:
        known = load_known_failures()
    except Exception:  # noqa: BLE001
        pass
    fails = []
    for r in recs:
        for v, x in r["variants"].items():
            if x["class"] in FAILING + ("unsupported",):
                fails.append((r["family"], r["op"], v, r["dtype"], x["class"], x["detail"]))
    if not fails:
        w("None.\n")
    else:
        w(f"{len(fails)} failing (op, variant, dtype) triples; `known` marks entries in "
          "tests/conformance/known_failures.json.\n")
        w("| family | op | variant | dtype | class | known | first line of the error |")
        w("|---|---|---|---|---|---|---|")
        for fam, op, v, d, c, det in sorted(fails):
            det = det.replace("|", "\\|").replace("\n", " ")[:200]
            k = "yes" if (op, v, d) in known else ""
            w(f"| {fam} | `{op}` | {v} | {d} | {c} | {k} | {det} |")
        w("")
    # (a flaky entry may pass: CPU's result differs between runs or machines)
    stale = [k for k in known if not known[k].get("flaky") and not any(
        r["op"] == k[0] and r["dtype"] == k[2] and k[1] in r["variants"]
        and r["variants"][k[1]]["class"] in FAILING for r in recs)]
    if stale and not rep.get("partial"):
        w("Known failures that did not fail in this sweep (remove them from the list):\n")
        for k in sorted(stale):
            w(f"- `{k[0]}` {k[1]} {k[2]}")
        w("")
    # skipped reasons
    w("## Skipped pairs by reason\n")
    reasons = {}
    for r in recs:
        if r["class"] == "skipped":
            det = r["variants"].get("op", {}).get("detail", "") or "?"
            det = re.sub(r"\d+", "N", det.split(":")[0] if det.startswith("cpu raises") is False
                         else "cpu raises")
            reasons[det] = reasons.get(det, 0) + 1
    w("| reason | pairs |")
    w("|---|---:|")
    for k, v in sorted(reasons.items(), key=lambda kv: -kv[1]):
        w(f"| {k} | {v} |")
    w("")
    L.extend(render_devices(rep, devices if devices is not None else load_device_reports()))
    return "\n".join(L) + "\n"


# ---------------------------------------------------------------- other devices
# A sweep on another device (the H200 through the device tool) is kept as a
# compact report in docs/coverage-devices/: its summary and its failing
# pairs. docs/coverage.md then shows it next to the main (lavapipe) sweep.
DEVICE_REPORTS = os.path.join(DOCS, "coverage-devices")


def compact_report(rep, name):
    """The summary and failing (op, variant, dtype) of a full report."""
    fails = [{"op": r["op"], "dtype": r["dtype"], "variant": v, "class": x["class"],
              "detail": (x["detail"] or "").split("\n")[0][:300]}
             for r in rep["records"] for v, x in r["variants"].items()
             if x["class"] in FAILING + ("unsupported",)]
    keep = ("mode", "profile", "device", "torch", "python", "date", "commit", "seconds", "summary", "partial")
    out = {k: rep[k] for k in keep if k in rep}
    out["name"] = name
    out["failing"] = sorted(fails, key=lambda f: (f["op"], f["variant"], f["dtype"]))
    return out


def save_device_report(compact):
    os.makedirs(DEVICE_REPORTS, exist_ok=True)
    with open(os.path.join(DEVICE_REPORTS, compact["name"] + ".json"), "w") as f:
        json.dump(compact, f, indent=1)
        f.write("\n")


def load_device_reports():
    if not os.path.isdir(DEVICE_REPORTS):
        return []
    reps = []
    for fn in sorted(os.listdir(DEVICE_REPORTS)):
        if fn.endswith(".json"):
            with open(os.path.join(DEVICE_REPORTS, fn)) as f:
                reps.append(json.load(f))
    return reps


def render_devices(rep, devices):
    """The section that sets other devices' sweeps beside this one: their
    class counts, and the pairs that fail there but pass in this sweep."""
    if not devices:
        return []
    L = []
    w = L.append
    w("## Other devices\n")
    w("Full sweeps on other devices (`python -m russet coverage --full --device-report NAME`, "
      "kept in docs/coverage-devices/), beside this one. A sweep on another commit or torch "
      "says so.\n")
    w("| sweep | device | profile | torch | date | commit | pass-native | pass-host | wrong | error |")
    w("|---|---|---|---|---|---|---:|---:|---:|---:|")
    s = rep["summary"]
    w(f"| this report | {rep['device']['name']} | {rep['profile']} | {rep['torch']} | {rep['date']} | "
      f"`{rep['commit'][:10]}` | {s['pass-native']} | {s['pass-host']} | {s['wrong']} | {s['error']} |")
    for d in devices:
        t = d["summary"]
        part = f" (partial: {d['partial']['done']} of {d['partial']['of']} tasks)" if d.get("partial") else ""
        w(f"| {d['name']}{part} | {d['device']['name']} | {d['profile']} | {d['torch']} | {d['date']} | "
          f"`{d['commit'][:10]}` | {t['pass-native']} | {t['pass-host']} | {t['wrong']} | {t['error']} |")
    w("")
    here = {(r["op"], v, r["dtype"]): x["class"] for r in rep["records"] for v, x in r["variants"].items()}
    for d in devices:
        only = [f for f in d["failing"] if here.get((f["op"], f["variant"], f["dtype"])) not in
                FAILING + ("unsupported",)]
        w(f"### {d['name']}: failing there, not here ({len(only)})\n")
        if not only:
            w("None.\n")
            continue
        w("| op | variant | dtype | class there | class here | first line of the error |")
        w("|---|---|---|---|---|---|")
        for f in only:
            det = f["detail"].replace("|", "\\|")[:200]
            w(f"| `{f['op']}` | {f['variant']} | {f['dtype']} | {f['class']} | "
              f"{here.get((f['op'], f['variant'], f['dtype']), 'not swept')} | {det} |")
        w("")
    return L


def print_summary(rep, out=sys.stdout):
    s = rep["summary"]
    p = out.write
    p(f"russet coverage ({rep['mode']}), profile {rep['profile']}, {rep['device']['name']}, "
      f"torch {rep['torch']}, {rep['date']}, commit {rep['commit'][:12]}\n")
    if rep.get("partial"):
        p(f"  PARTIAL: stopped at the time limit after {rep['partial']['done']} of {rep['partial']['of']} tasks\n")
    p(f"  {s['op_dtype_pairs']} (op, dtype) pairs over {s['opinfos']} OpInfos, "
      f"{s['cases']} cases; {s['tested_pairs']} tested\n")
    for c in CLASSES:
        pct = f"  ({s[c + ' %']}% of tested)" if c != "skipped" else ""
        p(f"  {c:<14}{s[c]:>6}{pct}\n")
    inv = rep["inventory"]
    p(f"  aten overloads: {inv['privateuse1_kernel']} with a russet kernel, "
      f"{inv['composite_only']} composite, {inv['fallback_only']} host fallback only "
      f"(of {inv['aten_ops']})\n")
    p(f"  sweep time {rep['seconds'] / 60:.1f} min\n")


# ---------------------------------------------------------------- command line


def main(argv=None):
    import argparse

    ap = argparse.ArgumentParser(prog="python -m russet coverage")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--full", action="store_true",
                   help="sweep every OpInfo and dtype; writes docs/coverage.json and .md")
    g.add_argument("--quick", action="store_true", help="the quick subset (what CI runs)")
    ap.add_argument("--profile", default=os.environ.get("RUSSET_COVERAGE_PROFILE", "apple"),
                    choices=["apple", "native"])
    ap.add_argument("--jobs", type=int, default=1, help="worker processes in parallel")
    ap.add_argument("--ops", help="comma-separated OpInfo keys (name[.variant]) to sweep only")
    ap.add_argument("--json", help="with --full/--quick/--ops: write the report here")
    ap.add_argument("--md", help="with --full: write the markdown here")
    ap.add_argument("--time-limit", type=float, metavar="SECONDS",
                    help="stop after this long and report the tasks done (the report says it is partial)")
    ap.add_argument("--device-report", metavar="NAME",
                    help="with --full: also write the compact report docs/coverage-devices/NAME.json "
                         "(a sweep on another device, shown beside docs/coverage.md's)")
    ap.add_argument("--add-device-report", nargs=2, metavar=("NAME", "REPORT_JSON"),
                    help="keep a full report made elsewhere as docs/coverage-devices/NAME.json "
                         "and render docs/coverage.md again")
    args = ap.parse_args(argv)

    if args.add_device_report:
        name, path = args.add_device_report
        with open(path) as f:
            save_device_report(compact_report(json.load(f), name))
        with open(os.path.join(DOCS, "coverage.json")) as f:
            main_rep = json.load(f)
        with open(os.path.join(DOCS, "coverage.md"), "w") as f:
            f.write(render_markdown(main_rep))
        print(f"wrote {os.path.join(DEVICE_REPORTS, name + '.json')} and docs/coverage.md")
        return 0

    if not (args.full or args.quick or args.ops):
        path = os.path.join(DOCS, "coverage.json")
        if not os.path.exists(path):
            print("no coverage report yet: run `python -m russet coverage --full`")
            return 0
        with open(path) as f:
            rep = json.load(f)
        print_summary(rep)
        print(f"\nfull report: {os.path.join(DOCS, 'coverage.md')}")
        return 0

    tasks = None
    mode = "full" if args.full else "quick"
    if args.ops:
        want = set(args.ops.split(","))
        ops = load_ops()
        tasks = [(k, d) for k, o in ops if k in want for d in cpu_dtypes(o)]
        if args.quick:
            q = set(quick_tasks(ops))
            tasks = [t for t in tasks if t in q]
    rep = sweep(mode, args.profile, args.jobs, tasks, time_limit=args.time_limit)
    print()
    print_summary(rep)
    if args.full and not args.ops:
        if args.profile == "apple":
            write_report(rep, args.json, args.md)
            print(f"\nwrote {args.json or 'docs/coverage.json'} and {args.md or 'docs/coverage.md'}")
        else:
            jp = args.json or os.path.join(DOCS, f"coverage-{args.profile}.json")
            mp = args.md or os.path.join(DOCS, f"coverage-{args.profile}.md")
            write_report(rep, jp, mp)
            print(f"\nwrote {jp} and {mp}")
    elif args.json:
        with open(args.json, "w") as f:
            json.dump(rep, f)
    if args.device_report and args.full:
        save_device_report(compact_report(rep, args.device_report))
    known = load_known_failures() if os.path.exists(KNOWN_FAILURES) else {}
    new, fixed = check_against_known(rep["records"], known)
    for k, c, det in new:
        print(f"NEW FAILURE {k[0]} {k[1]} {k[2]}: {c}: {det}")
    for k, c in fixed:
        print(f"KNOWN FAILURE NOW {c}: {k[0]} {k[1]} {k[2]} (remove it from known_failures.json)")
    return 1 if (new or fixed) and not args.full else 0


if __name__ == "__main__":
    sys.exit(main())
