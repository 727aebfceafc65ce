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
//   - a user who turned the backend off (torch.nn.attention.sdpa_kernel),
//   - inputs of a torch.func transform (vmap, grad, jvp).
#include <ATen/Context.h>
#include <ATen/SDPBackend.h>
#include <ATen/native/DispatchStub.h>
#include <ATen/native/transformers/attention.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/empty_like.h>
#include <ATen/ops/empty_strided.h>
#include <ATen/ops/_scaled_dot_product_flash_attention_for_cpu_backward_ops.h>
#include <ATen/ops/_scaled_dot_product_flash_attention_for_cpu_ops.h>
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

// A tensor of a torch.func transform (vmap, grad, jvp). The fused op has no
// batching rule (functorch has them for CUDA's kernels only) and no forward
// derivative; math's ops have both. Under vmap(grad(f)) the grad wrapper
// hides the batched tensor from its key set, so every wrapper counts.
bool transformed(const Tensor& t) {
  const auto keys = t.key_set();
  return keys.has(c10::DispatchKey::FuncTorchBatched) || keys.has(c10::DispatchKey::FuncTorchGradWrapper);
}

// q (B, H, L, E), k (B, Hk, S, E), v (B, Hk, S, Ev) as the engine takes
// them: head dims up to kMaxHeadDim, H == Hk or (gqa) a multiple of it
bool engine_shapes(const Tensor& q, const Tensor& k, const Tensor& v, bool gqa) {
  if (q.dim() != 4 || k.dim() != 4 || v.dim() != 4) return false;
  if (q.size(0) != k.size(0) || k.size(0) != v.size(0) || k.size(1) != v.size(1) || k.size(2) != v.size(2) ||
      q.size(3) != k.size(3) || q.size(3) > kMaxHeadDim || v.size(3) > kMaxHeadDim)
    return false;
  return q.size(1) == k.size(1) || (gqa && k.size(1) > 0 && q.size(1) % k.size(1) == 0);
}

