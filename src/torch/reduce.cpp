// Helpers of the reductions (reduce.h).
#include "torch/reduce.h"
#include "russet/reduce.h"

#include <ATen/WrapDimUtils.h>

#include "torch/pointwise.h"

namespace russet {

uint64_t reduce_mask(const at::Tensor& self, at::OptionalIntArrayRef dims) {
  int64_t nd = self.dim();
  if (!dims.has_value() || dims->empty()) return ~0ULL;
  uint64_t mask = 0;
  for (int64_t d : *dims) {
    int64_t w = at::maybe_wrap_dim(d, nd);
    TORCH_CHECK(!(mask >> w & 1), "dim ", w, " appears multiple times in the list of dims");
    mask |= 1ULL << w;
  }
  return mask;
}

uint64_t reduce_mask(const at::Tensor& self, std::optional<int64_t> dim) {
  if (!dim.has_value()) return ~0ULL;
  return 1ULL << at::maybe_wrap_dim(*dim, self.dim());
}

std::vector<int64_t> reduced_shape(const at::Tensor& self, uint64_t mask, bool keepdim) {
  std::vector<int64_t> shape;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (mask >> d & 1) {
      if (keepdim) shape.push_back(1);
    } else {
      shape.push_back(self.size(d));
    }
  }
  return shape;
}

rs_tensor keepdim_view(const at::Tensor& result, int64_t ndim, uint64_t mask, bool keepdim) {
  if (!result.defined()) return rs_tensor{};
  rs_tensor t = describe(result);
  if (keepdim || t.ndim == ndim) return t;
  rs_tensor k = t;
  k.ndim = static_cast<int>(ndim);
  int j = 0;
  for (int d = 0; d < ndim; ++d) {
    if (mask >> d & 1) {
      k.sizes[d] = 1;
      k.strides[d] = 0;
    } else {
      TORCH_INTERNAL_ASSERT(j < t.ndim, "russet: a reduction result of ", t.ndim, " dims for ", ndim);
      k.sizes[d] = t.sizes[j];
      k.strides[d] = t.strides[j];
      j++;
    }
  }
  return k;
}

rs_dtype reduce_acc(at::ScalarType t) {
  // opmath, except that bool counts as int64
  return t == at::kBool ? RS_INT64 : opmath(t);
}

at::Tensor resolved(const at::Tensor& self) {
  return self.resolve_conj().resolve_neg();
}

// A reduction over more dims than rs_tensor holds (PyTorch allows up to
// 64): the input's size-1 dims, reduced or not, change nothing, so the
// input and the keepdim forms of the results go without them.
void run_reduce_squeezed(const char* name, rs_reduce_op op, rs_dtype acc, const at::Tensor& self,
                         const at::Tensor& out, const at::Tensor& out2, uint64_t mask, bool keepdim, double p,
                         double correction) {
  uint64_t kept_mask = 0;
  int kept = 0;
  for (int64_t d = 0; d < self.dim(); ++d) {
    if (self.size(d) == 1) continue;
    if (mask >> d & 1) kept_mask |= 1ULL << kept;
    kept++;
  }
  // an output in keepdim form (a reduced dim of keepdim=False: size 1,
  // stride 0), then without self's size-1 dims
  auto squeezed = [&](const at::Tensor& o) -> at::Tensor {
    if (!o.defined()) return o;
    std::vector<int64_t> sz, st;
    int64_t j = 0;
    for (int64_t d = 0; d < self.dim(); ++d) {
      const bool reduced = mask >> d & 1;
      sz.push_back(keepdim ? o.size(d) : reduced ? 1 : o.size(j));
      st.push_back(keepdim ? o.stride(d) : reduced ? 0 : o.stride(j));
      if (!keepdim && !reduced) j++;
    }
    return without_size1_dims(o.as_strided(sz, st), self);
  };
  run_reduce(name, op, acc, without_size1_dims(self, self), squeezed(out), squeezed(out2),
             mask == ~0ULL ? ~0ULL : kept_mask, /*keepdim=*/true, p, correction);
}

void run_reduce(const char* name, rs_reduce_op op, rs_dtype acc, const at::Tensor& self, const at::Tensor& out,
                const at::Tensor& out2, uint64_t mask, bool keepdim, double p, double correction) {
  if (self.dim() > RS_MAX_DIMS)
    return run_reduce_squeezed(name, op, acc, self, out, out2, mask, keepdim, p, correction);
  rs_reduce r{};
  r.name = name;
  r.op = op;
  r.acc = acc;
  r.in = describe(self);
  r.out = keepdim_view(out, self.dim(), mask, keepdim);
  r.out2 = keepdim_view(out2, self.dim(), mask, keepdim);
  r.p = p;
  r.correction = correction;
  if (self.numel() == 0 && (!out.defined() || out.numel() == 0) && (!out2.defined() || out2.numel() == 0))
    return;
  // a 0-dim input is its own result: one output of one element
  check_or_host(rs_reduce_run(current_stream_for(self), &r));
}

}  // namespace russet
