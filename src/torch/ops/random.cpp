// Random fills with the Philox generator: random_, uniform_, normal_.
// Where the device cannot produce a dtype (float64 under the apple profile)
// the fill runs on the host, from a CPU generator seeded by the same
// (seed, offset), so results stay reproducible.
#include <ATen/MemoryOverlap.h>
#include <ATen/ops/empty.h>
#include <c10/core/DeviceGuard.h>
#include <torch/library.h>

#include <limits>

#include "torch/adapter.h"
#include "torch/ops/random.h"
#include "torch/runtime/generator.h"
#include "russet/rng.h"

namespace russet {

at::Tensor& random_fill(at::Tensor& self, const std::optional<at::Generator>& gen, const char* op,
                        const DeviceFill& fill, const HostFill& host_fill) {
  at::assert_no_internal_overlap(self);  // CPU's TensorIterator refuses an expanded self
  if (self.numel() == 0) return self;
  c10::DeviceGuard guard(self.device());
  const PhiloxDraw draw = take_draw(gen, self.device().index(), rs_rng_offset_increment(self.numel()));
  rs_tensor d = describe_elementwise(self);
  rs_status st = fill(current_stream_for(self), &d, draw.seed, draw.offset);
  if (st == RS_OK) return self;
  if (st != RS_ERR_UNSUPPORTED) throw_status(st);
  note_host_op(op);
  at::Generator cpu = host_generator(draw);
  at::Tensor host = at::empty(self.sizes(), self.options().device(at::kCPU));
  host_fill(host, cpu);
  self.copy_(host);
  return self;
}

namespace {

// The largest integer random_ produces for a dtype: values in [0, 2^digits]
// for floating types, the type's maximum for integers.
uint64_t dtype_max(at::ScalarType t) {
  switch (t) {
    case at::kBool: return 1;
    case at::kHalf: return 1ull << 11;
    case at::kBFloat16: return 1ull << 8;
    case at::kFloat: return 1ull << 24;
    case at::kDouble: return 1ull << 53;
    case at::kByte: return 255;
    case at::kChar: return 127;
    case at::kShort: return 32767;
    case at::kInt: return 2147483647;
    case at::kLong: return static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    case at::kUInt16: return 65535;
    case at::kUInt32: return 4294967295ull;
    case at::kUInt64: return std::numeric_limits<uint64_t>::max();
    default: TORCH_CHECK(false, "random_ is not supported for ", t);
  }
}

at::Tensor& random_range(at::Tensor& self, int64_t from, uint64_t range, const std::optional<at::Generator>& gen,
                         const char* op, const HostFill& host) {
  return random_fill(self, gen, op,
      [&](rs_stream* s, const rs_tensor* d, uint64_t seed, uint64_t offset) {
        return rs_rng_random(s, d, from, range, seed, offset);
      },
      host);
}

at::Tensor& random_(at::Tensor& self, std::optional<at::Generator> gen) {
  uint64_t range = dtype_max(self.scalar_type()) + 1;  // wraps to 0 (full range) for uint64
  return random_range(self, 0, range, gen, "aten::random_",
                      [](at::Tensor& h, at::Generator& g) { h.random_(g); });
}

at::Tensor& random_from(at::Tensor& self, int64_t from, std::optional<int64_t> to,
                        std::optional<at::Generator> gen) {
  uint64_t range;
  if (to) {
    TORCH_CHECK(from < *to, "random_ expects 'from' to be less than 'to', but got from=", from, " >= to=", *to);
    range = static_cast<uint64_t>(*to) - static_cast<uint64_t>(from);
  } else {
    uint64_t hi = dtype_max(self.scalar_type());
    TORCH_CHECK(from < 0 || static_cast<uint64_t>(from) <= hi, "random_ expects 'from' casted to dtype to be less ",
                "than or equal to 'to' casted to dtype, but got from=", from, " > to=", hi);
    range = hi - static_cast<uint64_t>(from) + 1;
  }
  return random_range(self, from, range, gen, "aten::random_.from",
                      [from, to](at::Tensor& h, at::Generator& g) { h.random_(from, to, g); });
}

at::Tensor& random_to(at::Tensor& self, int64_t to, std::optional<at::Generator> gen) {
  return random_from(self, 0, to, std::move(gen));
}

at::Tensor& uniform_(at::Tensor& self, double from, double to, std::optional<at::Generator> gen) {
  TORCH_CHECK(at::isFloatingType(self.scalar_type()) || at::isComplexType(self.scalar_type()),
              "\"check_uniform_bounds\" not implemented for '", self.scalar_type(), "'");
  TORCH_CHECK(from <= to, "uniform_ expects to return a [from, to) range, but found from=", from, " > to=", to);
  return random_fill(self, gen, "aten::uniform_",
      [&](rs_stream* s, const rs_tensor* d, uint64_t seed, uint64_t offset) {
        return rs_rng_uniform(s, d, from, to, seed, offset);
      },
      [&](at::Tensor& h, at::Generator& g) { h.uniform_(from, to, g); });
}

at::Tensor& normal_(at::Tensor& self, double mean, double std, std::optional<at::Generator> gen) {
  TORCH_CHECK(std >= 0.0, "normal expects std >= 0.0, but found std ", std);
  TORCH_CHECK(at::isFloatingType(self.scalar_type()) || at::isComplexType(self.scalar_type()),
              "\"normal_kernel_cpu\" not implemented for '", self.scalar_type(), "'");
  return random_fill(self, gen, "aten::normal_",
      [&](rs_stream* s, const rs_tensor* d, uint64_t seed, uint64_t offset) {
        return rs_rng_normal(s, d, mean, std, seed, offset);
      },
      [&](at::Tensor& h, at::Generator& g) { h.normal_(mean, std, g); });
}

}  // namespace

TORCH_LIBRARY_IMPL(aten, PrivateUse1, m) {
  m.impl("random_", random_);
  m.impl("random_.from", random_from);
  m.impl("random_.to", random_to);
  m.impl("uniform_", uniform_);
  m.impl("normal_", normal_);
}

}  // namespace russet
