// The inference fast paths of nn.MultiheadAttention and
// nn.TransformerEncoderLayer (eval mode, no autograd), which PyTorch takes
// on PrivateUse1 devices as on CPU and CUDA: _native_multi_head_attention
// and _transformer_encoder_layer_fwd. Without kernels here each call ran
// through host execution.
//
// - _transformer_encoder_layer_fwd is ATen's own device-generic function
//   (transformer.cpp: layer norms, the attention op below, the feed-forward
//   linears, residual adds), which calls russet's native ops.
// - _native_multi_head_attention is composed of native ops in the order of
//   ATen's CPU kernel (attention.cpp): the q, k and v projections, then
//   softmax(q k^T / sqrt(head dim)) v (the fused attention kernel when the
//   weights are not wanted), the output projection; the weights averaged
//   over the heads when asked. A mask (true: left out) is read as CPU's
//   _masked_softmax reads it (type 0: one (len, src_len) mask, 1: key
//   padding (batch, src_len), else broadcast as given); a row with every
//   key left out is NaN, as there.
#include "torch/pointwise.h"

#include <ATen/ops/_native_multi_head_attention_ops.h>
#include <ATen/ops/_transformer_encoder_layer_fwd_native.h>
#include <ATen/ops/linear.h>
#include <ATen/ops/matmul.h>
#include <ATen/ops/scaled_dot_product_attention.h>
#include <ATen/ops/softmax.h>
#include <torch/library.h>

#include <cmath>
#include <limits>

namespace russet {
namespace {

using at::Tensor;

std::tuple<Tensor, Tensor> native_multi_head_attention(const Tensor& query, const Tensor& key, const Tensor& value,
                                                       int64_t embed_dim, int64_t num_head, const Tensor& qkv_weight,
                                                       const Tensor& qkv_bias, const Tensor& proj_weight,
                                                       const Tensor& proj_bias, const std::optional<Tensor>& mask,
                                                       bool need_weights, bool average_attn_weights,
                                                       std::optional<int64_t> mask_type) {
  return native_or_host<at::_ops::_native_multi_head_attention>(
      [&]() -> std::tuple<Tensor, Tensor> {
        TORCH_CHECK(query.dim() == 3 && key.dim() == 3 && value.dim() == 3,
                    "_native_multi_head_attention: expected 3-d (batch, sequence, embedding) query, key and value");
        TORCH_CHECK(num_head > 0 && embed_dim % num_head == 0, "_native_multi_head_attention: embed_dim ", embed_dim,
                    " is not divisible by num_head ", num_head);
        TORCH_CHECK(query.size(2) == embed_dim && key.size(2) == embed_dim && value.size(2) == embed_dim,
                    "_native_multi_head_attention: the inputs' last dim must be embed_dim ", embed_dim);
        TORCH_CHECK(key.size(1) == value.size(1), "_native_multi_head_attention: key and value lengths differ");
        const int64_t batch = query.size(0), len = query.size(1), src_len = key.size(1);
        const int64_t head_dim = embed_dim / num_head;
        const auto w = qkv_weight.chunk(3, 0);
        const auto b = qkv_bias.chunk(3, 0);
        // (batch, length, embed) -> (batch, heads, length, head_dim)
        auto heads = [&](const Tensor& t, int64_t n) { return t.view({batch, n, num_head, head_dim}).transpose(1, 2); };
        Tensor q = heads(at::linear(query, w[0], b[0]), len);
        Tensor k = heads(at::linear(key, w[1], b[1]), src_len);
        Tensor v = heads(at::linear(value, w[2], b[2]), src_len);
        // the mask (true: left out) as CPU's _masked_softmax reads it: type
        // 0 (len, src_len) for every batch and head, 1 a key-padding
        // (batch, src_len), else broadcast as given; any dtype taken as bool
        Tensor masked, none_left;
        if (mask.has_value() && mask->defined()) {
          masked = mask->to(at::kBool);
          if (mask_type == 0) masked = masked.view({1, 1, len, src_len});
          else if (mask_type == 1) masked = masked.view({batch, 1, 1, src_len});
          masked = masked.expand({batch, num_head, len, src_len});
          // a row with every key left out: CPU's softmax there is NaN (the
          // fused kernel would give 0)
          none_left = masked.all(-1, /*keepdim=*/true);
        }
        Tensor o, weights;
        if (need_weights) {
          // as CPU: q scaled before q k^T
          Tensor s = at::matmul(q.div(std::sqrt(static_cast<double>(head_dim))), k.transpose(-2, -1));
          if (masked.defined()) s.masked_fill_(masked, -std::numeric_limits<double>::infinity());
          Tensor p = at::softmax(s, -1);
          o = at::matmul(p, v);
          weights = average_attn_weights ? p.sum(1).div_(num_head) : p;
        } else if (masked.defined()) {
          o = at::scaled_dot_product_attention(q, k, v, masked.logical_not())
                  .masked_fill_(none_left, std::numeric_limits<double>::quiet_NaN());
        } else {
          o = at::scaled_dot_product_attention(q, k, v);
        }
        Tensor out = at::linear(o.transpose(1, 2).reshape({batch, len, embed_dim}), proj_weight, proj_bias);
        return {out, weights};
      },
      query, key, value, embed_dim, num_head, qkv_weight, qkv_bias, proj_weight, proj_bias, mask, need_weights,
      average_attn_weights, mask_type);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_native_multi_head_attention", native_multi_head_attention);
  m.impl("_transformer_encoder_layer_fwd", TORCH_FN(at::native::transformer_encoder_layer_forward));
}

}  // namespace russet
