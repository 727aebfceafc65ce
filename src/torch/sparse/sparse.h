// What the sparse adapter files share: the host fallback of the sparse and
// nested keys (host.cpp), for kernels that hand inputs they do not take to
// the host themselves (at::native::call_fallback_fn), and the sparse @ dense
// launch that COO and CSR products share (coo.cpp).
#pragma once

#include <ATen/core/Tensor.h>
#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

#include <utility>

#include "russet/sparse.h"

namespace russet {

void sparse_host_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack);

// out (M, N) = beta t + alpha S @ mat2, where p holds S (indices, values,
// and crow for CSR); t broadcasts to (M, N); out is resized (unless it is
// t). Memory that out shares with an input other than t itself goes
// through a temporary.
void sparse_mm_into(rs_sparse_mm& p, int64_t M, const at::Tensor& t, const at::Tensor& mat2, const at::Scalar& beta,
                    const at::Scalar& alpha, const at::Tensor& out);

// out (a COO tensor) takes (indices, values) over sizes, `coalesced` as declared
void set_sparse(const at::Tensor& out, at::IntArrayRef sizes, int64_t sparse_dim, const at::Tensor& indices,
                const at::Tensor& values, bool coalesced);

// each entry's row-major position over sizes (indices: (sparse_dim, nnz),
// int32 or int64): int64 (nnz); and a COO tensor's, over its sparse sizes
at::Tensor index_keys(const at::Tensor& indices, at::IntArrayRef sizes);
at::Tensor keys_of(const at::Tensor& t);

// for each of keys, its place among the sorted, distinct keys `sorted`, or
// -1 where `sorted` lacks it: int64 (keys); one launch (rs_sparse_match), no wait
at::Tensor match_keys(const at::Tensor& sorted, const at::Tensor& keys);

// values' rows (one per sorted key) at keys, 0 where sorted lacks a key:
// (keys, values' other dims); one launch (rs_sparse_match), no wait
at::Tensor values_matched(const at::Tensor& sorted, const at::Tensor& values, const at::Tensor& keys);

// x's values at y's entries (y's nnz, x's dense sizes), 0 where x has no
// entry; x and y sparse COO of one shape, x coalesced first (duplicates
// summed). The intersection that sparse_mask and the sparse softmax's
// gradient need.
at::Tensor values_at(const at::Tensor& x, const at::Tensor& y);

// whether a sparse @ dense product of these dtypes has a kernel here
bool sparse_mm_dtype(const at::Tensor& mat1);

}  // namespace russet
