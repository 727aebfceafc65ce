// Fused scaled-dot-product attention: F.scaled_dot_product_attention (and
// so HF models and nn.MultiheadAttention's fast path) on the C core's
// attention engine (rs_attention_run, src/engine/attention.c), memory O(T).
//
// PyTorch asks a device which SDPA backend to use through
// _fused_sdp_choice_stub; for PrivateUse1 the answer `overrideable` routes
// the call to _scaled_dot_product_fused_attention_overrideable (and its
// backward through autograd's formula). This file answers `overrideable`
// where the engine computes the call, and `math` otherwise, which is
// ATen's composition (matmul, softmax), native too:
//   - dropout_p >= 1 (every probability dropped),
//   - a mask that needs its own gradient,
//   - a mask together with is_causal (math raises ATen's error),
//   - inputs that are not (B, H, L, E), dtypes other than float32, float16,
//     bfloat16 and (fp64 devices) float64, head dims over 256,
//   - tensors on different devices (math raises ATen's error),
//   - a user who turned the backend off (torch.nn.attention.sdpa_kernel).
#include <ATen/Context.h>
#include <ATen/SDPBackend.h>
#include <ATen/native/DispatchStub.h>
#include <ATen/native/transformers/attention.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/empty_strided.h>
#include <ATen/ops/full.h>
#include <ATen/ops/scalar_tensor.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "torch/pointwise.h"
#include "torch/reduce.h"
#include "torch/runtime/generator.h"
#include "russet/attention.h"
#include "russet/rng.h"

