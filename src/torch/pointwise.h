// The bridge from ATen's TensorIterator to the C core's pointwise engine.
//
// ATen's structured kernels compute broadcasting, type promotion and the
// output (their meta() builds a TensorIterator); `OutOp<Meta>` runs a
// meta() against a given out= tensor, exactly as ATen's generated wrappers
// do, and `run_pointwise` then hands the iterator's operands to
// rs_pointwise_run. Registering an op's .out overload is enough: the
// functional and in-place overloads of structured ops reach it.
#pragma once

#include <ATen/TensorIterator.h>
#include <ATen/native/CPUFallback.h>
#include <ATen/native/Resize.h>

#include <functional>
#include <initializer_list>

#include "torch/adapter.h"
#include "russet/pointwise.h"

namespace russet {

// The opmath type the expression's value has.
enum class Result { Compute, Bool, Real };

// Thrown by run_pointwise when the device cannot compute the dtypes (float64
// under the apple profile): the op then runs through host execution. `why`
// (empty: a form no native kernel covers) reaches RUSSET_HOST_OPS=warn and
// error's messages.
struct NeedsHost {
  std::string why;
};

// An engine's status -> exception; RS_ERR_UNSUPPORTED (a dtype or form the
// device cannot compute) -> NeedsHost, with the engine's message, so the op
// runs through host execution.
inline void check_or_host(rs_status st) {
  if (st == RS_ERR_UNSUPPORTED) throw NeedsHost{rs_last_error()};
  check(st);
}

void host_fallback(const c10::OperatorHandle& op, torch::jit::Stack* stack);

// PyTorch's opmath type for a dtype, as an rs_dtype (bool stays bool).
rs_dtype opmath(at::ScalarType t);

// Throws NeedsHost when `t`'s dtype needs fp64 arithmetic (float64,
// complex128) and its device has none (the apple profile). The second form
// runs `before_host` first on that path: a check CPU's kernel lacks (its
// reads out of bounds can crash the process), which may throw CPU-style.
void host_if_no_fp64(const at::Tensor& t);
void host_if_no_fp64(const at::Tensor& t, const std::function<void()>& before_host);

// Throws NeedsHost unless an engine's capability query (rs_norm_computes,
// rs_linalg_computes, ...) says it computes t's dtype on t's device:
// host_unless(rs_norm_computes, x). The fp64 reason where that is why.
template <class... Extra>
void host_unless(int (*computes)(rs_device*, rs_dtype, Extra...), const at::Tensor& t, Extra... extra) {
  if (computes(device(t.device().index()), static_cast<rs_dtype>(t.scalar_type()), extra...)) return;
  host_if_no_fp64(t);
  throw NeedsHost{};
}

// Runs `body` (the native kernel); if it needs the host, runs the op `Op`
// (an at::_ops:: struct) through host execution with the same arguments.
template <class Op, class Body, class... Args>
decltype(auto) native_or_host(Body body, Args&&... args) {
  try {
    return body();
  } catch (const NeedsHost& e) {
    HostReason reason(e.why);
    return at::native::call_fallback_fn<&host_fallback, Op>::call(std::forward<Args>(args)...);
  }
}

// Runs the table op `op` (russet/pointwise_ops.h) over the iterator's
// operands; `name` names the kernel in errors and the cache.
// `compute` overrides the iterator's common dtype (for iterators built
// without one); inputs of another dtype are cast to it first unless
// `keep_dtype` has their bit set (input k: bit k). The extra `scalars` are
// rounded to the common dtype (`scalar.to<scalar_t>()` in CPU kernels)
// unless `scalars_in_opmath` (`scalar.to<opmath_t>()`, e.g. add's alpha).
void run_pointwise(at::TensorIteratorBase& iter, const char* name, rs_pw_op op,
                   Result result = Result::Compute, std::initializer_list<at::Scalar> scalars = {},
                   std::optional<at::ScalarType> compute = std::nullopt, unsigned keep_dtype = 0,
                   bool scalars_in_opmath = false);

// The same for a table op with integer constants $0.. in its expression
// (rs_pointwise.flags: options such as an optimizer's maximize).
void run_pointwise_flags(at::TensorIteratorBase& iter, const char* name, rs_pw_op op, std::initializer_list<int> flags,
                         std::initializer_list<at::Scalar> scalars, std::optional<at::ScalarType> compute,
                         unsigned keep_dtype);

// An out= kernel's result computed into a fresh tensor `r`: `out` resized as
// ATen's resize_output does (a warning when it had elements), then filled.
// `out` on another device raises, as PyTorch's out= wrappers do (a copy
// there would be a hidden transfer).
inline at::Tensor& write_out(at::Tensor& out, const at::Tensor& r) {
  TORCH_CHECK(out.device() == r.device(), "Expected out tensor to have device ", r.device(), ", but got ",
              out.device(), " instead");
  at::native::resize_output(out, r.sizes());
  out.copy_(r);
  return out;
}

// ATen's resize_out for structured out= kernels: dtype and device must
// match; a resized output takes the strides the meta function asked for.
void resize_out(const at::Tensor& out, at::IntArrayRef sizes, at::IntArrayRef strides,
                const at::TensorOptions& options);

// A structured meta class run against a caller's out= tensor.
//
// Up to torch 2.12, set_output_* also took a DimnameList (named tensors,
// ATen/core/Dimname.h); later versions dropped both.
#if __has_include(<ATen/core/Dimname.h>)
#define RUSSET_NAMES_PARAM , at::DimnameList names
#define RUSSET_NAMES_ARG , names
#else
#define RUSSET_NAMES_PARAM
#define RUSSET_NAMES_ARG
#endif
template <class Meta>
struct OutOp final : Meta {
  explicit OutOp(const at::Tensor& out) : out_(out) {}
  void set_output_strided(int64_t idx, at::IntArrayRef sizes, at::IntArrayRef strides,
                          at::TensorOptions options RUSSET_NAMES_PARAM) override {
    resize_out(out_, sizes, strides, options);
    Meta::set_output_raw_strided(idx, sizes, strides, options RUSSET_NAMES_ARG);
  }
  void set_output_raw_strided(int64_t idx, at::IntArrayRef sizes, at::IntArrayRef strides,
                              at::TensorOptions options RUSSET_NAMES_PARAM) override {
    resize_out(out_, sizes, strides, options);
    Meta::set_output_raw_strided(idx, sizes, strides, options RUSSET_NAMES_ARG);
  }
  const at::Tensor& maybe_get_output(int64_t) override { return out_; }
  const at::Tensor& out_;
};

// A structured meta class run against caller-given outputs (one to four),
// for the structured ops whose meta class derives from MetaBase rather than
// TensorIteratorBase (reductions, softmax, sort, scans...): unlike OutOp,
// nothing to forward the outputs to.
template <class Meta>
struct OutOps final : Meta {
  explicit OutOps(const at::Tensor& a) : outs_{&a, nullptr, nullptr, nullptr} {}
  OutOps(const at::Tensor& a, const at::Tensor& b) : outs_{&a, &b, nullptr, nullptr} {}
  OutOps(const at::Tensor& a, const at::Tensor& b, const at::Tensor& c) : outs_{&a, &b, &c, nullptr} {}
  OutOps(const at::Tensor& a, const at::Tensor& b, const at::Tensor& c, const at::Tensor& d) : outs_{&a, &b, &c, &d} {}
  void set_output_strided(int64_t idx, at::IntArrayRef sizes, at::IntArrayRef strides,
                          at::TensorOptions options RUSSET_NAMES_PARAM) override {
    resize_out(*outs_[idx], sizes, strides, options);
  }
  void set_output_raw_strided(int64_t idx, at::IntArrayRef sizes, at::IntArrayRef strides,
                              at::TensorOptions options RUSSET_NAMES_PARAM) override {
    resize_out(*outs_[idx], sizes, strides, options);
  }
  const at::Tensor& maybe_get_output(int64_t idx) override { return *outs_[idx]; }
  const at::Tensor* outs_[4];
};

// The out= kernel of a structured pointwise op: Meta::meta(args...) against
// `out`, then the op `op`; through host execution (the op `Op`, an at::_ops::
// struct) when the device cannot run it. Every ops_*.cpp builds on this.
template <class Meta, class Op, class... Args>
at::Tensor& structured_out(const char* name, rs_pw_op op, Result result, at::Tensor& out,
                           const Args&... args) {
  return native_or_host<Op>(
      [&]() -> at::Tensor& {
        OutOp<Meta> m(out);
        m.meta(args...);
        run_pointwise(m, name, op, result);
        return out;
      },
      args..., out);
}

}  // namespace russet
