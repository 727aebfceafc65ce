// A Python number as the C core's rs_scalar in the opmath slot of a tensor
// dtype (index_add's and the sparse sum's alpha).
#pragma once

#include <ATen/core/Tensor.h>

#include "russet/tensor.h"

namespace russet {

inline rs_scalar scalar_slot(const at::Scalar& v, at::ScalarType t) {
  rs_scalar s{};
  switch (t) {
    case at::kBool: s.u = v.to<bool>() ? 1 : 0; break;
    case at::kHalf: case at::kBFloat16: case at::kFloat: s.f = v.to<float>(); break;
    case at::kDouble: s.d = v.to<double>(); break;
    case at::kComplexHalf:
    case at::kComplexFloat: {
      auto c = v.to<c10::complex<float>>();
      s.cf.re = c.real();
      s.cf.im = c.imag();
      break;
    }
    default: s.i = v.to<int64_t>(); break;
  }
  return s;
}

}  // namespace russet
