/* The GLSL sources embedded at build time (tools/embed_kernels.py). */
#ifndef RS_KERNEL_SOURCES_H
#define RS_KERNEL_SOURCES_H

#include <stddef.h>
#include <stdint.h>

typedef struct rs_kernel_source {
    const char *name;   /* path under kernels/, e.g. "common/dtype.glsl" */
    const char *text;
} rs_kernel_source;

/* Terminated by {0, 0}. */
extern const rs_kernel_source rs_kernel_sources[];

/* Precompiled SPIR-V (kernels/spirv/NAME.spv, made by tools/build_spirv.py for
 * kernels the run-time compiler cannot build), by module name (the file
 * name without .spv). Terminated by {0, 0, 0}. */
typedef struct rs_kernel_spirv_module {
    const char *name;
    const uint32_t *words;
    size_t size;        /* bytes */
} rs_kernel_spirv_module;

extern const rs_kernel_spirv_module rs_kernel_spirv_modules[];

#endif
