// A resized out= tensor given the layout of the CPU result it receives, as
// a CPU kernel leaves it (column-major LAPACK results, nonzero's transpose,
// lstsq's solution: a view of a larger buffer). Host execution uses it in
// both its forms: aliases on unified memory (runtime/host_exec.cpp) and
// PyTorch's cpu_fallback through _copy_from_and_resize (ops/copy.cpp).
#pragma once

#include <ATen/core/Tensor.h>

namespace russet {

// dst (already of src's sizes) restrided to src's strides and offset where
// src's elements do not overlap; else left contiguous
void take_layout(const at::Tensor& dst, const at::Tensor& src);

}  // namespace russet
