/*
 * russet.h: the public C API of the russet core (C11, no torch), all of it:
 * the runtime (russet/runtime.h: devices, memory, streams, events, kernels)
 * and every engine's header. Include it, or only the headers you use.
 * PyTorch's adapter (src/torch/) and Python (via ctypes) call only what is
 * declared under include/russet/.
 */
#ifndef RUSSET_H
#define RUSSET_H

#include "russet/runtime.h"
#include "russet/tensor.h"

#include "russet/amp.h"
#include "russet/attention.h"
#include "russet/conv.h"
#include "russet/distance.h"
#include "russet/embedding_bag.h"
#include "russet/fft.h"
#include "russet/gather.h"
#include "russet/gemm.h"
#include "russet/grid_sample.h"
#include "russet/histogram.h"
#include "russet/index_reduce.h"
#include "russet/interp.h"
#include "russet/jagged.h"
#include "russet/linalg.h"
#include "russet/loss.h"
#include "russet/margin_loss.h"
#include "russet/norm.h"
#include "russet/norm_layers.h"
#include "russet/optim.h"
#include "russet/pointwise.h"
#include "russet/pool.h"
#include "russet/reduce.h"
#include "russet/rng.h"
#include "russet/rnn.h"
#include "russet/scan_sort.h"
#include "russet/segment_reduce.h"
#include "russet/softmax.h"

#endif /* RUSSET_H */