namespace russet {
namespace {

using at::Tensor;
using OptTensor = std::optional<Tensor>;

constexpr int64_t kMaxHeadDim = 256;  // the engine's (russet/attention.h, rs_attention)

bool engine_dtype(const Tensor& t) {
  auto d = t.scalar_type();
  if (d == at::kDouble) {
    try {
      host_if_no_fp64(t);
    } catch (const NeedsHost&) {
      return false;
    }
    return true;
  }
  return d == at::kFloat || d == at::kHalf || d == at::kBFloat16;
}

bool broadcasts_to(const Tensor& m, at::IntArrayRef shape) {
  if (m.dim() > 4) return false;
  for (int64_t i = 1; i <= m.dim(); ++i) {
    int64_t a = m.size(-i), b = shape[shape.size() - i];
    if (a != b && a != 1) return false;
  }
  return true;
}

int64_t choose_backend(const Tensor& q, const Tensor& k, const Tensor& v, const OptTensor& mask, double dropout_p,
                       bool is_causal, std::optional<double> scale, bool enable_gqa) {
  auto math = static_cast<int64_t>(at::SDPBackend::math);
  if (!at::globalContext().userEnabledOverrideableSDP()) return math;
  if (q.dim() != 4 || k.dim() != 4 || v.dim() != 4 || q.is_nested() || k.is_nested() || v.is_nested()) return math;
  // a tensor on another device: the math backend raises ATen's error
  if (k.device() != q.device() || v.device() != q.device() ||
      (mask.has_value() && mask->defined() && mask->device() != q.device()))
    return math;
  if (!(dropout_p < 1) || !engine_dtype(q) || k.scalar_type() != q.scalar_type() || v.scalar_type() != q.scalar_type())
    return math;
  if (q.size(0) != k.size(0) || k.size(0) != v.size(0) || k.size(1) != v.size(1) || k.size(2) != v.size(2) ||
      q.size(3) != k.size(3) || q.size(3) > kMaxHeadDim || v.size(3) > kMaxHeadDim)
    return math;
  if (q.size(1) != k.size(1) && !(enable_gqa && k.size(1) > 0 && q.size(1) % k.size(1) == 0)) return math;
  if (mask.has_value() && mask->defined()) {
    const Tensor& m = *mask;
    if (is_causal || m.requires_grad() || (m.scalar_type() != at::kBool && m.scalar_type() != q.scalar_type()) ||
        !broadcasts_to(m, {q.size(0), q.size(1), q.size(2), k.size(2)}))
      return math;
  }
  return static_cast<int64_t>(at::SDPBackend::overrideable);
}

// the additive (B, Hq, L, S) view of a mask (a boolean one becomes 0 / -inf)
Tensor additive_mask(const Tensor& mask, const Tensor& q, int64_t s) {
  Tensor m = mask;
  if (m.scalar_type() == at::kBool)
    m = at::where(m, at::zeros({}, q.options()), at::full({}, -INFINITY, q.options()));
  return resolved(m).expand({q.size(0), q.size(1), q.size(2), s});
}

// The engine's descriptor; `mask` (an additive_mask) may be undefined
rs_attention describe_attention(rs_attn_op op, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& out,
                                const Tensor& mask, const Tensor& lse, bool is_causal, std::optional<double> scale) {
  rs_attention a{};
  a.op = op;
  a.q = describe(q);
  a.k = describe(k);
  a.v = describe(v);
  a.out = describe(out);
  if (mask.defined()) a.mask = describe(mask);
  a.lse = lse.defined() ? address_of(lse) : 0;
  a.causal = is_causal;
  a.scale = scale.has_value() ? *scale : 1.0 / std::sqrt(static_cast<double>(q.size(3)));
  return a;
}

// A new tensor of these sizes whose dimensions lie in memory in the order
// of query's (torch/_meta_registrations.py, alloc_with_matching_layout):
// torch.compile plans the output's strides from the meta function, so the
// real output must have the same (a transposed (B, T, H, D) query gives a
// (B, T, H, D)-ordered output).
Tensor with_layout_of(const Tensor& query, c10::IntArrayRef sizes) {
  if (query.sizes() == sizes) return at::empty_like(query);
  std::array<int64_t, 4> order{0, 1, 2, 3};
  std::stable_sort(order.begin(), order.end(),
                   [&](int64_t a, int64_t b) { return query.stride(a) > query.stride(b); });
  std::array<int64_t, 4> strides{};
  int64_t stride = 1;
  for (int i = 3; i >= 0; i--) {
    strides[order[i]] = stride;
    stride *= sizes[order[i]];
  }
  return at::empty_strided(sizes, strides, query.options());
}

std::tuple<Tensor, Tensor, Tensor, Tensor, c10::SymInt, c10::SymInt, Tensor, Tensor, Tensor> attention_forward(
    const Tensor& query, const Tensor& key, const Tensor& value, const OptTensor& attn_bias, double dropout_p,
    bool is_causal, bool return_debug_mask, std::optional<double> scale) {
  TORCH_CHECK(dropout_p >= 0 && dropout_p < 1, "russet's fused attention: dropout_p must be in [0, 1), got ",
              dropout_p);
  TORCH_CHECK(!return_debug_mask, "russet's fused attention has no debug mask");
  TORCH_CHECK(query.dim() == 4 && key.dim() == 4 && value.dim() == 4,
              "russet's fused attention takes (batch, heads, rows, dims) tensors");
  int64_t b = query.size(0), hq = query.size(1), l = query.size(2), s = key.size(2);
  Tensor q = resolved(query), k = resolved(key), v = resolved(value);
  Tensor out = with_layout_of(query, {b, hq, l, value.size(3)});
  auto lse_type = query.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
  Tensor lse = at::empty({b, hq, l}, query.options().dtype(lse_type));
  Tensor m = attn_bias.has_value() && attn_bias->defined() ? additive_mask(*attn_bias, q, s) : Tensor();
  rs_attention a = describe_attention(RS_ATTN_FORWARD, q, k, v, out, m, lse, is_causal, scale);
  // dropout: the generator's (seed, offset) for the mask (russet/attention.h),
  // returned as 0-d CPU tensors (as CUDA's flash attention returns them) for
  // the backward, which replays the mask; without dropout, 0-d tensors of
  // no use, each its own (an op's outputs must not alias one another)
  Tensor seed_t, offset_t;
  if (dropout_p > 0) {
    const PhiloxDraw d = take_draw(std::nullopt, query.device().index(), rs_rng_offset_increment(b * hq * l * s));
    a.dropout = dropout_p, a.seed = d.seed, a.offset = d.offset;
    auto cpu_long = at::TensorOptions().dtype(at::kLong);
    seed_t = at::scalar_tensor(static_cast<int64_t>(d.seed), cpu_long);
    offset_t = at::scalar_tensor(static_cast<int64_t>(d.offset), cpu_long);
  } else {
    seed_t = at::empty({}, query.options().dtype(at::kLong));
    offset_t = at::empty({}, query.options().dtype(at::kLong));
  }
  check(rs_attention_run(current_stream_for(out), &a));
  // no cumulative sequence lengths and no debug mask (undefined), as the
  // meta function has them (torch.compile checks the real outputs against it)
  return {out, lse, Tensor(), Tensor(), c10::SymInt(l), c10::SymInt(s), seed_t, offset_t, Tensor()};
}

std::tuple<Tensor, Tensor, Tensor, Tensor> attention_backward(
    const Tensor& grad_out, const Tensor& query, const Tensor& key, const Tensor& value, const Tensor& attn_bias,
    std::array<bool, 4> grad_input_mask, const Tensor& out, const Tensor& logsumexp, const Tensor& cum_seq_q,
    const Tensor& cum_seq_k, c10::SymInt max_q, c10::SymInt max_k, double dropout_p, bool is_causal,
    const Tensor& philox_seed, const Tensor& philox_offset, std::optional<double> scale) {
  TORCH_CHECK(dropout_p >= 0 && dropout_p < 1, "russet's fused attention: dropout_p must be in [0, 1), got ",
              dropout_p);
  TORCH_CHECK_NOT_IMPLEMENTED(!grad_input_mask[3], "russet's fused attention computes no gradient for the mask: ",
                              "F.scaled_dot_product_attention picks the math backend when the mask needs one");
  Tensor q = resolved(query), k = resolved(key), v = resolved(value), go = resolved(grad_out);
  Tensor gq, gk, gv;
  // the gradients in their inputs' layouts, as the meta function says
  if (grad_input_mask[0]) gq = at::empty_like(query);
  if (grad_input_mask[1]) gk = at::empty_like(key);
  if (grad_input_mask[2]) gv = at::empty_like(value);
  Tensor m = attn_bias.defined() ? additive_mask(attn_bias, q, key.size(2)) : Tensor();
  // out and logsumexp: the fused backward (float16/bfloat16 on cooperative
  // matrices) reads them; the blocks recompute the probabilities from q and
  // k instead (docs/attention.md says why)
  Tensor o = resolved(out);
  const bool lse_ok = logsumexp.defined() && logsumexp.scalar_type() == at::kFloat && logsumexp.is_contiguous() &&
                      logsumexp.sizes() == c10::IntArrayRef{query.size(0), query.size(1), query.size(2)};
  rs_attention a = describe_attention(RS_ATTN_BACKWARD, q, k, v, o, m, lse_ok ? logsumexp : Tensor(), is_causal, scale);
  if (dropout_p > 0) {
    TORCH_CHECK(philox_seed.defined() && philox_offset.defined() && philox_seed.numel() == 1 &&
                    philox_offset.numel() == 1,
                "russet's fused attention backward: dropout needs the forward's philox_seed and philox_offset");
    // (0-d CPU tensors from the forward: no wait on the device)
    a.dropout = dropout_p;
    a.seed = static_cast<uint64_t>(philox_seed.item<int64_t>());
    a.offset = static_cast<uint64_t>(philox_offset.item<int64_t>());
  }
  a.grad_out = describe(go);
  if (gq.defined()) a.grad_q = describe(gq);
  if (gk.defined()) a.grad_k = describe(gk);
  if (gv.defined()) a.grad_v = describe(gv);
  check(rs_attention_run(current_stream_for(query), &a));
  return {gq, gk, gv, Tensor()};
}

// The keep mask (1 kept, 0 dropped) that the forward with this dropout_p,
// seed and offset applies to a (B, H, L, S) attention (russet/attention.h);
// PyTorch's own tests read CUDA's masks the same way.
Tensor& fill_dropout_mask(Tensor& self, double dropout_p, int64_t seed, int64_t offset) {
  TORCH_CHECK(self.dim() == 4, "_fill_mem_eff_dropout_mask_: expected a (batch, heads, rows, keys) tensor, got ",
              self.sizes());
  // kept where u < (float)(1 - p): rs_rng_sample's bernoulli on the same draws
  rs_tensor d = describe(self);
  check(rs_rng_sample(current_stream_for(self), RS_RNG_BERNOULLI, &d, nullptr, 1.0 - dropout_p, 0,
                      static_cast<uint64_t>(seed), static_cast<uint64_t>(offset)));
  return self;
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_fill_mem_eff_dropout_mask_", fill_dropout_mask);
  m.impl("_scaled_dot_product_fused_attention_overrideable", attention_forward);
  m.impl("_scaled_dot_product_fused_attention_overrideable_backward", attention_backward);
}

}  // namespace russet

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(_fused_sdp_choice_stub, &russet::choose_backend)
}  // namespace at::native
