/* The GLSL sources embedded at build time (tools/embed_kernels.py). */
#ifndef RS_KERNEL_SOURCES_H
#define RS_KERNEL_SOURCES_H

typedef struct rs_kernel_source {
    const char *name;   /* path under kernels/, e.g. "common/dtype.glsl" */
    const char *text;
} rs_kernel_source;

/* Terminated by {0, 0}. */
extern const rs_kernel_source rs_kernel_sources[];

#endif
