/* Kernels: GLSL -> SPIR-V (libshaderc) -> VkPipeline, with three caches:
 * - in memory: (source, defines) -> rs_kernel, for the life of the device;
 * - on disk: SPIR-V under $RUSSET_CACHE_DIR/spirv/, keyed by a hash of the
 *   source tree, the defines, the device's effective features and the
 *   compiler version;
 * - on disk: the VkPipelineCache blob under $RUSSET_CACHE_DIR/pipelines/.
 * Each disk file carries a header with a magic, the key and a checksum; a
 * file that does not match is ignored and rewritten, never trusted.
 * rs_kernel_spirv: a few kernels that the run-time compiler cannot build
 * come precompiled (kernels/spirv/, embedded by tools/embed_kernels.py) and
 * are looked up by module name; they share the in-memory and pipeline
 * caches. */
#include <errno.h>
#include <shaderc/shaderc.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdarg.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vk/internal.h"
#include "vk/kernel_sources.h"

#ifndef RS_SHADERC_VERSION
#define RS_SHADERC_VERSION "unknown"
#endif

#define SPIRV_MAGIC "RSSPIRV1"
#define PCACHE_MAGIC "RSPCACH1"
#define SAVE_EVERY 16

typedef struct disk_header {
    char magic[8];
    uint64_t key;
    uint64_t payload_size;
    uint64_t payload_hash;
    char compiler[48];
} disk_header;

static char g_cache_dir[1024];
static pthread_mutex_t g_dir_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_dir_ready; /* reset by rs_shutdown, so the next start rereads the environment */
static uint64_t g_tree_hash;

static void init_dir_locked(void) {
    const char *d = getenv("RUSSET_CACHE_DIR");
    if (d && *d) {
        snprintf(g_cache_dir, sizeof g_cache_dir, "%s", d);
    } else {
        const char *home = getenv("HOME");
        const char *xdg = getenv("XDG_CACHE_HOME");
        if (xdg && *xdg) snprintf(g_cache_dir, sizeof g_cache_dir, "%s/russet", xdg);
        else snprintf(g_cache_dir, sizeof g_cache_dir, "%s/.cache/russet", home ? home : "/tmp");
    }
    /* every embedded source takes part in every key: an edit to a header
     * invalidates the kernels that include it */
    uint64_t h = RS_FNV_SEED;
    for (const rs_kernel_source *s = rs_kernel_sources; s->name; s++) {
        h = rs_fnv1a(h, s->name, strlen(s->name) + 1);
        h = rs_fnv1a(h, s->text, strlen(s->text) + 1);
    }
    g_tree_hash = h;
    g_dir_ready = 1;
}

static void init_dir(void) {
    pthread_mutex_lock(&g_dir_lock);
    if (!g_dir_ready) init_dir_locked();
    pthread_mutex_unlock(&g_dir_lock);
}

void rs_kernels_forget_dir(void) {
    pthread_mutex_lock(&g_dir_lock);
    g_dir_ready = 0;
    pthread_mutex_unlock(&g_dir_lock);
}

const char *rs_cache_dir(void) {
    init_dir();
    return g_cache_dir;
}

static void mkdirs(const char *path) {
    char tmp[1100];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(tmp, 0755);
            *p = '/';
        }
    mkdir(tmp, 0755);
}

/* Reads a cache file; returns the payload (malloc'd) if header and
 * checksum match, else NULL and *rejected = 1 if the file existed. */
static void *read_cached(const char *path, uint64_t key, const char *magic, size_t *size, int *rejected) {
    *rejected = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    disk_header h;
    void *data = NULL;
    int ok = fread(&h, sizeof h, 1, f) == 1 && memcmp(h.magic, magic, 8) == 0 && h.key == key &&
             strncmp(h.compiler, RS_SHADERC_VERSION, sizeof h.compiler) == 0 &&
             h.payload_size > 0 && h.payload_size < (1ull << 30);
    if (ok) {
        data = malloc(h.payload_size);
        ok = data && fread(data, 1, h.payload_size, f) == h.payload_size && fgetc(f) == EOF &&
             rs_fnv1a(RS_FNV_SEED, data, h.payload_size) == h.payload_hash;
    }
    fclose(f);
    if (!ok) {
        free(data);
        *rejected = 1;
        return NULL;
    }
    *size = h.payload_size;
    return data;
}

