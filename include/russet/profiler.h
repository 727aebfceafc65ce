/* Kernel timing for profilers (src/vk/profile.c; docs/profiling.md).
 *
 * While a device profiles, every dispatch recorded on it is bracketed by
 * two GPU timestamps (Vulkan timestamp queries in its batch), and once the
 * batch has finished, a record of the kernel (its name, start and end in
 * host time, the correlation id its thread had set, the stream) joins the
 * device's list. Off, a dispatch pays one atomic load.
 *
 * Times are nanoseconds of the host's CLOCK_REALTIME (the clock of
 * torch.profiler's traces): at rs_profiler_start a timestamp written on the
 * device's default stream between two host clock readings sets the offset
 * between the two clocks (its error is at most half that round trip, tens
 * of microseconds; the durations are exact to the device's timestamp
 * period). Only dispatches are timed: copies are not.
 *
 * Not in russet.h's umbrella: the adapter's profiler plugin and the C tests
 * include it. */
#ifndef RUSSET_PROFILER_H
#define RUSSET_PROFILER_H

#include <stddef.h>
#include <stdint.h>

#include "russet/runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rs_kernel_record {
    char name[64];        /* the kernel's name (source file or module), cut to fit */
    int64_t start_ns;     /* CLOCK_REALTIME nanoseconds */
    int64_t end_ns;
    uint64_t correlation; /* rs_profiler_set_correlation's id on the recording thread, 0 none */
    int stream;           /* the stream's id */
} rs_kernel_record;

/* Starts timing dispatches on dev (clearing records not taken) and sets the
 * clock offset; fails with RS_ERR_UNSUPPORTED on a device without timestamp
 * queries. Idempotent while on. */
RS_API rs_status rs_profiler_start(rs_device *dev);
/* Stops timing new dispatches and waits for the timed ones, so that every
 * record is ready for rs_profiler_take. */
RS_API rs_status rs_profiler_stop(rs_device *dev);
/* 1 while dev profiles. */
RS_API int rs_profiler_active(rs_device *dev);
/* The calling thread's correlation id for the dispatches it records next
 * (the profiler's id of the op that launches them); 0 for none. */
RS_API void rs_profiler_set_correlation(uint64_t id);
/* Moves up to max records of finished dispatches, oldest first, into out;
 * returns how many. */
RS_API size_t rs_profiler_take(rs_device *dev, rs_kernel_record *out, size_t max);

#ifdef __cplusplus
}
#endif

#endif
