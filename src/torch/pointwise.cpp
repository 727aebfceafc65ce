// TensorIterator -> rs_pointwise (see pointwise.h).
#include "torch/pointwise.h"
#include "torch/pointwise_batch.h"
#include "russet/pointwise.h"

#include <ATen/ops/empty.h>
#include <ATen/ops/scalar_tensor.h>

#include <cstring>
#include <c10/core/DeviceGuard.h>

namespace russet {

void resize_out(const at::Tensor& out, at::IntArrayRef sizes, at::IntArrayRef strides,
                const at::TensorOptions& options) {
  TORCH_CHECK(options.dtype() == out.dtype(), "Expected out tensor to have dtype ", options.dtype(),
              ", but got ", out.dtype(), " instead");
  TORCH_CHECK(options.device() == out.device(), "Expected out tensor to have device ", options.device(),
              ", but got ", out.device(), " instead");
  const bool resized = at::native::resize_output(out, sizes);
  if (resized) {
    if (!strides.empty()) {
      out.as_strided_(sizes, strides);
    } else if (options.memory_format_opt().has_value()) {
      out.unsafeGetTensorImpl()->empty_tensor_restride(*options.memory_format_opt());
    }
  }
}

// PyTorch's opmath type for a dtype, as an rs_dtype.
rs_dtype opmath(at::ScalarType t) {
  switch (t) {
    case at::kBool: return RS_BOOL;
    case at::kUInt64: return RS_UINT64;
    case at::kDouble: return RS_FLOAT64;
    case at::kComplexHalf:
    case at::kComplexFloat: return RS_COMPLEX64;
    case at::kComplexDouble: return RS_COMPLEX128;
    default:
      if (at::isIntegralType(t, /*includeBool=*/false)) return RS_INT64;
      TORCH_CHECK(at::isFloatingType(t), "russet: no opmath type for ", t);
      return RS_FLOAT32;
  }
}

void host_if_no_fp64(const at::Tensor& t) { host_if_no_fp64(t, [] {}); }

void host_if_no_fp64(const at::Tensor& t, const std::function<void()>& before_host) {
  if (rs_dtype_needs_fp64(static_cast<rs_dtype>(t.scalar_type())) &&
      !rs_device_features(device(t.device().index()))->has_fp64) {
    before_host();
    throw NeedsHost{"float64/complex128 needs shaderFloat64, which this device lacks"};
  }
}

namespace {

rs_dtype real_of(rs_dtype t) {
  return t == RS_COMPLEX64 ? RS_FLOAT32 : t == RS_COMPLEX128 ? RS_FLOAT64 : t;
}

// A scalar value in the opmath type `t`, after a cast to `dtype` (so that a
// scalar operand rounds as CPU's temporary copy in that dtype would).
void to_scalar(const at::Scalar& v, at::ScalarType dtype, rs_dtype t, rs_scalar out[2]) {
  std::memset(out, 0, 2 * sizeof(rs_scalar));
  // round through the dtype, as a CPU tensor of that dtype holds it (with
  // c10's overflow checks); the common dtypes without creating a tensor
  at::Scalar c;
  switch (dtype) {
    case at::kFloat: c = static_cast<double>(v.to<float>()); break;
    case at::kDouble: c = v.to<double>(); break;
    case at::kHalf: c = static_cast<double>(static_cast<float>(v.to<c10::Half>())); break;
    case at::kBFloat16: c = static_cast<double>(static_cast<float>(v.to<c10::BFloat16>())); break;
    case at::kLong: c = v.to<int64_t>(); break;
    case at::kInt: c = static_cast<int64_t>(v.to<int32_t>()); break;
    case at::kShort: c = static_cast<int64_t>(v.to<int16_t>()); break;
    case at::kChar: c = static_cast<int64_t>(v.to<int8_t>()); break;
    case at::kByte: c = static_cast<int64_t>(v.to<uint8_t>()); break;
    case at::kBool: c = v.to<bool>(); break;
    case at::kComplexFloat: c = c10::complex<double>(v.to<c10::complex<float>>()); break;
    default: c = at::scalar_tensor(v, at::TensorOptions().dtype(dtype)).item();
  }
  switch (t) {
    case RS_BOOL: out[0].u = c.to<bool>() ? 1 : 0; break;
    case RS_INT64: out[0].i = c.to<int64_t>(); break;
    case RS_UINT64: out[0].u = c.to<uint64_t>(); break;
    case RS_FLOAT32: out[0].f = c.to<float>(); break;
    case RS_FLOAT64: out[0].d = c.to<double>(); break;
    case RS_COMPLEX64: {
      auto z = c.to<c10::complex<float>>();
      out[0].cf.re = z.real();
      out[0].cf.im = z.imag();
      break;
    }
    case RS_COMPLEX128: {
      auto z = c.to<c10::complex<double>>();
      out[0].d = z.real();
      out[1].d = z.imag();
      break;
    }
    default: TORCH_CHECK(false, "russet: bad opmath dtype");
  }
}

// Operand k of the iterator as a descriptor (iteration order reversed, so
// that the innermost, fastest dim comes last).
rs_tensor operand(at::TensorIteratorBase& iter, int k) {
  rs_tensor d{};
  d.address = reinterpret_cast<uint64_t>(iter.data_ptr(k));
  d.dtype = static_cast<rs_dtype>(iter.dtype(k));
  d.ndim = static_cast<int>(iter.ndim());
  TORCH_CHECK(d.ndim <= RS_MAX_DIMS, "russet: more than ", RS_MAX_DIMS, " dims");
  auto shape = iter.shape();
  auto strides = iter.strides(k);
  int64_t es = iter.element_size(k);
  for (int j = 0; j < d.ndim; j++) {
    d.sizes[j] = shape[d.ndim - 1 - j];
    d.strides[j] = strides[d.ndim - 1 - j] / es;
  }
  return d;
}

}  // namespace

namespace {

// run_pointwise's body
void run_pointwise_impl(at::TensorIteratorBase& iter, const char* name, rs_pw_op op,
                        std::initializer_list<int> flags, Result result, std::initializer_list<at::Scalar> scalars,
                        std::optional<at::ScalarType> compute, unsigned keep_dtype, bool scalars_in_opmath) {
  if (iter.numel() == 0) {
    // nothing to compute, but an op with no kernel for these dtypes goes to
    // the host even so, which raises where CPU has none (ATen's kernels
    // check the dtype before they look at the size: elu of an empty int64)
    if (op != RS_PW_NONE && !rs_pw_op_supports(op, opmath(compute.value_or(iter.common_dtype()))))
      throw NeedsHost{std::string(name) + ": no kernel for these dtypes"};
    return;
  }
  TORCH_CHECK(iter.noutputs() == 1, "russet: ", name, ": one output expected");
  const int nin = iter.ntensors() - iter.noutputs();
  TORCH_CHECK(nin <= RS_PW_MAX_INPUTS, "russet: ", name, ": too many inputs");
  TORCH_CHECK(scalars.size() <= 4, "russet: ", name, ": too many scalars");
  at::ScalarType common = compute.value_or(iter.common_dtype());
  c10::DeviceGuard guard(iter.device(0));

  rs_pointwise p{};
  p.name = name;
  p.op = op;
  TORCH_CHECK(flags.size() <= RS_PW_MAX_FLAGS, "russet: ", name, ": too many flags");
  int nf = 0;
  for (int f : flags) p.flags[nf++] = f;
  p.common = static_cast<rs_dtype>(common);
  p.compute = opmath(common);
  p.result = result == Result::Bool ? RS_BOOL : result == Result::Real ? real_of(p.compute) : p.compute;
  p.ninputs = nin;
  p.out = operand(iter, 0);
  std::vector<at::Tensor> temporaries;  // casts of inputs to the common dtype
  for (int k = 0; k < nin; k++) {
    int t = iter.noutputs() + k;
    bool keep = (keep_dtype >> k) & 1u;
    at::ScalarType dt = keep ? iter.dtype(t) : common;
    if (iter.is_cpu_scalar(t)) {
      p.is_scalar[k] = 1;
      p.in[k].dtype = static_cast<rs_dtype>(dt);
      to_scalar(iter.tensor(t).item(), dt, opmath(dt), p.scalar[k]);
      continue;
    }
    p.in[k] = operand(iter, t);
    if (iter.dtype(t) != dt) {
      // as CPU's TensorIterator does: a temporary copy in the common dtype
      at::Tensor tmp = at::empty(iter.shape(), iter.tensor(t).options().dtype(dt));
      rs_tensor td{};
      td.address = address_of(tmp);
      td.dtype = static_cast<rs_dtype>(dt);
      td.ndim = p.in[k].ndim;
      // tmp is contiguous in the iterator's order; describe it in ours
      int64_t stride = 1;
      for (int j = td.ndim - 1; j >= 0; j--) {
        td.sizes[j] = p.in[k].sizes[j];
        td.strides[j] = stride;
        stride *= td.sizes[j];
      }
      check(rs_copy(current_stream(iter.device(0).index()), &td, &p.in[k]));
      p.in[k] = td;
      temporaries.push_back(std::move(tmp));
    }
  }
  int ns = 0;
  // opmath: the scalar's own value, widened (no rounding through the dtype)
  at::ScalarType scalar_dtype = scalars_in_opmath ? static_cast<at::ScalarType>(p.compute) : common;
  for (const at::Scalar& s : scalars) to_scalar(s, scalar_dtype, p.compute, p.s[ns++]);
  p.nscalars = ns;
  rs_stream* stream = current_stream(iter.device(0).index());
  PointwiseBatch* batch = PointwiseBatch::current();
  if (batch) {
    if (temporaries.empty() && batch->add(stream, p)) return;
    batch->flush();  // what was queued runs first
  }
  rs_status st = rs_pointwise_run(stream, &p);
  // no fp64 on this device, or no kernel for these dtypes in the op table
  // (e.g. a special function's complex one): host execution, counted. A
  // compile error is a bug and raises.
  if (st == RS_ERR_UNSUPPORTED) throw NeedsHost{rs_last_error()};
  check(st);
}

}  // namespace

void run_pointwise(at::TensorIteratorBase& iter, const char* name, rs_pw_op op, Result result,
                   std::initializer_list<at::Scalar> scalars, std::optional<at::ScalarType> compute,
                   unsigned keep_dtype, bool scalars_in_opmath) {
  run_pointwise_impl(iter, name, op, {}, result, scalars, compute, keep_dtype, scalars_in_opmath);
}

void run_pointwise_flags(at::TensorIteratorBase& iter, const char* name, rs_pw_op op, std::initializer_list<int> flags,
                         std::initializer_list<at::Scalar> scalars, std::optional<at::ScalarType> compute,
                         unsigned keep_dtype) {
  run_pointwise_impl(iter, name, op, flags, Result::Compute, scalars, compute, keep_dtype, false);
}

// ---- PointwiseBatch (pointwise_batch.h)

namespace {
thread_local PointwiseBatch* current_batch = nullptr;
}

PointwiseBatch::PointwiseBatch() : outer_(current_batch) { current_batch = this; }

PointwiseBatch::~PointwiseBatch() {
  // an exception on its way: what was queued still runs, as the tensors
  // before the failing one were done one by one (no second exception here)
  if (!queued_.empty()) rs_pointwise_run_many(stream_, queued_.data(), static_cast<int>(queued_.size()));
  current_batch = outer_;
}

PointwiseBatch* PointwiseBatch::current() { return current_batch; }

bool PointwiseBatch::add(rs_stream* s, const rs_pointwise& p) {
  // queued only what cannot fail for want of float64 or of a table kernel
  bool wide = rs_dtype_needs_fp64(p.compute) || rs_dtype_needs_fp64(p.result) || rs_dtype_needs_fp64(p.out.dtype);
  for (int k = 0; k < p.ninputs; k++) wide = wide || rs_dtype_needs_fp64(p.in[k].dtype);
  if (wide || (p.op != RS_PW_NONE && !rs_pw_op_supports(p.op, p.compute))) return false;
  if (stream_ && s != stream_) flush();
  stream_ = s;
  queued_.push_back(p);
  names_.emplace_back(p.name);
  queued_.back().name = names_.back().c_str();
  return true;
}

void PointwiseBatch::flush() {
  if (queued_.empty()) return;
  std::vector<rs_pointwise> run;
  std::deque<std::string> names;
  run.swap(queued_);
  names.swap(names_);
  check(rs_pointwise_run_many(stream_, run.data(), static_cast<int>(run.size())));
}

}  // namespace russet