int64_t choose_backend(const Tensor& q, const Tensor& k, const Tensor& v, const OptTensor& mask, double dropout_p,
                       bool is_causal, std::optional<double> scale, bool enable_gqa) {
  auto math = static_cast<int64_t>(at::SDPBackend::math);
  if (!at::globalContext().userEnabledOverrideableSDP()) return math;
  if (q.dim() != 4 || k.dim() != 4 || v.dim() != 4 || q.is_nested() || k.is_nested() || v.is_nested()) return math;
  if (transformed(q) || transformed(k) || transformed(v)) return math;
  // a tensor on another device: the math backend raises ATen's error
  if (k.device() != q.device() || v.device() != q.device() ||
      (mask.has_value() && mask->defined() && mask->device() != q.device()))
    return math;
  if (!(dropout_p < 1) || !engine_dtype(q) || k.scalar_type() != q.scalar_type() || v.scalar_type() != q.scalar_type())
    return math;
  if (!engine_shapes(q, k, v, enable_gqa)) return math;
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

// The engine's backward into the defined ones of gq, gk, gv (any strides);
// `mask` is the caller's (undefined: none)
void backward_into(const Tensor& grad_out, const Tensor& query, const Tensor& key, const Tensor& value,
                   const Tensor& mask, const Tensor& out, const Tensor& logsumexp, bool is_causal,
                   std::optional<double> scale, double dropout_p, uint64_t seed, uint64_t offset, const Tensor& gq,
                   const Tensor& gk, const Tensor& gv) {
  Tensor q = resolved(query), k = resolved(key), v = resolved(value), go = resolved(grad_out);
  Tensor m = mask.defined() ? additive_mask(mask, q, key.size(2)) : Tensor();
  // out and logsumexp: the fused backward (float16/bfloat16 on cooperative
  // matrices) reads them; the blocks recompute the probabilities from q and
  // k instead (docs/attention.md says why)
  Tensor o = resolved(out);
  const bool lse_ok = logsumexp.defined() && logsumexp.scalar_type() == at::kFloat && logsumexp.is_contiguous() &&
                      logsumexp.sizes() == c10::IntArrayRef{query.size(0), query.size(1), query.size(2)};
  rs_attention a = describe_attention(RS_ATTN_BACKWARD, q, k, v, o, m, lse_ok ? logsumexp : Tensor(), is_causal, scale);
  a.dropout = dropout_p, a.seed = seed, a.offset = offset;
  a.grad_out = describe(go);
  if (gq.defined()) a.grad_q = describe(gq);
  if (gk.defined()) a.grad_k = describe(gk);
  if (gv.defined()) a.grad_v = describe(gv);
  check(rs_attention_run(current_stream_for(query), &a));
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
  Tensor gq, gk, gv;
  // the gradients in their inputs' layouts, as the meta function says
  if (grad_input_mask[0]) gq = at::empty_like(query);
  if (grad_input_mask[1]) gk = at::empty_like(key);
  if (grad_input_mask[2]) gv = at::empty_like(value);
  uint64_t seed = 0, offset = 0;
  if (dropout_p > 0) {
    TORCH_CHECK(philox_seed.defined() && philox_offset.defined() && philox_seed.numel() == 1 &&
                    philox_offset.numel() == 1,
                "russet's fused attention backward: dropout needs the forward's philox_seed and philox_offset");
    // (0-d CPU tensors from the forward: no wait on the device)
    seed = static_cast<uint64_t>(philox_seed.item<int64_t>());
    offset = static_cast<uint64_t>(philox_offset.item<int64_t>());
  }
  backward_into(grad_out, query, key, value, attn_bias, out, logsumexp, is_causal, scale, dropout_p, seed, offset, gq,
                gk, gv);
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


// _scaled_dot_product_flash_attention_for_cpu and its backward: CPU's flash
// kernel by name (OpInfo calls it from torch 2.15; so do programs traced on
// CPU). The engine computes them, with CPU's output layouts: the output
// like query, logsumexp (B, L, H)-ordered, the gradients (B, L, H, E)-ordered.
// What the engine does not take runs through host execution: dropout (CPU
// refuses it), a mask of another dtype than the query's, unequal head
// sizes, float64 under apple. The host gets inputs whose last dimension is
// contiguous: CPU's kernel assumes it without checking, and a channels-last
// query gives uninitialized values on CPU (torch 2.13 and 2.15).
Tensor last_dim_dense(const Tensor& t) { return t.defined() && t.dim() > 0 && t.stride(-1) != 1 ? t.contiguous() : t; }

OptTensor last_dim_dense(const OptTensor& t) {
  return t.has_value() ? OptTensor(last_dim_dense(*t)) : t;
}

// Throws NeedsHost for what the engine does not take; true when there is
// nothing to compute (CPU's kernel divides by zero on no rows or no keys:
// SIGFPE, torch 2.13 and 2.15), which russet answers without the host.
bool flash_for_cpu_or_host(const Tensor& q, const Tensor& k, const Tensor& v, double dropout_p,
                           const OptTensor& mask) {
  // (CPU's kernel takes grouped heads, and refuses unequal head dims itself)
  const bool shapes = engine_shapes(q, k, v, /*gqa=*/true) && k.size(3) == v.size(3);
  const bool devices = k.device() == q.device() && v.device() == q.device() &&
                       (!mask.has_value() || mask->device() == q.device());
  if (!shapes || !devices || dropout_p != 0 || k.scalar_type() != q.scalar_type() ||
      v.scalar_type() != q.scalar_type())
    throw NeedsHost{};
  if (mask.has_value() && (mask->scalar_type() != q.scalar_type() ||
                           !broadcasts_to(*mask, {q.size(0), q.size(1), q.size(2), k.size(2)})))
    throw NeedsHost{};
  if (q.numel() == 0 || k.numel() == 0) return true;
  if (!engine_dtype(q)) {
    host_if_no_fp64(q);  // the fp64 reason where that is why
    throw NeedsHost{};
  }
  return false;
}

// A mask argument as the engine takes it: autograd's backward passes an
// optional that holds an undefined tensor for "no mask"
OptTensor given(const OptTensor& mask) { return mask.has_value() && mask->defined() ? mask : std::nullopt; }

std::tuple<Tensor, Tensor> flash_for_cpu(const Tensor& query, const Tensor& key, const Tensor& value, double dropout_p,
                                         bool is_causal, const OptTensor& mask_arg, std::optional<double> scale) {
  const OptTensor attn_mask = given(mask_arg);
  auto r = native_or_host<at::_ops::_scaled_dot_product_flash_attention_for_cpu>(
      [&]() -> std::tuple<Tensor, Tensor> {
        const bool empty = flash_for_cpu_or_host(query, key, value, dropout_p, attn_mask);
        int64_t b = query.size(0), h = query.size(1), l = query.size(2);
        Tensor out = with_layout_of(query, query.sizes());
        auto lse_type = query.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
        Tensor lse_blh = at::empty_strided({b, h, l}, {h * l, 1, h}, query.options().dtype(lse_type));
        if (empty)  // no keys: an output of zeros and a logsumexp of -inf (math's)
          return {out.zero_(), lse_blh.fill_(-INFINITY)};
        Tensor q = resolved(query), k = resolved(key), v = resolved(value);
        Tensor lse = at::empty({b, h, l}, lse_blh.options());
        Tensor m = attn_mask.has_value() ? additive_mask(*attn_mask, q, key.size(2)) : Tensor();
        rs_attention a = describe_attention(RS_ATTN_FORWARD, q, k, v, out, m, lse, is_causal, scale);
        check(rs_attention_run(current_stream_for(out), &a));
        lse_blh.copy_(lse);
        return {out, lse_blh};
      },
      last_dim_dense(query), last_dim_dense(key), last_dim_dense(value), dropout_p, is_causal,
      last_dim_dense(attn_mask), scale);
  // the host's output follows its dense query: CPU's follows the caller's
  Tensor& out = std::get<0>(r);
  if (out.strides() != query.strides() && query.stride(-1) != 1) {
    Tensor laid = with_layout_of(query, query.sizes());
    out = laid.copy_(out);
  }
  return r;
}

// (B, H, L, E) sizes stored (B, L, H, E): CPU's gradients
Tensor blhe_like(const Tensor& t) {
  return at::empty({t.size(0), t.size(2), t.size(1), t.size(3)}, t.options()).transpose(1, 2);
}

std::tuple<Tensor, Tensor, Tensor> flash_for_cpu_backward(const Tensor& grad_out, const Tensor& query,
                                                          const Tensor& key, const Tensor& value, const Tensor& out,
                                                          const Tensor& logsumexp, double dropout_p, bool is_causal,
                                                          const OptTensor& mask_arg, std::optional<double> scale) {
  const OptTensor attn_mask = given(mask_arg);
  return native_or_host<at::_ops::_scaled_dot_product_flash_attention_for_cpu_backward>(
      [&]() -> std::tuple<Tensor, Tensor, Tensor> {
        const bool empty = flash_for_cpu_or_host(query, key, value, dropout_p, attn_mask);
        if (grad_out.sizes() != out.sizes() || out.sizes() != query.sizes() || grad_out.device() != query.device() ||
            out.device() != query.device() || grad_out.scalar_type() != query.scalar_type())
          throw NeedsHost{};
        Tensor gq = blhe_like(query), gk = blhe_like(key), gv = blhe_like(value);
        if (empty) return {gq.zero_(), gk.zero_(), gv.zero_()};
        // the fused backward reads a (B, H, L)-contiguous float logsumexp
        Tensor lse = logsumexp.scalar_type() == at::kFloat ? logsumexp.contiguous() : Tensor();
        backward_into(grad_out, query, key, value, attn_mask.has_value() ? *attn_mask : Tensor(), out, lse,
                      is_causal, scale, 0, 0, 0, gq, gk, gv);
        return {gq, gk, gv};
      },
      last_dim_dense(grad_out), last_dim_dense(query), last_dim_dense(key), last_dim_dense(value),
      last_dim_dense(out), logsumexp, dropout_p, is_causal, last_dim_dense(attn_mask), scale);
}
}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_fill_mem_eff_dropout_mask_", fill_dropout_mask);
  m.impl("_scaled_dot_product_fused_attention_overrideable", attention_forward);
  m.impl("_scaled_dot_product_fused_attention_overrideable_backward", attention_backward);
  m.impl("_scaled_dot_product_flash_attention_for_cpu", flash_for_cpu);
  m.impl("_scaled_dot_product_flash_attention_for_cpu_backward", flash_for_cpu_backward);
}

}  // namespace russet

namespace at::native {
REGISTER_PRIVATEUSE1_DISPATCH(_fused_sdp_choice_stub, &russet::choose_backend)
}  // namespace at::native