/* Writes atomically (temp file + rename), so readers never see half a file. */
static rs_status write_cached(const char *dir, const char *path, uint64_t key, const char *magic,
                              const void *data, size_t size) {
    mkdirs(dir);
    char tmp[1200];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "wb");
    if (!f) return rs_error(RS_ERR_IO, "russet: cannot write %s: %s", tmp, strerror(errno));
    disk_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, magic, 8);
    h.key = key;
    h.payload_size = size;
    h.payload_hash = rs_fnv1a(RS_FNV_SEED, data, size);
    snprintf(h.compiler, sizeof h.compiler, "%s", RS_SHADERC_VERSION);
    int ok = fwrite(&h, sizeof h, 1, f) == 1 && fwrite(data, 1, size, f) == size;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return rs_error(RS_ERR_IO, "russet: cannot write %s", path);
    }
    return RS_OK;
}

/* ---- the pipeline cache */

static uint64_t pcache_key(rs_device *dev, char *path, size_t len, char *dir, size_t dlen) {
    VkPhysicalDeviceProperties p;
    vkGetPhysicalDeviceProperties(dev->physical, &p);
    uint64_t k = rs_fnv1a(RS_FNV_SEED, p.pipelineCacheUUID, VK_UUID_SIZE);
    k = rs_fnv1a(k, &p.vendorID, sizeof p.vendorID);
    k = rs_fnv1a(k, &p.deviceID, sizeof p.deviceID);
    k = rs_fnv1a(k, &p.driverVersion, sizeof p.driverVersion);
    k = rs_fnv1a(k, &dev->info.profile, sizeof dev->info.profile);
    snprintf(dir, dlen, "%s/pipelines", rs_cache_dir());
    snprintf(path, len, "%s/%016llx.bin", dir, (unsigned long long)k);
    return k;
}

rs_status rs_kernels_init(rs_device *dev) {
    rs_kernel_cache *kc = &dev->kernels;
    char path[1200], dir[1100];
    uint64_t key = pcache_key(dev, path, sizeof path, dir, sizeof dir);
    size_t size = 0;
    int rejected = 0;
    void *blob = read_cached(path, key, PCACHE_MAGIC, &size, &rejected);
    VkPipelineCacheCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
                                    .initialDataSize = blob ? size : 0,
                                    .pInitialData = blob};
    VkResult r = vkCreatePipelineCache(dev->device, &ci, NULL, &kc->pipeline_cache);
    if (r != VK_SUCCESS && blob) {
        /* the driver refused the blob: start empty */
        ci.initialDataSize = 0;
        ci.pInitialData = NULL;
        r = vkCreatePipelineCache(dev->device, &ci, NULL, &kc->pipeline_cache);
        free(blob);
        blob = NULL;
        rejected = 1;
    }
    kc->stats.pipeline_cache_loaded = blob != NULL;
    if (rejected) kc->stats.spirv_disk_rejects++;
    free(blob);
    if (r != VK_SUCCESS) return rs_vk_error(r, "vkCreatePipelineCache");
    return RS_OK;
}

rs_status rs_pipeline_cache_save(rs_device *dev) {
    rs_kernel_cache *kc = &dev->kernels;
    if (!kc->pipeline_cache) return RS_OK;
    pthread_mutex_lock(&kc->lock);
    size_t size = 0;
    rs_status st = RS_OK;
    VkResult r = vkGetPipelineCacheData(dev->device, kc->pipeline_cache, &size, NULL);
    if (r == VK_SUCCESS && size) {
        void *data = malloc(size);
        if (data && vkGetPipelineCacheData(dev->device, kc->pipeline_cache, &size, data) == VK_SUCCESS) {
            char path[1200], dir[1100];
            uint64_t key = pcache_key(dev, path, sizeof path, dir, sizeof dir);
            st = write_cached(dir, path, key, PCACHE_MAGIC, data, size);
        }
        free(data);
    }
    kc->created_since_save = 0;
    pthread_mutex_unlock(&kc->lock);
    return st;
}

