// nn.EmbeddingBag / F.embedding_bag on the C core's embedding-bag engine
// (russet/embedding_bag.h: CPU's order, no atomics, deterministic):
// _embedding_bag and _embedding_bag_forward_only (rs_embedding_bag_run),
// _embedding_bag_backward (dense) and _embedding_bag_dense_backward
// (rs_embedding_bag_backward_run), _embedding_bag_per_sample_weights_backward
// (rs_embedding_bag_psw_backward_run). The four results (output, offset2bag,
// bag_size, max_indices) have CPU's shapes and values.
// Host execution: float64 weights without fp64 (the apple profile).
// sparse=True gives ATen's sparse COO gradient (docs/sparse.md).
#include "torch/pointwise.h"
#include "russet/embedding_bag.h"

#include <ATen/TensorUtils.h>
#include <ATen/ops/_embedding_bag_backward_ops.h>
#include <ATen/ops/_embedding_bag_dense_backward_ops.h>
#include <ATen/ops/_embedding_bag_forward_only_ops.h>
#include <ATen/ops/_embedding_bag_sparse_backward.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/searchsorted.h>
#include <ATen/ops/_embedding_bag_ops.h>
#include <ATen/ops/_embedding_bag_per_sample_weights_backward_ops.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/zeros.h>
#include <torch/library.h>

#include <tuple>

namespace russet {
namespace {

using at::Tensor;
using Result4 = std::tuple<Tensor, Tensor, Tensor, Tensor>;

constexpr int64_t kSum = 0, kMean = 1, kMax = 2;

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

  // CPU's fast sum path leaves offset2bag empty (the backward finds the
  // bags from the offsets)
  const bool fast_sum = mode == kSum && weight.scalar_type() != at::kDouble && weight.stride(1) == 1 &&
                        (!psw.defined() || psw.stride(0) == 1) && padding_idx < 0;
  Tensor offset2bag = at::empty({fast_sum ? 0 : L}, offsets.options());
  // the engine: output, each bag's count (mean, max), maxima's indices
  // (max) and each position's bag
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
  if (!fast_sum) e.offset2bag = describe(offset2bag);
  check(rs_embedding_bag_run(current_stream_for(weight), &e));
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

// The index tensors in indices' dtype (the engine takes one index dtype)
Tensor as_index(const Tensor& t, const char* name, const Tensor& indices) {
  if (!t.defined() || t.scalar_type() == indices.scalar_type()) return t;
  auto a = at::TensorArg(t, name, 1);
  at::checkScalarTypes("embedding_bag", a, {at::kLong, at::kInt});
  return t.to(indices.scalar_type());
}

// The engine's gradient descriptor: each position's bag from offset2bag,
// or (CPU's fast sum path left it empty) from the offsets
rs_embedding_bag_grad grad_of(int64_t mode, const Tensor& grad, const Tensor& idx, const Tensor& offset2bag,
                              const Tensor& offsets, int64_t padding_idx) {
  rs_embedding_bag_grad g{};
  g.mode = static_cast<rs_ebag_mode>(mode);
  g.grad = describe(grad);
  g.indices = describe(idx);
  if (offset2bag.numel() == 0 && idx.numel() != 0) {
    TORCH_CHECK(offsets.defined(), "embedding_bag_backward: offset2bag is empty and there are no offsets");
    g.offsets = describe(as_index(offsets, "offsets", idx));
  } else {
    g.offset2bag = describe(as_index(offset2bag, "offset2bag", idx));
  }
  g.padding_idx = padding_idx;
  return g;
}

// the weight's gradient (N, D): the C core's embedding-bag backward
Tensor dense_backward(const Tensor& grad, const Tensor& indices, const Tensor& offset2bag, const Tensor& offsets,
                      const Tensor& bag_size, const Tensor& max_indices, int64_t N, bool scale_grad_by_freq,
                      int64_t mode, const std::optional<Tensor>& psw_opt, int64_t padding_idx) {
  auto ga = at::TensorArg(grad, "grad_", 1);
  at::checkScalarTypes("embedding_bag", ga, {at::kHalf, at::kBFloat16, at::kFloat, at::kDouble});
  TORCH_CHECK(mode >= kSum && mode <= kMax, "embedding_bag: unknown mode ", mode);
  host_if_no_fp64(grad);
  Tensor idx = indices.reshape({-1});
  Tensor gw = at::empty({N, grad.size(1)}, grad.options());
  rs_embedding_bag_grad g = grad_of(mode, grad, idx, offset2bag, offsets, padding_idx);
  Tensor psw = psw_opt.has_value() && psw_opt->defined() ? *psw_opt : Tensor();
  if (psw.defined()) {
    TORCH_CHECK(mode == kSum, "embedding_bag: per_sample_weights only supported with mode='sum'");
    g.per_sample_weights = describe(psw.scalar_type() == grad.scalar_type() ? psw : psw.to(grad.scalar_type()));
  }
  Tensor bs = as_index(bag_size, "bag_size", idx), mi = as_index(max_indices, "max_indices", idx);
  if (mode != kSum) g.bag_size = describe(bs);
  if (mode == kMax) g.max_indices = describe(mi);
  g.scale_grad_by_freq = scale_grad_by_freq;
  g.out = describe(gw);
  check(rs_embedding_bag_backward_run(current_stream_for(grad), &g));
  return gw;
}

Tensor embedding_bag_dense_backward(const Tensor& grad, const Tensor& indices, const Tensor& offset2bag,
                                    const Tensor& bag_size, const Tensor& max_indices, c10::SymInt num_weights,
                                    bool scale_grad_by_freq, int64_t mode, const std::optional<Tensor>& psw_opt,
                                    int64_t padding_idx) {
  return native_or_host<at::_ops::_embedding_bag_dense_backward>(
      [&]() -> Tensor {
        return dense_backward(grad, indices, offset2bag, Tensor(), bag_size, max_indices, num_weights.expect_int(),
                              scale_grad_by_freq, mode, psw_opt, padding_idx);
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
        // sparse=True: ATen's composition (the rows' gradients gathered by
        // bag, a sparse COO gradient: src/torch/sparse/), as on CPU and CUDA
        if (sparse) {
          // each position's bag, from the offsets where CPU's fast sum path
          // left offset2bag empty: the last offset at or before it
          Tensor o2b = offset2bag;
          if (o2b.numel() == 0 && indices_.numel() != 0)
            o2b = at::searchsorted(offsets_.to(at::kLong), at::arange(indices_.numel(), offsets_.options().dtype(at::kLong)),
                                   false, true).sub_(1);
          return at::_embedding_bag_sparse_backward_symint(grad, indices_, offsets_, o2b, bag_size, num_weights,
                                                           scale_grad_by_freq, mode, psw, padding_idx);
        }
        auto [indices, offsets] = promoted(indices_, offsets_);
        check_index_types(indices, offsets);
        return dense_backward(grad, indices, offset2bag, offsets, bag_size, max_indices, num_weights.expect_int(),
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
        auto wa = at::TensorArg(weight, "weight", 1), ga = at::TensorArg(grad, "grad", 1);
        at::checkSameType("embedding_bag", wa, ga);
        Tensor out = at::empty({idx.numel()}, grad.options());
        rs_embedding_bag_grad g = grad_of(mode, grad, idx, offset2bag, offsets, padding_idx);
        g.weight = describe(weight);
        g.out = describe(out);
        check(rs_embedding_bag_psw_backward_run(current_stream_for(grad), &g));
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
