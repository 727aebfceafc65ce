// The dense kernels that nested tensors of layout torch.jagged call to pad
// their packed values and to pack them back: _jagged_to_padded_dense_forward
// and _padded_dense_to_jagged_forward (reductions and softmax over the
// ragged dim, to_padded_tensor, SDPA's math path). CPU's checks here, the
// rows moved by the C core (rs_jagged_copy_run) in one launch each way.
// CPU's kernels loop over the items with two syncs an item; here none but
// the one CUDA's also makes when total_L is not given (offsets[-1]). What
// CPU checks on the host (an item longer than the padded length, a final
// offset other than total_L) the kernel raises at the next sync.
#include "torch/adapter.h"
#include "torch/same_device.h"
#include "russet/jagged.h"

#include <ATen/ops/empty.h>
#include <ATen/ops/full.h>
#include <torch/library.h>

#include <optional>
#include <vector>

namespace russet {
namespace {

using at::Tensor;

// offsets[0] as the engine takes them: int64, contiguous, on values' device
Tensor the_offsets(const char* name, const Tensor& values, at::TensorList offsets) {
  TORCH_CHECK(offsets.size() == 1, name, "(): only a single jagged dim is supported for now");
  const Tensor& off = offsets[0];
  TORCH_CHECK(off.dim() == 1, name, "(): expected 1D offsets, but got offsets.dim() == ", off.dim());
  same_device(values, off);
  return off.to(at::kLong).contiguous();
}

void run(rs_jagged_direction dir, const Tensor& values, const Tensor& padded, const Tensor& offsets) {
  rs_jagged_copy c{};
  c.direction = dir;
  c.values = describe(values), c.padded = describe(padded), c.offsets = describe(offsets);
  check(rs_jagged_copy_run(current_stream_for(values), &c));
}

Tensor jagged_to_padded_dense(const Tensor& values, at::TensorList offsets, at::IntArrayRef max_lengths,
                              double padding_value) {
  static const char name[] = "_jagged_to_padded_dense_forward";
  Tensor off = the_offsets(name, values, offsets);
  TORCH_CHECK(max_lengths.size() == 1, name, "(): only a single jagged dim is supported for now");
  TORCH_CHECK(values.dim() >= 1, name, "(): expected values with 1 dim or more");
  std::vector<int64_t> shape{off.size(0) - 1, max_lengths[0]};
  shape.insert(shape.end(), values.sizes().begin() + 1, values.sizes().end());
  Tensor padded = at::full(shape, padding_value, values.options());
  if (padded.numel() && values.numel()) run(RS_JAGGED_TO_PADDED, values.contiguous(), padded, off);
  return padded;
}

Tensor padded_dense_to_jagged(const Tensor& dense, at::TensorList offsets, std::optional<int64_t> total_L) {
  static const char name[] = "_padded_dense_to_jagged_forward";
  Tensor off = the_offsets(name, dense, offsets);
  TORCH_CHECK(dense.dim() >= 2, name, "(): expected padded dim >= 2, but padded.dim() == ", dense.dim());
  TORCH_CHECK(dense.size(0) == off.size(0) - 1, name, "(): padded has ", dense.size(0), " items, offsets ",
              off.size(0), " entries (one more than the items)");
  // the final offset, read as CUDA's kernel reads it when total_L is not given
  const int64_t total = total_L.has_value() ? *total_L : off[-1].item<int64_t>();
  std::vector<int64_t> shape{total};
  shape.insert(shape.end(), dense.sizes().begin() + 2, dense.sizes().end());
  Tensor values = at::empty(shape, dense.options());
  run(RS_JAGGED_FROM_PADDED, values, dense.contiguous(), off);
  return values;
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("_jagged_to_padded_dense_forward", TORCH_FN(jagged_to_padded_dense));
  m.impl("_padded_dense_to_jagged_forward", TORCH_FN(padded_dense_to_jagged));
}

}  // namespace russet