void rs_kernels_destroy(rs_device *dev) {
    rs_kernel_cache *kc = &dev->kernels;
    for (size_t i = 0; i < kc->by_key.cap; i++) {
        rs_kernel *k = kc->by_key.vals[i];
        if (!kc->by_key.keys[i] || !k) continue;
        if (k->pipeline) vkDestroyPipeline(dev->device, k->pipeline, NULL);
        free(k->name);
        free(k->error);
        free(k);
    }
    rs_map_free(&kc->by_key);
    if (kc->pipeline_cache) vkDestroyPipelineCache(dev->device, kc->pipeline_cache, NULL);
    kc->pipeline_cache = VK_NULL_HANDLE;
    if (kc->compiler) shaderc_compiler_release(kc->compiler);
    kc->compiler = NULL;
}

void rs_cache_stats_get(rs_device *dev, rs_cache_stats *out) {
    pthread_mutex_lock(&dev->kernels.lock);
    *out = dev->kernels.stats;
    pthread_mutex_unlock(&dev->kernels.lock);
}

/* ---- compiling */

static const char *find_source(const char *name) {
    for (const rs_kernel_source *s = rs_kernel_sources; s->name; s++)
        if (strcmp(s->name, name) == 0) return s->text;
    return NULL;
}

static shaderc_include_result *include_resolve(void *user, const char *requested, int type,
                                               const char *requesting, size_t depth) {
    (void)user;
    (void)type;
    (void)requesting;
    (void)depth;
    shaderc_include_result *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    const char *text = find_source(requested);
    if (text) {
        r->source_name = requested;
        r->source_name_length = strlen(requested);
        r->content = text;
        r->content_length = strlen(text);
    } else {
        /* shaderc reports an empty source_name with content as the error */
        static const char msg[] = "no such file in kernels/";
        r->source_name = "";
        r->content = msg;
        r->content_length = sizeof msg - 1;
    }
    return r;
}

static void include_release(void *user, shaderc_include_result *r) {
    (void)user;
    free(r);
}

/* The defines every kernel sees: what the device can do. They are fixed
 * once the device is made (the in-memory cache does not key on them): the
 * one kernel compiled before the float16 conversions are decided
 * (info.float16_conversions -1: RS_HW_F16=0) is f16_check.comp, which does
 * not depend on them. */
static void feature_defines(rs_device *dev, char *buf, size_t len) {
    const rs_features *f = &dev->info.features;
    snprintf(buf, len,
             "RS_HAS_FP64=%d;RS_HAS_INT64=%d;RS_HAS_FP16=%d;RS_HAS_INT8=%d;RS_HAS_INT16=%d;"
             "RS_HAS_ATOMIC_INT64=%d;RS_HAS_ATOMIC_FLOAT32_ADD=%d;RS_PROFILE_APPLE=%d;RS_HW_F16=%d",
             f->has_fp64, f->has_int64, f->has_fp16, f->has_int8, f->has_int16, f->has_atomic_int64,
             f->has_atomic_float32_add, dev->info.profile == RS_PROFILE_APPLE,
             dev->info.float16_conversions > 0);
}

static void add_defines(shaderc_compile_options_t opts, const char *defines) {
    if (!defines) return;
    const char *p = defines;
    while (*p) {
        const char *end = strchr(p, ';');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', n);
        if (n) {
            if (eq) shaderc_compile_options_add_macro_definition(opts, p, (size_t)(eq - p), eq + 1, n - (size_t)(eq - p) - 1);
            else shaderc_compile_options_add_macro_definition(opts, p, n, "1", 1);
        }
        p += n + (end ? 1 : 0);
    }
}

