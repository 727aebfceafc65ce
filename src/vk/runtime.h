/* runtime.h: what the Vulkan runtime (src/vk/) offers the engines
 * (src/engine/) beyond the public API (include/russet/): the error message, and
 * the device facts that choose kernels. Both layers include it; src/vk/
 * includes nothing from src/engine/. */
#ifndef RS_VK_RUNTIME_H
#define RS_VK_RUNTIME_H

#include "russet/russet.h"

/* Formats the message of the calling thread's last error (rs_last_error())
 * and returns st (error.c). */
rs_status rs_error(rs_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* VK_KHR_cooperative_matrix as the GEMM uses it (never under the apple
 * profile; context.c): RS_COOPMAT_KHR_F16 when the device lists 16x16x16
 * float16 x float16 -> float32 at subgroup scope and the extension was
 * enabled; RS_COOPMAT_KHR_BF16 when, in addition, it lists the bfloat16
 * shape and VK_KHR_shader_bfloat16's cooperative matrices were enabled. */
#define RS_COOPMAT_KHR_F16 1
#define RS_COOPMAT_KHR_BF16 2
int rs_device_coopmat_khr(rs_device *dev);

/* 1 where kernels take the device's float16 conversions (RS_HW_F16: the
 * start-up check found them equal to c10's, device_checks.c), 0 where they
 * use c10's in software (context.c) */
int rs_device_hw_f16(rs_device *dev);

/* A kernel from precompiled SPIR-V, kernels/spirv/<module>.spv (made by
 * tools/build_spirv.py for kernels the run-time compiler cannot build);
 * cached like rs_kernel_get's (kernel.c). */
rs_status rs_kernel_spirv(rs_device *dev, const char *module, rs_kernel **out);

/* Switches and tuning knobs from the environment (util.c). rs_env_flag:
 * `fallback` where `name` is unset or empty, 0 where it is "0", else 1.
 * rs_env_int: the value of `name` where it is an integer in [lo, hi],
 * else `fallback`. Callers that read one on a hot path keep it in a static
 * (read once; a race writes the same value). */
int rs_env_flag(const char *name, int fallback);
long long rs_env_int(const char *name, long long fallback, long long lo, long long hi);

#endif
