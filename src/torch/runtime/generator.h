// The Philox generator: (seed, offset), as PyTorch's CUDA generator.
#pragma once

#include <ATen/core/Generator.h>
#include <c10/core/GeneratorImpl.h>

namespace russet {

struct PhiloxGenerator final : c10::GeneratorImpl {
  explicit PhiloxGenerator(c10::DeviceIndex index);
  void set_current_seed(uint64_t seed) override;
  uint64_t current_seed() const override { return seed_; }
  uint64_t seed() override;
  void set_offset(uint64_t offset) override { offset_ = offset; }
  uint64_t get_offset() const override { return offset_; }
  void set_state(const c10::TensorImpl& state) override;
  c10::intrusive_ptr<c10::TensorImpl> get_state() const override;
  static c10::DeviceType device_type() { return c10::DeviceType::PrivateUse1; }

  // Reserves `increment` offsets for one kernel; returns the offset to use.
  uint64_t take(uint64_t increment) {
    uint64_t o = offset_;
    offset_ += increment;
    return o;
  }

 private:
  PhiloxGenerator* clone_impl() const override;
  uint64_t seed_;
  uint64_t offset_ = 0;
};

const at::Generator& default_generator(c10::DeviceIndex index);
// The generator to use for an op: the given one, or the device's default.
PhiloxGenerator* generator_for(const std::optional<at::Generator>& gen, c10::DeviceIndex index);

// One kernel's draw: the generator's seed and `increment` offsets reserved
// for it (rs_rng_offset_increment), under the generator's lock.
struct PhiloxDraw {
  uint64_t seed, offset;
};
PhiloxDraw take_draw(const std::optional<at::Generator>& gen, c10::DeviceIndex index, uint64_t increment);
// A CPU generator seeded by a draw: a random op that runs on the host stays
// reproducible under torch.manual_seed.
at::Generator host_generator(const PhiloxDraw& draw);

}  // namespace russet
