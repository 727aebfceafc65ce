// PointwiseBatch: pointwise launches queued and run together, so that a
// _foreach_ op over a parameter list takes one launch per op, not one per
// tensor (src/torch/ops/foreach.cpp; the C side is rs_pointwise_run_many).
#pragma once

#include "russet/pointwise.h"

#include <ATen/core/Tensor.h>

#include <deque>
#include <string>
#include <vector>

namespace russet {

// While one lives on this thread, run_pointwise (src/torch/pointwise.cpp)
// queues the descriptions it would run, when they can be queued (no cast
// temporaries, no dtype that needs float64: nothing that could fail or must
// run at once), and runs everything queued first when they cannot. flush()
// runs the queue through rs_pointwise_run_many: in order, one launch for a
// run of descriptions that differ only in their contiguous tensors. The
// destructor runs what was not flushed (an exception is on its way: the
// tensors before the failing one are updated, as one by one).
class PointwiseBatch {
 public:
  PointwiseBatch();
  ~PointwiseBatch();
  PointwiseBatch(const PointwiseBatch&) = delete;
  PointwiseBatch& operator=(const PointwiseBatch&) = delete;
  void flush();

  // the batch of this thread, or null
  static PointwiseBatch* current();
  // queues p (to run on stream s) if it can; false: the caller runs it now
  bool add(rs_stream* s, const rs_pointwise& p);

 private:
  PointwiseBatch* outer_;
  rs_stream* stream_ = nullptr;
  std::vector<rs_pointwise> queued_;
  std::deque<std::string> names_;  // the queued descriptions' names, owned here
};

}  // namespace russet
