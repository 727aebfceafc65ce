// Helpers of the scan, sort and select adapters (ops/scan.cpp, ops/sort.cpp,
// ops/select.cpp): the C core works along the last dim of contiguous
// tensors ("rows"); these move a dim last and back, and run structured
// meta functions with several outputs.
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/movedim.h>

#include <array>

#include "torch/pointwise.h"

namespace russet {

// `t` with `dim` moved last, contiguous (a 0-dim tensor becomes [1]); the
// move is a native copy when needed.
inline at::Tensor rows_of(const at::Tensor& t, int64_t dim) {
  if (t.dim() == 0) return t.reshape({1}).contiguous();
  if (dim == t.dim() - 1) return t.contiguous();
  return t.movedim(dim, -1).contiguous();
}

// The sizes of `t` with `dim` moved last.
inline std::vector<int64_t> rows_sizes(at::IntArrayRef sizes, int64_t dim) {
  std::vector<int64_t> s(sizes.begin(), sizes.end());
  if (s.empty()) return {1};
  int64_t d = s[dim];
  s.erase(s.begin() + dim);
  s.push_back(d);
  return s;
}

// Where a kernel writes its result for `out` (whose sizes are the result's,
// `dim` not yet moved): `out` itself when that is already the rows layout,
// else a new contiguous tensor; finish with rows_finish.
inline at::Tensor rows_out(const at::Tensor& out, int64_t dim) {
  if (out.dim() == 0) return at::empty({1}, out.options());
  if (dim == out.dim() - 1 && out.is_contiguous()) return out;
  return at::empty(rows_sizes(out.sizes(), dim), out.options());
}
inline void rows_finish(const at::Tensor& out, const at::Tensor& res, int64_t dim) {
  if (res.is_same(out)) return;
  if (out.dim() == 0) out.copy_(res.reshape({}));
  else out.copy_(res.movedim(-1, dim));
}


}  // namespace russet