static rs_status compile_glsl(rs_device *dev, const char *name, const char *glsl, const char *defines,
                              const char *fdefs, uint32_t **spirv, size_t *size) {
    rs_kernel_cache *kc = &dev->kernels;
    if (!kc->compiler && !(kc->compiler = shaderc_compiler_initialize()))
        return rs_error(RS_ERR_COMPILE, "russet: shaderc_compiler_initialize failed");
    shaderc_compile_options_t opts = shaderc_compile_options_initialize();
    if (!opts) return rs_error(RS_ERR_OOM, "russet: out of host memory");
    shaderc_compile_options_set_target_env(opts, shaderc_target_env_vulkan, shaderc_env_version_vulkan_1_2);
    shaderc_compile_options_set_optimization_level(opts, shaderc_optimization_level_performance);
    shaderc_compile_options_set_include_callbacks(opts, include_resolve, include_release, NULL);
    add_defines(opts, fdefs);
    add_defines(opts, defines);
    shaderc_compilation_result_t res = shaderc_compile_into_spv(
        kc->compiler, glsl, strlen(glsl), shaderc_compute_shader, name, "main", opts);
    shaderc_compile_options_release(opts);
    rs_status st = RS_OK;
    if (!res || shaderc_result_get_compilation_status(res) != shaderc_compilation_status_success) {
        st = rs_error(RS_ERR_COMPILE, "russet: kernel %s [%s] did not compile:\n%s", name,
                      defines ? defines : "", res ? shaderc_result_get_error_message(res) : "no result");
    } else {
        *size = shaderc_result_get_length(res);
        *spirv = malloc(*size);
        if (!*spirv) st = rs_error(RS_ERR_OOM, "russet: out of host memory");
        else memcpy(*spirv, shaderc_result_get_bytes(res), *size);
    }
    if (res) shaderc_result_release(res);
    kc->stats.spirv_compiles += st == RS_OK;
    return st;
}

/* A module the driver refused, as the driver got it (after the exact-math
 * rewrite), kept for a bug report: <cache dir>/failed/<name>-<key>.spv.
 * Returns the path, or "" where it cannot be written. */
static const char *keep_failed(const char *name, uint64_t key, const uint32_t *words, size_t bytes, char *path,
                               size_t len) {
    char dir[1100];
    snprintf(dir, sizeof dir, "%s/failed", rs_cache_dir());
    mkdirs(dir);
    snprintf(path, len, "%s/%s-%016llx.spv", dir, name, (unsigned long long)key);
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(words, 1, bytes, f) == bytes;
    if (f) ok = (fclose(f) == 0) && ok;
    if (!ok) path[0] = 0;
    return path;
}

