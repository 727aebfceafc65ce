// nn.EmbeddingBag / F.embedding_bag: the forward is the C core's
// embedding-bag engine (rs_embedding_bag_run: one kernel, CPU's order, no
// atomics); the backward is composed from the native gather (index_select)
// and the ordered index reductions (rs_index_reduce_run: no float atomics,
// deterministic): _embedding_bag, _embedding_bag_forward_only,
// _embedding_bag_backward (dense), _embedding_bag_dense_backward and
// _embedding_bag_per_sample_weights_backward. The four results (output,
// offset2bag, bag_size, max_indices) have CPU's shapes and values.
// Host execution: float64 weights without fp64 (the apple profile).
// sparse=True raises (no sparse tensors on this backend).
#include "torch/pointwise.h"
#include "torch/reduce.h"

#include <ATen/TensorUtils.h>
#include <ATen/ops/_embedding_bag_backward_ops.h>
#include <ATen/ops/_embedding_bag_dense_backward.h>
#include <ATen/ops/_embedding_bag_dense_backward_ops.h>
#include <ATen/ops/_embedding_bag_forward_only_ops.h>
#include <ATen/ops/_embedding_bag_ops.h>
#include <ATen/ops/_embedding_bag_per_sample_weights_backward_ops.h>
#include <ATen/ops/cumsum.h>
#include <ATen/ops/embedding_dense_backward.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/full.h>
#include <ATen/ops/index_select.h>
#include <ATen/ops/ones.h>
#include <ATen/ops/where.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>

#include <tuple>

