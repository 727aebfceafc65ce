// CPU's refusals of dtypes its kernels have no case for (AT_DISPATCH's
// NotImplementedError: "\"kernel\" not implemented for 'Bool'"), so that
// russet refuses what CPU refuses instead of computing it (issue 24;
// tools/dtype_refusal_sweep.py lists the pairs that remain, and
// docs/reliability.md the ones kept on purpose).
#pragma once

#include <c10/core/ScalarType.h>
#include <c10/util/Exception.h>

namespace russet {

inline void refuse_unless(bool ok, const char* kernel, c10::ScalarType t) {
  TORCH_CHECK_NOT_IMPLEMENTED(ok, "\"", kernel, "\" not implemented for '", c10::toString(t), "'");
}

// float16, bfloat16, float32, float64: the NN kernels' usual set
inline bool is_nn_float(c10::ScalarType t) { return c10::isFloatingType(t) && !c10::isFloat8Type(t); }

}  // namespace russet