static rs_status make_pipeline(rs_device *dev, const char *name, const char *defines, uint64_t key,
                               const uint32_t *spirv, size_t size, VkPipeline *out) {
    /* what the device (its profile) lacks: refused here on every device,
     * as a Mac would refuse it, though lavapipe and NVIDIA would run it */
    rs_spirv_info si;
    rs_status st = rs_spirv_inspect(spirv, size / 4, &si);
    if (st) return st;
    const rs_features *f = &dev->info.features;
    const char *prof = dev->info.profile == RS_PROFILE_APPLE ? "apple" : "native";
    if (si.shared_bytes > f->max_shared_memory)
        return rs_error(RS_ERR_COMPILE,
                        "russet: kernel %s needs %llu bytes of shared memory; this device allows %u "
                        "(profile %s)",
                        name, (unsigned long long)si.shared_bytes, f->max_shared_memory, prof);
    if (si.invocations > f->max_workgroup_invocations)
        return rs_error(RS_ERR_COMPILE,
                        "russet: kernel %s has workgroups of %llu invocations; this device allows %u (profile %s)",
                        name, (unsigned long long)si.invocations, f->max_workgroup_invocations, prof);
    uint32_t have = (f->has_fp16 ? RS_SPIRV_CAP_FLOAT16 : 0) | (f->has_fp64 ? RS_SPIRV_CAP_FLOAT64 : 0) |
                    (f->has_int64 ? RS_SPIRV_CAP_INT64 : 0) |
                    (f->has_atomic_int64 ? RS_SPIRV_CAP_INT64_ATOMICS : 0) |
                    (f->has_int16 ? RS_SPIRV_CAP_INT16 : 0) | (f->has_int8 ? RS_SPIRV_CAP_INT8 : 0) |
                    (f->has_storage16 ? RS_SPIRV_CAP_STORAGE16 : 0) |
                    (f->has_storage8 ? RS_SPIRV_CAP_STORAGE8 : 0) |
                    (f->has_atomic_float32_add ? RS_SPIRV_CAP_ATOMIC_F32_ADD : 0) |
                    (f->has_atomic_float64_add ? RS_SPIRV_CAP_ATOMIC_F64_ADD : 0) |
                    (f->has_subgroup_ballot ? RS_SPIRV_CAP_BALLOT : 0) |
                    (f->has_cooperative_matrix ? RS_SPIRV_CAP_COOPMAT_NV : 0) |
                    (dev->coopmat_khr ? RS_SPIRV_CAP_COOPMAT_KHR : 0);
    uint32_t missing = si.caps & ~have;
    if (missing) {
        uint32_t bit = missing & (~missing + 1u);
        return rs_error(RS_ERR_COMPILE, "russet: kernel %s uses %s, which this device does not have (profile %s)",
                        name, rs_spirv_cap_name(bit), prof);
    }
    uint32_t *em_words = NULL;
    size_t em_n = 0;
    if (dev->exact_math) {
        st = rs_spirv_exact_math(spirv, size / 4, f->preserve_infnan, f->preserve_denorm, dev->contraction,
                                 dev->info.division == RS_DIVISION_CORRECTED, &em_words,
                                 &em_n);
        if (st) return st;
    }
    VkShaderModuleCreateInfo mci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                    .codeSize = em_words ? em_n * 4 : size,
                                    .pCode = em_words ? em_words : spirv};
    VkShaderModule mod;
    VkResult r = vkCreateShaderModule(dev->device, &mci, NULL, &mod);
    if (r != VK_SUCCESS) {
        free(em_words);
        return rs_vk_error(r, "vkCreateShaderModule");
    }
    VkComputePipelineCreateInfo pci = {
        .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
        .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                  .stage = VK_SHADER_STAGE_COMPUTE_BIT,
                  .module = mod,
                  .pName = "main"},
        .layout = dev->layout};
    /* RUSSET_PIPELINE_STATS: capture the driver's statistics and internal
     * representations, bypassing the pipeline cache (whose entries may not
     * carry them) */
    VkPipelineCache cache = dev->kernels.pipeline_cache;
    if (dev->exec_props) {
        pci.flags = VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR |
                    VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR;
        cache = VK_NULL_HANDLE;
    }
    r = vkCreateComputePipelines(dev->device, cache, 1, &pci, NULL, out);
    vkDestroyShaderModule(dev->device, mod, NULL);
    if (r != VK_SUCCESS) {
        /* the driver's compiler refused it: name the variant and keep it */
        char kept[1300];
        keep_failed(name, key, (const uint32_t *)mci.pCode, mci.codeSize, kept, sizeof kept);
        free(em_words);
        return rs_error(RS_ERR_COMPILE, "russet: pipeline for %s [%s] failed: %s%s%s", name, defines ? defines : "",
                        rs_vk_result_name(r), kept[0] ? "; the module is kept in " : "", kept);
    }
    free(em_words);
    return RS_OK;
}

/* Under the cache lock: records a new pipeline under mem_key, or the
 * compile failure `st` (so that callers trying the same kernel again get the
 * same error at once). */