namespace russet {
namespace {

using at::Tensor;
using Result4 = std::tuple<Tensor, Tensor, Tensor, Tensor>;

constexpr int64_t kSum = 0, kMean = 1, kMax = 2;

bool low_precision(const Tensor& t) {
  return t.scalar_type() == at::kHalf || t.scalar_type() == at::kBFloat16;
}

// Reduces src's slices (along dim 0) into self's slices `target[k]`; a
// target of -1 is skipped (padding_idx's positions, rows of empty bags).
// Per slice, in increasing position order (CPU's order): deterministic.
void reduce_into(rs_index_reduce_op op, const Tensor& self, const Tensor& target, const Tensor& src, bool shared,
                 bool include_self = true) {
  if (target.numel() == 0 || self.numel() == 0) return;
  rs_index_reduce p{};
  p.name = "embedding_bag";
  p.op = op;
  p.dim = 0;
  p.shared_index = shared;
  p.include_self = include_self;
  p.has_skip = 1;
  p.skip_index = -1;
  p.self = describe(self);
  p.src = describe(resolved(src));
  p.index = describe(target);
  check(rs_index_reduce_run(current_stream_for(self), &p));
}

// CPU's make_offset2bag: the bag of each of the L indices, from the bags'
// start offsets (ones added at the offsets, a cumulative sum, minus one).
// Offsets past L raise (device-side, at the next sync); positions before
// offsets[0] (CPU requires 0) get bag -1.
Tensor bag_ids(const Tensor& offsets, int64_t L) {
  Tensor starts = at::zeros({L + 1}, offsets.options());
  if (offsets.numel() > 0) starts.index_add_(0, offsets, at::ones({offsets.numel()}, offsets.options()));
  return at::cumsum(starts, 0, offsets.scalar_type()).narrow(0, 0, L).sub(1);
}

std::pair<Tensor, Tensor> promoted(const Tensor& indices, const Tensor& offsets) {
  auto t = at::promoteTypes(offsets.scalar_type(), indices.scalar_type());
  return {indices.scalar_type() == t ? indices : indices.to(t), offsets.scalar_type() == t ? offsets : offsets.to(t)};
}

void check_index_types(const Tensor& indices, const Tensor& offsets) {
  auto ia = at::TensorArg(indices, "indices", 1), oa = at::TensorArg(offsets, "offsets", 1);
  at::checkScalarTypes("embedding_bag", ia, {at::kLong, at::kInt});
  at::checkScalarTypes("embedding_bag", oa, {at::kLong, at::kInt});
  at::checkSameType("embedding_bag", ia, oa);
}

Result4 forward(const Tensor& weight, const Tensor& indices_, const Tensor& offsets_, int64_t mode,
                const std::optional<Tensor>& psw_opt, bool include_last_offset, int64_t padding_idx,
                bool requires_grad) {
  TORCH_CHECK(indices_.dim() == 1 || indices_.dim() == 2, "input has to be a 1D or 2D Tensor, but got Tensor of ",
              "dimension ", indices_.dim());
  if (indices_.dim() == 1)
    TORCH_CHECK(offsets_.dim() == 1, "offsets has to be a 1D Tensor, but got Tensor of dimension ", offsets_.dim());
  auto [indices, offsets] = promoted(indices_, offsets_);
  check_index_types(indices, offsets);
  auto wa = at::TensorArg(weight, "weight", 1);
  at::checkScalarTypes("embedding_bag", wa, {at::kHalf, at::kBFloat16, at::kFloat, at::kDouble});
  TORCH_CHECK(weight.dim() == 2, "embedding_bag: weight has to be a 2D Tensor, but got Tensor of dimension ",
              weight.dim());
  TORCH_CHECK(mode >= kSum && mode <= kMax, "embedding_bag: mode has to be 0 (sum), 1 (mean) or 2 (max), got ",
              mode);
  Tensor psw = psw_opt.has_value() && psw_opt->defined() ? *psw_opt : Tensor();
  if (psw.defined()) {
    TORCH_CHECK(mode == kSum, "embedding_bag: per_sample_weights only supported with mode='sum'");
    auto pa = at::TensorArg(psw, "per_sample_weights", 1);
    at::checkSameType("embedding_bag", wa, pa);
    TORCH_CHECK(psw.dim() == 1, "embedding_bag: per_sample_weights has to be 1D");
    TORCH_CHECK(psw.numel() == indices.numel(), "embedding_bag: per_sample_weights has to have one weight per index");
  }
  if (include_last_offset)
    TORCH_CHECK(offsets.size(0) >= 1, "include_last_offset: number of offset should be at least 1");
  host_if_no_fp64(weight);

  // CPU reads a 2-D input as its flat sequence with the given offsets
  Tensor idx = indices.reshape({-1});
  const int64_t L = idx.numel(), B = offsets.size(0) - (include_last_offset ? 1 : 0), D = weight.size(1);

  // the engine: output, and each bag's count (mean, max) and maxima's indices (max)
  Tensor output = at::empty({B, D}, weight.options());
  Tensor bag_size = mode == kSum ? Tensor() : at::empty({B}, offsets.options());
  Tensor max_indices = mode == kMax ? at::empty({B, D}, offsets.options()) : Tensor();
  rs_embedding_bag e{};
  e.mode = static_cast<rs_ebag_mode>(mode);
  e.weight = describe(weight);
  e.indices = describe(idx);
  e.offsets = describe(offsets);
  if (psw.defined()) e.per_sample_weights = describe(psw);
  e.padding_idx = padding_idx;
  e.out = describe(output);
  if (bag_size.defined()) e.bag_size = describe(bag_size);
  if (max_indices.defined()) e.max_indices = describe(max_indices);
  check(rs_embedding_bag_run(current_stream_for(weight), &e));

  // CPU's fast sum path leaves offset2bag empty (the backward rebuilds it)
  const bool fast_sum = mode == kSum && weight.scalar_type() != at::kDouble && weight.stride(1) == 1 &&
                        (!psw.defined() || psw.stride(0) == 1) && padding_idx < 0;
  Tensor offset2bag = fast_sum ? at::empty({0}, offsets.options())
                              : bag_ids(include_last_offset ? offsets.narrow(0, 0, B) : offsets, L);
  if (mode == kMean) {
    max_indices = bag_size.clone();
  } else if (mode == kSum) {  // CPU zeroes the sum mode's bag_size ("deterministic")
    bag_size = requires_grad ? at::zeros({B}, offsets.options()) : at::zeros(offsets.sizes(), offsets.options());
    max_indices = at::zeros(bag_size.sizes(), offsets.options());
  }
  return {output, offset2bag, bag_size, max_indices};
}

Result4 embedding_bag(const Tensor& weight, const Tensor& indices, const Tensor& offsets, bool scale_grad_by_freq,
                      int64_t mode, bool sparse, const std::optional<Tensor>& psw, bool include_last_offset,
                      int64_t padding_idx) {
  return native_or_host<at::_ops::_embedding_bag>(
      [&]() -> Result4 {
        return forward(weight, indices, offsets, mode, psw, include_last_offset, padding_idx, true);
      },
      weight, indices, offsets, scale_grad_by_freq, mode, sparse, psw, include_last_offset, padding_idx);
}

Result4 embedding_bag_forward_only(const Tensor& weight, const Tensor& indices, const Tensor& offsets,
                                   bool scale_grad_by_freq, int64_t mode, bool sparse,
                                   const std::optional<Tensor>& psw, bool include_last_offset, int64_t padding_idx) {
  return native_or_host<at::_ops::_embedding_bag_forward_only>(
      [&]() -> Result4 {
        return forward(weight, indices, offsets, mode, psw, include_last_offset, padding_idx, false);
      },
      weight, indices, offsets, scale_grad_by_freq, mode, sparse, psw, include_last_offset, padding_idx);
}

// offset2bag as the forward returned it, or rebuilt from all the offsets
// where CPU's fast sum path left it empty
Tensor offset2bag_of(const Tensor& indices, const Tensor& offsets, const Tensor& offset2bag) {
  if (indices.numel() != 0 && offset2bag.numel() == 0) return bag_ids(offsets, indices.numel());
  auto a = at::TensorArg(offset2bag, "offset2bag", 1);
  at::checkScalarTypes("embedding_bag", a, {at::kLong, at::kInt});
  return offset2bag;
}

Tensor embedding_bag_dense_backward(const Tensor& grad, const Tensor& indices, const Tensor& offset2bag,
                                    const Tensor& bag_size, const Tensor& max_indices, c10::SymInt num_weights,
                                    bool scale_grad_by_freq, int64_t mode, const std::optional<Tensor>& psw_opt,
                                    int64_t padding_idx) {
  return native_or_host<at::_ops::_embedding_bag_dense_backward>(
      [&]() -> Tensor {
        auto ga = at::TensorArg(grad, "grad_", 1);
        at::checkScalarTypes("embedding_bag", ga, {at::kHalf, at::kBFloat16, at::kFloat, at::kDouble});
        host_if_no_fp64(grad);
        const int64_t N = num_weights.expect_int(), D = grad.size(1);
        if (mode == kMax) {
          // each bag's gradient to the rows its maxima came from; empty bags
          // (bag_size 0, max_indices 0) send nothing
          Tensor gw = at::zeros({N, D}, grad.options());
          if (max_indices.numel() == 0 || D == 0) return gw;
          Tensor nonempty = bag_size.gt(0).unsqueeze(1);
          Tensor target = at::where(nonempty, max_indices, at::full({}, -1, max_indices.options())).to(at::kLong);
          reduce_into(RS_IR_SUM, gw, target, grad, /*shared*/ false);
          return gw;
        }
        TORCH_CHECK(mode == kSum || mode == kMean, "embedding_bag: unknown mode ", mode);
        Tensor psw = psw_opt.has_value() && psw_opt->defined() ? *psw_opt : Tensor();
        Tensor idx = indices.reshape({-1});
        if (idx.numel() == 0 || D == 0) return at::zeros({N, D}, grad.options());
        // each index's row: its bag's gradient times a scale (CPU's: its
        // weight (sum), / its index's count (scale_grad_by_freq), / its
        // bag's size (mean); rounded to the dtype, and the product too),
        // then the rows summed per index in position order, padding_idx
        // skipped (embedding_dense_backward)
        Tensor rows = at::index_select(grad, 0, offset2bag);
        const auto t = grad.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
        Tensor scale;
        if (psw.defined()) {
          TORCH_CHECK(mode == kSum, "embedding_bag: per_sample_weights only supported with mode='sum'");
          scale = psw.to(t);
        }
        if (scale_grad_by_freq) {
          Tensor count = at::zeros({N}, idx.options()).index_add_(0, idx, at::ones({idx.numel()}, idx.options()));
          Tensor c = at::index_select(count, 0, idx).to(t);
          scale = scale.defined() ? scale.div(c) : c.reciprocal();
        }
        if (mode == kMean) {
          Tensor n = at::index_select(bag_size, 0, offset2bag).clamp_min(1).to(t);
          scale = scale.defined() ? scale.div(n) : n.reciprocal();
        }
        if (scale.defined())
          rows = rows.to(t).mul(scale.to(grad.scalar_type()).to(t).unsqueeze(1)).to(grad.scalar_type());
        return at::embedding_dense_backward(rows, idx, N, padding_idx, /*scale_grad_by_freq*/ false);
      },
      grad, indices, offset2bag, bag_size, max_indices, num_weights.expect_int(), scale_grad_by_freq, mode, psw_opt,
      padding_idx);
}

Tensor embedding_bag_backward(const Tensor& grad, const Tensor& indices_, const Tensor& offsets_,
                              const Tensor& offset2bag, const Tensor& bag_size, const Tensor& max_indices,
                              c10::SymInt num_weights, bool scale_grad_by_freq, int64_t mode, bool sparse,
                              const std::optional<Tensor>& psw, int64_t padding_idx) {
  return native_or_host<at::_ops::_embedding_bag_backward>(
      [&]() -> Tensor {
        // CPU's result would be a sparse COO tensor, which this backend
        // cannot hold (no Sparse kernels): say so rather than fail inside
        TORCH_CHECK_NOT_IMPLEMENTED(!sparse, "embedding_bag(sparse=True): the weight's gradient would be a sparse ",
                                    "tensor, and russet has no sparse tensors yet; use sparse=False (a dense ",
                                    "gradient, computed natively)");
        auto [indices, offsets] = promoted(indices_, offsets_);
        check_index_types(indices, offsets);
        Tensor o2b = offset2bag_of(indices, offsets, offset2bag);
        return at::_embedding_bag_dense_backward_symint(grad, indices, o2b, bag_size, max_indices, num_weights,
                                                        scale_grad_by_freq, mode, psw, padding_idx);
      },
      grad, indices_, offsets_, offset2bag, bag_size, max_indices, num_weights.expect_int(), scale_grad_by_freq, mode,
      sparse, psw, padding_idx);
}

// d(output)/d(per_sample_weights[i]) = grad[bag(i)] . weight[indices[i]]
// (0 for padding_idx)
Tensor embedding_bag_per_sample_weights_backward(const Tensor& grad, const Tensor& weight, const Tensor& indices_,
                                                 const Tensor& offsets_, const Tensor& offset2bag, int64_t mode,
                                                 int64_t padding_idx) {
  return native_or_host<at::_ops::_embedding_bag_per_sample_weights_backward>(
      [&]() -> Tensor {
        TORCH_CHECK(mode == kSum, "embedding_bag_backward: per_sample_weights only supported for mode='sum'");
        host_if_no_fp64(grad);
        auto [indices, offsets] = promoted(indices_, offsets_);
        check_index_types(indices, offsets);
        Tensor idx = indices.reshape({-1});
        const int64_t L = idx.numel();
        if (L == 0) return at::zeros({0}, grad.options());
        Tensor o2b = offset2bag_of(idx, offsets, offset2bag);
        Tensor g = at::index_select(grad, 0, o2b), w = at::index_select(weight, 0, idx);
        // float16/bfloat16: the products and their sum in float, rounded once
        Tensor out = low_precision(grad) ? g.to(at::kFloat).mul(w.to(at::kFloat)).sum(1).to(grad.scalar_type())
                                         : g.mul(w).sum(1);
        if (padding_idx >= 0) out = at::where(idx.eq(padding_idx), at::zeros({}, out.options()), out);
        return out;
      },
      grad, weight, indices_, offsets_, offset2bag, mode, padding_idx);
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_embedding_bag", embedding_bag);
  m.impl("_embedding_bag_forward_only", embedding_bag_forward_only);
  m.impl("_embedding_bag_backward", embedding_bag_backward);
  m.impl("_embedding_bag_dense_backward", embedding_bag_dense_backward);
  m.impl("_embedding_bag_per_sample_weights_backward", embedding_bag_per_sample_weights_backward);
}

}  // namespace russet
