// The random ops' common path (ops/random.cpp): one draw from the
// generator, the device fill, else the host.
#pragma once

#include <ATen/core/Generator.h>
#include <ATen/core/Tensor.h>

#include <functional>

#include "russet/tensor.h"

namespace russet {

// `fill(stream, dst, seed, offset)` on the device with one draw of
// rs_rng_offset_increment(numel) offsets; where it answers
// RS_ERR_UNSUPPORTED (float64 under the apple profile), `host_fill` into a
// CPU tensor from a CPU generator seeded by the same draw, copied in and
// counted as a host op, so results stay reproducible under manual_seed.
using DeviceFill = std::function<rs_status(rs_stream*, const rs_tensor*, uint64_t seed, uint64_t offset)>;
using HostFill = std::function<void(at::Tensor&, at::Generator&)>;
at::Tensor& random_fill(at::Tensor& self, const std::optional<at::Generator>& gen, const char* op,
                        const DeviceFill& fill, const HostFill& host_fill);

}  // namespace russet