static rs_status remember_locked(rs_device *dev, uint64_t mem_key, const char *name, rs_status st,
                                 VkPipeline pipe, rs_kernel **kout) {
    rs_kernel_cache *kc = &dev->kernels;
    rs_kernel *k = NULL;
    if (st == RS_ERR_COMPILE) {
        /* remember the failure: callers may try the same kernel often */
        rs_kernel *bad = calloc(1, sizeof *bad);
        if (bad && (bad->name = strdup(name)) && (bad->error = strdup(rs_last_error())) &&
            rs_map_put(&kc->by_key, mem_key, bad) == 0) {
            bad = NULL;
        }
        if (bad) {
            free(bad->name);
            free(bad->error);
            free(bad);
        }
        return st;
    }
    if (!st) {
        k = calloc(1, sizeof *k);
        if (k) {
            k->name = strdup(name);
            k->pipeline = pipe;
        }
        if (!k || !k->name || rs_map_put(&kc->by_key, mem_key, k)) {
            if (k) free(k->name);
            free(k);
            vkDestroyPipeline(dev->device, pipe, NULL);
            st = rs_error(RS_ERR_OOM, "russet: out of host memory");
        } else {
            kc->stats.pipelines_created++;
            kc->created_since_save++;
        }
    }
    *kout = k;
    return st;
}

/* With kc->lock held: a kernel made before under mem_key. Returns 1 with
 * the lock released, *out and *st set (one that failed before gives the
 * same error, without recompiling); 0 with the lock still held. */
static int cached_unlock(rs_kernel_cache *kc, uint64_t mem_key, rs_kernel **out, rs_status *st) {
    rs_kernel *k = rs_map_get(&kc->by_key, mem_key);
    if (!k) return 0;
    kc->stats.pipeline_memory_hits++;
    pthread_mutex_unlock(&kc->lock);
    *out = k->pipeline ? k : NULL;
    *st = k->pipeline ? RS_OK : rs_error(RS_ERR_COMPILE, "%s", k->error);
    return 1;
}

/* With kc->lock held, after remember_locked: releases the lock, saves the
 * pipeline cache every SAVE_EVERY new pipelines, hands out the kernel. */
static rs_status finish_unlock(rs_device *dev, rs_status st, rs_kernel *k, rs_kernel **out) {
    rs_kernel_cache *kc = &dev->kernels;
    int save = !st && kc->created_since_save >= SAVE_EVERY;
    pthread_mutex_unlock(&kc->lock);
    if (save) rs_pipeline_cache_save(dev);
    *out = st ? NULL : k;
    return st;
}

/* `text_key` is 0 for embedded sources, whose name identifies the text:
 * the hot path then hashes only the name and the defines. */
static rs_status kernel_get(rs_device *dev, const char *name, const char *glsl, const char *defines,
                            int text_key, rs_kernel **out) {
    rs_kernel_cache *kc = &dev->kernels;
    uint64_t key = rs_fnv1a(RS_FNV_SEED, name, strlen(name) + 1);
    if (text_key) key = rs_fnv1a(key, glsl, strlen(glsl) + 1);
    key = rs_fnv1a(key, defines ? defines : "", defines ? strlen(defines) + 1 : 1);
    uint64_t mem_key = key ? key : 1;
    pthread_mutex_lock(&kc->lock);
    rs_kernel *k = NULL;
    rs_status st = RS_OK;
    if (cached_unlock(kc, mem_key, out, &st)) return st;
    char fdefs[512];
    feature_defines(dev, fdefs, sizeof fdefs);
    init_dir();
    if (!text_key) key = rs_fnv1a(key, glsl, strlen(glsl) + 1);
    /* the disk key adds everything that changes the SPIR-V */
    uint64_t dkey = rs_fnv1a(key, fdefs, strlen(fdefs) + 1);
    dkey = rs_fnv1a(dkey, &g_tree_hash, sizeof g_tree_hash);
    dkey = rs_fnv1a(dkey, RUSSET_VERSION, sizeof RUSSET_VERSION);
    char dir[1100], path[1200];
    snprintf(dir, sizeof dir, "%s/spirv", rs_cache_dir());
    snprintf(path, sizeof path, "%s/%016llx.spv", dir, (unsigned long long)dkey);
    size_t size = 0;
    int rejected = 0;
    uint32_t *spirv = read_cached(path, dkey, SPIRV_MAGIC, &size, &rejected);
    if (spirv && (size % 4 || spirv[0] != 0x07230203u)) {
        free(spirv);
        spirv = NULL;
        rejected = 1;
    }
    if (rejected) kc->stats.spirv_disk_rejects++;
    if (spirv) {
        kc->stats.spirv_disk_hits++;
    } else {
        st = compile_glsl(dev, name, glsl, defines, fdefs, &spirv, &size);
        /* a cache that cannot be written is not an error for the op */
        if (!st) write_cached(dir, path, dkey, SPIRV_MAGIC, spirv, size);
    }
    VkPipeline pipe = VK_NULL_HANDLE;
    if (!st) st = make_pipeline(dev, name, defines, dkey, spirv, size, &pipe);
    free(spirv);
    st = remember_locked(dev, mem_key, name, st, pipe, &k);
    return finish_unlock(dev, st, k, out);
}

