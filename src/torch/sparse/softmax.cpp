// torch.sparse.softmax and torch.sparse.log_softmax on COO tensors, and
// their gradients, on the sparse engine (rs_sparse_softmax_run; CPU's
// semantics: a pool is the entries that share every sparse index but dim's,
// entries absent from it count as -inf). Over a dense dim it is the dense
// softmax of the values. float64 and other dtypes run on the host, counted.
#include <ATen/native/CPUFallback.h>
#include <ATen/ops/_log_softmax.h>
#include <ATen/ops/_log_softmax_backward_data.h>
#include <ATen/ops/_softmax.h>
#include <ATen/ops/_softmax_backward_data.h>
#include <ATen/ops/_sparse_coo_tensor_unsafe.h>
#include <ATen/ops/_sparse_log_softmax_backward_data_ops.h>
#include <ATen/ops/_sparse_log_softmax_ops.h>
#include <ATen/ops/_sparse_softmax_backward_data_ops.h>
#include <ATen/ops/_sparse_softmax_ops.h>
#include <ATen/ops/empty.h>
#include <c10/core/WrapDimMinimal.h>
#include <torch/library.h>

#include <vector>

#include "torch/adapter.h"
#include "torch/sparse/sparse.h"
#include "russet/sparse.h"

namespace russet {
namespace {

using at::Tensor;

bool softmax_dtype(const Tensor& t) {
  const auto dt = t.scalar_type();
  return dt == at::kFloat || dt == at::kHalf || dt == at::kBFloat16;
}

// a sparse result with t's indices and these values, coalesced as t is
Tensor like(const Tensor& t, const Tensor& values) {
  Tensor out = at::_sparse_coo_tensor_unsafe(t._indices().clone(), values, t.sizes(),
                                             values.options().layout(at::kSparse));
  out._coalesced_(t.is_coalesced());
  return out;
}

// values as (nnz, D): the dense dims flattened (an entry's elements are one row)
Tensor rows_of(const Tensor& values) { return values.reshape({values.size(0), -1}); }

// the engine over a sparse dim; values (and grad) aligned with `pattern`'s entries
Tensor pools(const Tensor& pattern, const Tensor& values, const Tensor* grad, int64_t dim, bool log) {
  const Tensor v = rows_of(values.contiguous());
  const Tensor g = grad ? rows_of(grad->contiguous()) : Tensor();
  Tensor out = at::empty(v.sizes(), v.options());
  rs_sparse_softmax p{};
  p.indices = describe(pattern._indices());
  p.values = describe(v);
  if (grad) p.grad = describe(g);
  p.out = describe(out);
  const std::vector<int64_t> sizes(pattern.sizes().begin(), pattern.sizes().end());
  p.sizes = sizes.data();
  p.dim = static_cast<int>(dim);
  p.log = log;
  p.backward = grad != nullptr;
  check(rs_sparse_softmax_run(current_stream_for(pattern), &p));
  return out.view(values.sizes());
}

template <bool Log>
Tensor forward(const Tensor& input_, int64_t dim_, bool half_to_float) {
  TORCH_CHECK(!half_to_float, "softmax with half to float conversion is not supported on ", input_.device().str());
  using Op = std::conditional_t<Log, at::_ops::_sparse_log_softmax, at::_ops::_sparse_softmax>;
  if (!softmax_dtype(input_))
    return at::native::call_fallback_fn<&sparse_host_fallback, Op>::call(input_, dim_, half_to_float);
  const Tensor input = input_.coalesce();
  const int64_t dim = c10::maybe_wrap_dim(dim_, input.dim());
  const Tensor values = input._values();
  if (input._nnz() == 0 || values.numel() == 0) return like(input, values.clone());
  if (dim >= input.sparse_dim()) {  // a dense dim: the values' own softmax
    const int64_t vdim = dim - input.sparse_dim() + 1;
    return like(input, Log ? at::_log_softmax(values, vdim, false) : at::_softmax(values, vdim, false));
  }
  return like(input, pools(input, values, nullptr, dim, Log));
}

template <bool Log>
Tensor backward(const Tensor& grad_, const Tensor& output_, int64_t dim_, const Tensor& input) {
  using Op = std::conditional_t<Log, at::_ops::_sparse_log_softmax_backward_data,
                                at::_ops::_sparse_softmax_backward_data>;
  if (!softmax_dtype(output_) || grad_.scalar_type() != output_.scalar_type() || !grad_.is_sparse() ||
      !output_.is_sparse() || !grad_.sizes().equals(output_.sizes()) || grad_.sparse_dim() != output_.sparse_dim())
    return at::native::call_fallback_fn<&sparse_host_fallback, Op>::call(grad_, output_, dim_, input);
  const Tensor output = output_.coalesce();
  const int64_t dim = c10::maybe_wrap_dim(dim_, output.dim());
  const Tensor y = output._values();
  const Tensor g = values_at(grad_, output);  // the gradient at the output's entries (CPU's lookup)
  if (output._nnz() == 0 || y.numel() == 0) return like(output, y.clone());
  if (dim >= output.sparse_dim()) {
    const int64_t vdim = dim - output.sparse_dim() + 1;
    return like(output, Log ? at::_log_softmax_backward_data(g, y, vdim, y.scalar_type())
                            : at::_softmax_backward_data(g, y, vdim, y.scalar_type()));
  }
  return like(output, pools(output, y, &g, dim, Log));
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, SparsePrivateUse1, m) {
  m.impl("_sparse_softmax", TORCH_FN(forward<false>));
  m.impl("_sparse_log_softmax", TORCH_FN(forward<true>));
  m.impl("_sparse_softmax_backward_data", TORCH_FN(backward<false>));
  m.impl("_sparse_log_softmax_backward_data", TORCH_FN(backward<true>));
}

}  // namespace russet
