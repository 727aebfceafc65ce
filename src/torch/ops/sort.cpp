// Sorting (src/engine/sort.c): sort (always stable; argsort and msort are
// ATen composites of it), topk (the first k of a sort), and the order
// statistics kthvalue, median, nanmedian and mode (a sort and a pick per
// row).
// Every dtype CPU sorts runs natively, float64 included (keys are bits).
#include <ATen/MemoryOverlap.h>
#include <ATen/WrapDimUtils.h>
#include <ATen/native/ReduceOpsUtils.h>
#include <ATen/native/SortingUtils.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/full.h>
#include <ATen/ops/kthvalue_ops.h>
#include <ATen/ops/median_ops.h>
#include <ATen/ops/mode_ops.h>
#include <ATen/ops/nanmedian_ops.h>
#include <ATen/ops/sort_meta.h>
#include <ATen/ops/sort_ops.h>
#include <ATen/ops/topk_meta.h>
#include <ATen/ops/topk_ops.h>
#include <torch/library.h>

#include "torch/rows.h"
#include "torch/dtype_refusal.h"
#include "russet/scan_sort.h"

namespace russet {
namespace {

using at::Tensor;

// Sorts `self` along `dim`; the first k of each row go to values/indices
// (whose sizes are self's with dim = k).
void sort_rows(const Tensor& self, int64_t dim, bool descending, int64_t k, const Tensor& values,
               const Tensor& indices) {
  if (values.numel() == 0) return;
  c10::DeviceGuard guard(self.device());
  Tensor x = rows_of(self, dim);
  Tensor v = rows_out(values, dim), i = rows_out(indices, dim);
  rs_tensor dx = describe(x), dv = describe(v), di = describe(i);
  check_or_host(rs_sort(current_stream_for(self), &dx, descending ? 1 : 0, k, &dv, &di));
  rows_finish(values, v, dim);
  rows_finish(indices, i, dim);
}

std::tuple<Tensor&, Tensor&> sort_out(const Tensor& self, std::optional<bool> stable, int64_t dim, bool descending,
                                      Tensor& values, Tensor& indices) {
  return native_or_host<at::_ops::sort_values_stable>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        OutOps<at::meta::structured_sort_stable> m(values, indices);
        m.meta(self, stable, dim, descending);
        dim = at::maybe_wrap_dim(dim, self.dim());
        if (self.dim() == 0 && self.numel() == 1) {
          values.copy_(self);
          indices.zero_();
        } else {
          sort_rows(self, dim, descending, self.dim() == 0 ? 1 : self.size(dim), values, indices);
        }
        return {values, indices};
      },
      self, stable, dim, descending, values, indices);
}

std::tuple<Tensor&, Tensor&> topk_out(const Tensor& self, int64_t k, int64_t dim, bool largest, bool sorted,
                                      Tensor& values, Tensor& indices) {
  return native_or_host<at::_ops::topk_values>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        OutOps<at::meta::structured_topk> m(values, indices);
        m.meta(self, k, dim, largest, sorted);
        dim = at::maybe_wrap_dim(dim, self.dim(), /*wrap_scalar=*/true);
        if (k == 0) return {values, indices};
        if (self.dim() == 0) {
          values.copy_(self);
          indices.zero_();
        } else {
          // sorted or not, the k best in order (ties in index order)
          sort_rows(self, dim, largest, k, values, indices);
        }
        return {values, indices};
      },
      self, k, dim, largest, sorted, values, indices);
}

// One element per row along dim, by rs_sort_pick: kthvalue, median and
// nanmedian with dim. values/indices get self's sizes with dim = 1, then
// lose dim unless keepdim, as ATen's CPU kernels do.
void pick(const Tensor& self, int64_t dim, rs_pick mode, int64_t k, bool keepdim, Tensor& values, Tensor& indices) {
  at::assert_no_overlap(self, values);  // CPU's check: resizing values would resize self
  at::native::_reduction_with_indices_allocate_or_resize_output(values, indices, self, dim, keepdim);
  if (self.dim() == 0 && self.numel() == 1) {
    values.copy_(self);
    indices.zero_();
  } else if (self.numel() > 0) {
    c10::DeviceGuard guard(self.device());
    Tensor x = rows_of(self, dim);
    // the size-1 dim does not change the order: [rows] views of the results
    Tensor v = values.is_contiguous() ? values : at::empty(values.sizes(), values.options());
    Tensor i = indices.is_contiguous() ? indices : at::empty(indices.sizes(), indices.options());
    Tensor v1 = v.view({-1}), i1 = i.view({-1});
    rs_tensor dx = describe(x), dv = describe(v1), di = describe(i1);
    check_or_host(rs_sort_pick(current_stream_for(self), &dx, mode, k, &dv, &di));
    if (!v.is_same(values)) values.copy_(v);
    if (!i.is_same(indices)) indices.copy_(i);
  }
  if (!keepdim && values.dim() > 0) {
    values.squeeze_(dim);
    indices.squeeze_(dim);
  }
}