rs_status rs_kernel_get(rs_device *dev, const char *source_name, const char *defines, rs_kernel **out) {
    const char *glsl = find_source(source_name);
    if (!glsl) return rs_error(RS_ERR_INVALID, "russet: no kernel source named %s", source_name);
    return kernel_get(dev, source_name, glsl, defines, 0, out);
}

rs_status rs_kernel_from_source(rs_device *dev, const char *name, const char *glsl, const char *defines,
                                rs_kernel **out) {
    return kernel_get(dev, name, glsl, defines, 1, out);
}

const char *rs_kernel_name(rs_kernel *k) { return k->name; }

/* appends to buf (cap bytes, always terminated); returns the new length */
static size_t put(char *buf, size_t cap, size_t at, const char *fmt, ...) {
    if (at + 1 >= cap) return at;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + at, cap - at, fmt, ap);
    va_end(ap);
    if (n < 0) return at;
    return at + (size_t)n < cap ? at + (size_t)n : cap - 1;
}

rs_status rs_kernel_describe(rs_device *dev, rs_kernel *k, int with_ir, char *buf, size_t cap) {
    if (!buf || cap == 0) return rs_error(RS_ERR_INVALID, "russet: rs_kernel_describe needs a buffer");
    buf[0] = 0;
    if (!k->pipeline) return rs_error(RS_ERR_INVALID, "russet: kernel %s did not compile", k->name);
    if (!dev->exec_props)
        return rs_error(RS_ERR_UNSUPPORTED, "russet: pipeline statistics need RUSSET_PIPELINE_STATS=1 at device "
                                            "creation and VK_KHR_pipeline_executable_properties");
    VkPipelineInfoKHR pinfo = {.sType = VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR, .pipeline = k->pipeline};
    uint32_t nexe = 0;
    VkResult r = dev->exec_props(dev->device, &pinfo, &nexe, NULL);
    if (r != VK_SUCCESS) return rs_vk_error(r, "vkGetPipelineExecutablePropertiesKHR");
    VkPipelineExecutablePropertiesKHR props[4];
    for (uint32_t i = 0; i < 4; i++)
        props[i] = (VkPipelineExecutablePropertiesKHR){.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR};
    if (nexe > 4) nexe = 4;
    r = dev->exec_props(dev->device, &pinfo, &nexe, props);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) return rs_vk_error(r, "vkGetPipelineExecutablePropertiesKHR");
    size_t at = 0;
    for (uint32_t e = 0; e < nexe; e++) {
        at = put(buf, cap, at, "executable %u: %s (%s), subgroup size %u\n", e, props[e].name,
                 props[e].description, props[e].subgroupSize);
        VkPipelineExecutableInfoKHR einfo = {.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR,
                                             .pipeline = k->pipeline,
                                             .executableIndex = e};
        VkPipelineExecutableStatisticKHR stats[64];
        uint32_t ns = 64;
        for (uint32_t i = 0; i < ns; i++)
            stats[i] = (VkPipelineExecutableStatisticKHR){.sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR};
        r = dev->exec_stats(dev->device, &einfo, &ns, stats);
        if (r != VK_SUCCESS && r != VK_INCOMPLETE) return rs_vk_error(r, "vkGetPipelineExecutableStatisticsKHR");
        for (uint32_t i = 0; i < ns; i++) {
            const VkPipelineExecutableStatisticValueKHR *v = &stats[i].value;
            switch (stats[i].format) {
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
                at = put(buf, cap, at, "  %s: %s\n", stats[i].name, v->b32 ? "true" : "false");
                break;
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
                at = put(buf, cap, at, "  %s: %lld\n", stats[i].name, (long long)v->i64);
                break;
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
                at = put(buf, cap, at, "  %s: %llu\n", stats[i].name, (unsigned long long)v->u64);
                break;
            default:
                at = put(buf, cap, at, "  %s: %g\n", stats[i].name, v->f64);
            }
        }
        if (!with_ir) continue;
        /* the internal representations: count, sizes, then the text */
        VkPipelineExecutableInternalRepresentationKHR irs[8];
        uint32_t nir = 8;
        for (uint32_t i = 0; i < nir; i++)
            irs[i] = (VkPipelineExecutableInternalRepresentationKHR){
                .sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INTERNAL_REPRESENTATION_KHR};
        r = dev->exec_irs(dev->device, &einfo, &nir, irs);
        if (r != VK_SUCCESS && r != VK_INCOMPLETE)
            return rs_vk_error(r, "vkGetPipelineExecutableInternalRepresentationsKHR");
        for (uint32_t i = 0; i < nir; i++) {
            irs[i].pData = irs[i].dataSize ? malloc(irs[i].dataSize) : NULL;
            if (irs[i].dataSize && !irs[i].pData) {
                for (uint32_t j = 0; j < i; j++) free(irs[j].pData);
                return rs_error(RS_ERR_OOM, "russet: out of host memory");
            }
        }
        r = dev->exec_irs(dev->device, &einfo, &nir, irs);
        for (uint32_t i = 0; i < nir; i++) {
            if (r == VK_SUCCESS || r == VK_INCOMPLETE) {
                at = put(buf, cap, at, "  representation %s (%s), %zu bytes%s\n", irs[i].name, irs[i].description,
                         irs[i].dataSize, irs[i].isText ? "" : ", binary");
                if (irs[i].isText && irs[i].pData)
                    at = put(buf, cap, at, "%.*s\n", (int)irs[i].dataSize, (const char *)irs[i].pData);
            }
            free(irs[i].pData);
        }
        if (r != VK_SUCCESS && r != VK_INCOMPLETE)
            return rs_vk_error(r, "vkGetPipelineExecutableInternalRepresentationsKHR");
    }
    return RS_OK;
}

rs_status rs_kernel_spirv(rs_device *dev, const char *module, rs_kernel **out) {
    const rs_kernel_spirv_module *m = rs_kernel_spirv_modules;
    while (m->name && strcmp(m->name, module) != 0) m++;
    if (!m->name) return rs_error(RS_ERR_INVALID, "russet: no precompiled SPIR-V module named %s", module);
    rs_kernel_cache *kc = &dev->kernels;
    uint64_t key = rs_fnv1a(RS_FNV_SEED, "spirv:", 6);
    key = rs_fnv1a(key, module, strlen(module) + 1);
    uint64_t mem_key = key ? key : 1;
    pthread_mutex_lock(&kc->lock);
    rs_kernel *k = NULL;
    rs_status st = RS_OK;
    if (cached_unlock(kc, mem_key, out, &st)) return st;
    VkPipeline pipe = VK_NULL_HANDLE;
    st = make_pipeline(dev, module, "", key, m->words, m->size, &pipe);
    st = remember_locked(dev, mem_key, module, st, pipe, &k);
    return finish_unlock(dev, st, k, out);
}