std::tuple<Tensor&, Tensor&> kthvalue_out(const Tensor& self, int64_t k, int64_t dim_, bool keepdim, Tensor& values,
                                          Tensor& indices) {
  refuse_unless(self.scalar_type() != at::kBool, "kthvalue_cpu", self.scalar_type());
  return native_or_host<at::_ops::kthvalue_values>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        int64_t dim = at::maybe_wrap_dim(dim_, self.dim(), /*wrap_scalar=*/true);
        int64_t slicesize = self.dim() == 0 ? 1 : self.size(dim);
        at::native::zero_numel_check_dims(self, dim, "kthvalue()");
        TORCH_CHECK(k >= 1 && k <= slicesize, "kthvalue(): selected number k out of range for dimension ", dim);
        pick(self, dim, RS_PICK_KTH, k - 1, keepdim, values, indices);
        return {values, indices};
      },
      self, k, dim_, keepdim, values, indices);
}

template <class Op>
std::tuple<Tensor&, Tensor&> median_dim_impl(const char* name, rs_pick mode, const Tensor& self, int64_t dim_,
                                             bool keepdim, Tensor& values, Tensor& indices) {
  refuse_unless(self.scalar_type() != at::kBool, "median_out", self.scalar_type());
  return native_or_host<Op>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        int64_t dim = at::maybe_wrap_dim(dim_, self.dim(), /*wrap_scalar=*/true);
        at::native::zero_numel_check_dims(self, dim, name);
        TORCH_CHECK(indices.scalar_type() == at::kLong, name, ": expected indices to have dtype Long");
        TORCH_CHECK(values.scalar_type() == self.scalar_type(), name, ": expected values to have dtype ",
                    self.scalar_type(), ", but got ", values.scalar_type());
        pick(self, dim, mode, 0, keepdim, values, indices);
        return {values, indices};
      },
      self, dim_, keepdim, values, indices);
}
std::tuple<Tensor&, Tensor&> median_dim_out(const Tensor& self, int64_t dim, bool keepdim, Tensor& values,
                                            Tensor& indices) {
  return median_dim_impl<at::_ops::median_dim_values>("median()", RS_PICK_MEDIAN, self, dim, keepdim, values, indices);
}
std::tuple<Tensor&, Tensor&> nanmedian_dim_out(const Tensor& self, int64_t dim, bool keepdim, Tensor& values,
                                               Tensor& indices) {
  return median_dim_impl<at::_ops::nanmedian_dim_values>("nanmedian()", RS_PICK_NANMEDIAN, self, dim, keepdim,
                                                         values, indices);
}

std::tuple<Tensor, Tensor> mode(const Tensor& self, int64_t dim_, bool keepdim) {
  return native_or_host<at::_ops::mode>(
      [&]() -> std::tuple<Tensor, Tensor> {
        int64_t dim = at::maybe_wrap_dim(dim_, self.dim(), /*wrap_scalar=*/true);
        at::native::zero_numel_check_dims(self, dim, "mode()");
        Tensor values, indices;
        pick(self, dim, RS_PICK_MODE, 0, keepdim, values, indices);
        return {values, indices};
      },
      self, dim_, keepdim);
}

// mode.values: ATen's composite checks for CPU/CUDA/XPU before anything
// else, so the out= form needs its own registration.
std::tuple<Tensor&, Tensor&> mode_out(const Tensor& self, int64_t dim_, bool keepdim, Tensor& values,
                                      Tensor& indices) {
  return native_or_host<at::_ops::mode_values>(
      [&]() -> std::tuple<Tensor&, Tensor&> {
        int64_t dim = at::maybe_wrap_dim(dim_, self.dim(), /*wrap_scalar=*/true);
        at::native::zero_numel_check_dims(self, dim, "mode()");
        pick(self, dim, RS_PICK_MODE, 0, keepdim, values, indices);
        return {values, indices};
      },
      self, dim_, keepdim, values, indices);
}

// median()/nanmedian() of all elements: a 0-dim result.
template <class Op>
Tensor median_all_impl(rs_pick mode, const Tensor& self) {
  refuse_unless(self.scalar_type() != at::kBool, "median_cpu", self.scalar_type());
  return native_or_host<Op>(
      [&]() -> Tensor {
        if (self.numel() == 0) throw NeedsHost();  // CPU's NaN-of-dtype result
        c10::DeviceGuard guard(self.device());
        Tensor x = self.reshape({-1}).contiguous();
        Tensor v = at::empty({}, self.options());
        Tensor v1 = v.view({1});
        rs_tensor dx = describe(x), dv = describe(v1);
        check_or_host(rs_sort_pick(current_stream_for(self), &dx, mode, 0, &dv, nullptr));
        return v;
      },
      self);
}
Tensor median_all(const Tensor& self) { return median_all_impl<at::_ops::median>(RS_PICK_MEDIAN, self); }
Tensor nanmedian_all(const Tensor& self) { return median_all_impl<at::_ops::nanmedian>(RS_PICK_NANMEDIAN, self); }

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("sort.values_stable", TORCH_FN(sort_out));
  m.impl("topk.values", TORCH_FN(topk_out));
  m.impl("kthvalue.values", TORCH_FN(kthvalue_out));
  m.impl("median.dim_values", TORCH_FN(median_dim_out));
  m.impl("nanmedian.dim_values", TORCH_FN(nanmedian_dim_out));
  m.impl("median", TORCH_FN(median_all));
  m.impl("mode", TORCH_FN(mode));
  m.impl("mode.values", TORCH_FN(mode_out));
  m.impl("nanmedian", TORCH_FN(nanmedian_all));
}

}  // namespace russet
