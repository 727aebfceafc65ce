/* Instance, device discovery and creation, the capability profile. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vk/internal.h"

#define RS_MAX_PHYSICAL 16

typedef struct rs_candidate {
    VkPhysicalDevice physical;
    int physical_index;
    int rank; /* lower is preferred */
} rs_candidate;

static int g_discovered; /* under g_lock; rs_shutdown resets it */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static VkInstance g_instance;
static rs_candidate g_cands[RS_MAX_PHYSICAL];
static int g_count;
static char g_discovery_error[512];
static rs_device *g_devices[RS_MAX_PHYSICAL];

/* fork(): the child inherits the parent's Vulkan devices with none of the
 * driver's threads and possibly a lock held by one of them; using them
 * hangs. A child whose parent had created a device (the first op on it)
 * gets a clear error instead, checked before any lock is taken; a parent
 * that only counted devices (import) forks children that may start
 * russet themselves. */
static volatile int g_forked_child;
static volatile int g_started; /* set once a device exists (as CUDA's context) */
static pthread_once_t g_atfork_once = PTHREAD_ONCE_INIT;
static void on_fork_child(void) {
    if (g_started) g_forked_child = 1;
}
static void register_atfork(void) { pthread_atfork(NULL, NULL, on_fork_child); }
static const char kForkMessage[] =
    "russet: cannot use the device in a process made by fork() after its parent started russet (the parent's "
    "Vulkan driver does not survive a fork); to use russet with multiprocessing, use the 'spawn' start method "
    "(torch.multiprocessing.set_start_method('spawn'))";

int rs_forked_child(void) { return g_forked_child; }

rs_profile rs_profile_current(void) {
    const char *p = getenv("RUSSET_PROFILE");
    return (p && strcmp(p, "apple") == 0) ? RS_PROFILE_APPLE : RS_PROFILE_NATIVE;
}

const char *rs_profile_name(rs_profile p) { return p == RS_PROFILE_APPLE ? "apple" : "native"; }

static int has_extension(const VkExtensionProperties *ext, uint32_t n, const char *name) {
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(ext[i].extensionName, name) == 0) return 1;
    return 0;
}

static int type_rank(VkPhysicalDeviceType t) {
    switch (t) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return 0;
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return 1;
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return 2;
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return 4;
    default: return 3;
    }
}

/* A device must offer Vulkan 1.2 with buffer device addresses and timeline
 * semaphores; russet has no path without them. */
static int usable(VkPhysicalDevice pd, char *why, size_t whylen) {
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(pd, &props);
    if (props.apiVersion < VK_API_VERSION_1_2) {
        snprintf(why, whylen, "%s: Vulkan 1.2 required", props.deviceName);
        return 0;
    }
    VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f12};
    vkGetPhysicalDeviceFeatures2(pd, &f2);
    if (!f12.bufferDeviceAddress || !f12.timelineSemaphore) {
        snprintf(why, whylen, "%s: bufferDeviceAddress and timelineSemaphore required",
                 props.deviceName);
        return 0;
    }
    return 1;
}

static void discover(void) {
    /* MoltenVK reads this when the loader starts it: precise math. */
    setenv("MVK_CONFIG_FAST_MATH_ENABLED", "0", 0);

    uint32_t next = 0;
    if (vkEnumerateInstanceExtensionProperties(NULL, &next, NULL) != VK_SUCCESS) {
        snprintf(g_discovery_error, sizeof g_discovery_error,
                 "russet: no Vulkan loader or driver (vkEnumerateInstanceExtensionProperties failed)");
        return;
    }
    VkExtensionProperties *ext = calloc(next ? next : 1, sizeof *ext);
    if (!ext) return;
    vkEnumerateInstanceExtensionProperties(NULL, &next, ext);
    const char *names[2];
    uint32_t nnames = 0;
    VkInstanceCreateFlags flags = 0;
    if (has_extension(ext, next, "VK_KHR_portability_enumeration")) {
        names[nnames++] = "VK_KHR_portability_enumeration";
        flags |= VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR;
    }
    free(ext);

    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .pApplicationName = "russet",
                             .pEngineName = "russet",
                             .apiVersion = VK_API_VERSION_1_2};
    VkInstanceCreateInfo ci = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                               .flags = flags,
                               .pApplicationInfo = &app,
                               .enabledExtensionCount = nnames,
                               .ppEnabledExtensionNames = names};
    VkResult r = vkCreateInstance(&ci, NULL, &g_instance);
    if (r != VK_SUCCESS) {
        snprintf(g_discovery_error, sizeof g_discovery_error,
                 "russet: vkCreateInstance failed: %s (no Vulkan driver? install "
                 "mesa-vulkan-drivers, or check VK_DRIVER_FILES)", rs_vk_result_name(r));
        g_instance = VK_NULL_HANDLE;
        return;
    }
    uint32_t n = RS_MAX_PHYSICAL;
    VkPhysicalDevice pds[RS_MAX_PHYSICAL];
    r = vkEnumeratePhysicalDevices(g_instance, &n, pds);
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) n = 0;
    rs_candidate all[RS_MAX_PHYSICAL];
    int nall = 0;
    char why[256] = "";
    for (uint32_t i = 0; i < n; i++) {
        if (!usable(pds[i], why, sizeof why)) continue;
        VkPhysicalDeviceProperties props;
        vkGetPhysicalDeviceProperties(pds[i], &props);
        all[nall++] = (rs_candidate){pds[i], (int)i, type_rank(props.deviceType)};
    }
    /* stable sort: GPUs first, CPU devices (lavapipe) last */
    for (int i = 1; i < nall; i++)
        for (int j = i; j > 0 && all[j].rank < all[j - 1].rank; j--) {
            rs_candidate t = all[j];
            all[j] = all[j - 1];
            all[j - 1] = t;
        }
    const char *sel = getenv("RUSSET_DEVICE");
    if (sel && *sel) {
        char *end;
        long k = strtol(sel, &end, 10);
        if (*end || k < 0 || k >= nall) {
            snprintf(g_discovery_error, sizeof g_discovery_error,
                     "russet: RUSSET_DEVICE=%s is not a device index (found %d usable devices)",
                     sel, nall);
            return;
        }
        g_cands[0] = all[k];
        g_count = 1;
        return;
    }
    memcpy(g_cands, all, sizeof(rs_candidate) * (size_t)nall);
    g_count = nall;
    if (nall == 0)
        snprintf(g_discovery_error, sizeof g_discovery_error,
                 "russet: no usable Vulkan device found (%u physical devices%s%s)", n,
                 why[0] ? "; " : "", why);
}

int rs_device_count(void) {
    if (g_forked_child) {
        rs_error(RS_ERR_NO_DEVICE, "%s", kForkMessage);
        return 0;
    }
    pthread_once(&g_atfork_once, register_atfork);
    pthread_mutex_lock(&g_lock);
    if (!g_discovered) {
        g_count = 0;
        g_discovery_error[0] = 0;
        discover();
        g_discovered = 1;
    }
    pthread_mutex_unlock(&g_lock);
    if (g_count == 0) rs_error(RS_ERR_NO_DEVICE, "%s", g_discovery_error);
    return g_count;
}

/* ---- features and the profile mask */

/* The float controls every kernel asks for (rs_features.preserve_*).
 * Denormal modes may have to be set for several widths together: then a
 * width is offered only with the widths it goes with. */
static void float_controls(const VkPhysicalDeviceFloatControlsProperties *fc, uint32_t api, rs_features *f) {
    f->preserve_infnan = f->preserve_denorm = 0;
    if (VK_API_VERSION_MINOR(api) < 2 && VK_API_VERSION_MAJOR(api) == 1) return; /* the struct is 1.2's */
    f->preserve_infnan = (fc->shaderSignedZeroInfNanPreserveFloat16 ? RS_WIDTH_16 : 0) |
                         (fc->shaderSignedZeroInfNanPreserveFloat32 ? RS_WIDTH_32 : 0) |
                         (fc->shaderSignedZeroInfNanPreserveFloat64 ? RS_WIDTH_64 : 0);
    uint32_t d = (fc->shaderDenormPreserveFloat16 ? RS_WIDTH_16 : 0) |
                 (fc->shaderDenormPreserveFloat32 ? RS_WIDTH_32 : 0) |
                 (fc->shaderDenormPreserveFloat64 ? RS_WIDTH_64 : 0);
    const uint32_t all = RS_WIDTH_16 | RS_WIDTH_32 | RS_WIDTH_64, pair = RS_WIDTH_16 | RS_WIDTH_64;
    if (fc->denormBehaviorIndependence == VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_NONE && d != all) d = 0;
    if (fc->denormBehaviorIndependence == VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_32_BIT_ONLY && (d & pair) != pair)
        d &= ~pair;
    f->preserve_denorm = d;
}

static void query_features(VkPhysicalDevice pd, const VkExtensionProperties *ext, uint32_t next,
                           rs_features *f, VkPhysicalDeviceProperties *props_out) {
    VkPhysicalDeviceFloatControlsProperties fc = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES};
    VkPhysicalDeviceSubgroupProperties sub = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES,
                                              .pNext = &fc};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &sub};
    vkGetPhysicalDeviceProperties2(pd, &p2);
    *props_out = p2.properties;

    VkPhysicalDeviceShaderAtomicFloatFeaturesEXT af = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT};
    VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceVulkan11Features f11 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES,
                                            .pNext = &f12};
    int has_af = has_extension(ext, next, VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME);
    if (has_af) f12.pNext = &af;
    /* cooperative matrices: the NV extension, the one whose GLSL
     * (GL_NV_cooperative_matrix) the shader compiler russet builds with
     * knows; its SPIR-V uses the Vulkan memory model */
    VkPhysicalDeviceCooperativeMatrixFeaturesNV cmf = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV};
    int has_cm = has_extension(ext, next, VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME);
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f11};
    if (has_cm) {
        cmf.pNext = f2.pNext;
        f2.pNext = &cmf;
    }
    vkGetPhysicalDeviceFeatures2(pd, &f2);

    memset(f, 0, sizeof *f);
    f->has_fp64 = f2.features.shaderFloat64;
    f->has_int64 = f2.features.shaderInt64;
    f->has_int16 = f2.features.shaderInt16;
    f->has_fp16 = f12.shaderFloat16;
    f->has_int8 = f12.shaderInt8;
    f->has_bf16 = has_extension(ext, next, "VK_KHR_shader_bfloat16");
    f->has_storage8 = f12.storageBuffer8BitAccess;
    f->has_storage16 = f11.storageBuffer16BitAccess;
    f->has_atomic_int64 = f12.shaderBufferInt64Atomics;
    f->has_atomic_float32_add = has_af && af.shaderBufferFloat32AtomicAdd;
    f->has_atomic_float64_add = has_af && af.shaderBufferFloat64AtomicAdd;
    f->has_cooperative_matrix = has_cm && cmf.cooperativeMatrix && f12.vulkanMemoryModel &&
                                f12.shaderFloat16 && f11.storageBuffer16BitAccess;
    f->has_buffer_device_address = f12.bufferDeviceAddress;
    f->has_timeline_semaphore = f12.timelineSemaphore;
    f->subgroup_size = sub.subgroupSize;
    f->has_subgroup_ballot = (sub.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
                             (sub.supportedOperations & VK_SUBGROUP_FEATURE_BASIC_BIT) &&
                             (sub.supportedOperations & VK_SUBGROUP_FEATURE_BALLOT_BIT);
    f->max_shared_memory = p2.properties.limits.maxComputeSharedMemorySize;
    f->max_workgroup_invocations = p2.properties.limits.maxComputeWorkGroupInvocations;
    f->max_workgroup_count_x = p2.properties.limits.maxComputeWorkGroupCount[0];
    f->max_push_constants = p2.properties.limits.maxPushConstantsSize;
    float_controls(&fc, p2.properties.apiVersion, f);

    VkPhysicalDeviceMaintenance3Properties m3 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
    VkPhysicalDeviceProperties2 p3 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &m3};
    vkGetPhysicalDeviceProperties2(pd, &p3);
    f->max_allocation_size = m3.maxMemoryAllocationSize;
}

/* ---- VK_KHR_cooperative_matrix (kernels/gemm_coopmat_khr.comp, precompiled
 * SPIR-V). Debian 12's Vulkan headers (1.3.239) predate the extension: its
 * few types are declared here, with the registry's values. */
#define RS_ST_COOPMAT_FEATURES_KHR ((VkStructureType)1000506000)
#define RS_ST_COOPMAT_PROPERTIES_KHR ((VkStructureType)1000506001)
#define RS_COOPMAT_KHR_NAME "VK_KHR_cooperative_matrix"
typedef struct rs_coopmat_features_khr {
    VkStructureType sType;
    void *pNext;
    VkBool32 cooperativeMatrix, cooperativeMatrixRobustBufferAccess;
} rs_coopmat_features_khr;
typedef struct rs_coopmat_props_khr {
    VkStructureType sType;
    void *pNext;
    uint32_t M, N, K;
    int32_t A, B, C, Result; /* VkComponentTypeKHR: 0 float16, 1 float32, RS_COMPONENT_BF16 */
    VkBool32 saturating;
    int32_t scope;           /* VkScopeKHR: 3 subgroup */
} rs_coopmat_props_khr;
typedef VkResult(VKAPI_PTR *rs_pfn_coopmat_props_khr)(VkPhysicalDevice, uint32_t *, rs_coopmat_props_khr *);
/* VK_KHR_shader_bfloat16 (bfloat16 fragments), likewise newer than the headers */
#define RS_BF16_KHR_NAME "VK_KHR_shader_bfloat16"
#define RS_ST_BF16_FEATURES_KHR ((VkStructureType)1000141000)
#define RS_COMPONENT_BF16 1000141000
typedef struct rs_bf16_features_khr {
    VkStructureType sType;
    void *pNext;
    VkBool32 shaderBFloat16Type, shaderBFloat16DotProduct, shaderBFloat16CooperativeMatrix;
} rs_bf16_features_khr;

/* What gemm_coopmat_khr.comp can use on this device (RS_COOPMAT_KHR_*
 * bits): the extension and its feature, the Vulkan memory model, float16
 * arithmetic and storage, and 16x16x16 float16 x float16 -> float32 at
 * subgroup scope (F16); plus, with VK_KHR_shader_bfloat16's bfloat16
 * cooperative matrices, 16x16x16 bfloat16 x bfloat16 -> float32 (BF16). */
static int query_coopmat_khr(VkPhysicalDevice pd, const VkExtensionProperties *ext, uint32_t next) {
    if (!has_extension(ext, next, RS_COOPMAT_KHR_NAME)) return 0;
    rs_bf16_features_khr bf = {.sType = RS_ST_BF16_FEATURES_KHR};
    int has_bf = has_extension(ext, next, RS_BF16_KHR_NAME);
    rs_coopmat_features_khr cf = {.sType = RS_ST_COOPMAT_FEATURES_KHR, .pNext = has_bf ? &bf : NULL};
    VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                            .pNext = &cf};
    VkPhysicalDeviceVulkan11Features f11 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES,
                                            .pNext = &f12};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f11};
    vkGetPhysicalDeviceFeatures2(pd, &f2);
    if (!cf.cooperativeMatrix || !f12.vulkanMemoryModel || !f12.shaderFloat16 || !f11.storageBuffer16BitAccess ||
        !f2.features.shaderInt64)
        return 0;
    has_bf = has_bf && bf.shaderBFloat16Type && bf.shaderBFloat16CooperativeMatrix;
    rs_pfn_coopmat_props_khr props =
        (rs_pfn_coopmat_props_khr)vkGetInstanceProcAddr(g_instance, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR");
    uint32_t np = 0;
    if (!props || props(pd, &np, NULL) != VK_SUCCESS || np == 0) return 0;
    rs_coopmat_props_khr *cp = calloc(np, sizeof *cp);
    if (!cp) return 0;
    for (uint32_t i = 0; i < np; i++) cp[i].sType = RS_ST_COOPMAT_PROPERTIES_KHR;
    int found = 0;
    if (props(pd, &np, cp) == VK_SUCCESS)
        for (uint32_t i = 0; i < np; i++) {
            if (cp[i].M != 16 || cp[i].N != 16 || cp[i].K != 16 || cp[i].C != 1 || cp[i].Result != 1 ||
                cp[i].scope != 3 || cp[i].saturating || cp[i].A != cp[i].B)
                continue;
            if (cp[i].A == 0) found |= RS_COOPMAT_KHR_F16;
            if (cp[i].A == RS_COMPONENT_BF16 && has_bf) found |= RS_COOPMAT_KHR_BF16;
        }
    free(cp);
    /* the bfloat16 modules share the float16 ones' requirements */
    return (found & RS_COOPMAT_KHR_F16) ? found : 0;
}

/* DESIGN.md's table: what MoltenVK exposes on M1 to M4. */
static void apply_apple_mask(rs_features *f) {
    f->has_fp64 = 0;
    f->has_atomic_int64 = 0;
    f->has_atomic_float64_add = 0;
    f->has_bf16 = 0;
    f->has_cooperative_matrix = 0;
    f->preserve_infnan &= RS_WIDTH_16 | RS_WIDTH_32;
    f->preserve_denorm = 0;
    if (f->max_shared_memory > 32768) f->max_shared_memory = 32768;
    if (f->max_workgroup_invocations > 1024) f->max_workgroup_invocations = 1024;
    if (f->max_push_constants > 128) f->max_push_constants = 128;
    f->unified_memory = f->unified_memory; /* reported as the device has it */
}

static const char *vendor_name(uint32_t id) {
    switch (id) {
    case 0x10DE: return "NVIDIA";
    case 0x1002: return "AMD";
    case 0x8086: return "Intel";
    case 0x106B: return "Apple";
    case 0x13B5: return "ARM";
    case 0x5143: return "Qualcomm";
    case 0x10005: return "Mesa";
    default: return "unknown";
    }
}

/* Picks the memory type for tensors and a host-visible one for the arena
 * and staging. Integrated GPUs and CPU devices (Apple, lavapipe) share
 * memory with the host: tensors live in device-local, host-visible,
 * coherent memory that the host maps. A discrete GPU may expose its VRAM as
 * host-visible too (resizable BAR), but host reads across PCIe are slow, so
 * there tensors live in plain device-local memory and host transfers are
 * staged through host-cached memory. */
static void choose_memory(rs_device *dev, int discrete) {
    const VkPhysicalDeviceMemoryProperties *mp = &dev->memprops;
    uint64_t best_local = 0;
    for (uint32_t h = 0; h < mp->memoryHeapCount; h++)
        if ((mp->memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) && mp->memoryHeaps[h].size > best_local)
            best_local = mp->memoryHeaps[h].size;
    const VkMemoryPropertyFlags uma = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT |
                                      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                      VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    int dev_type = -1, dev_only = -1, uma_type = -1, host_type = -1, cached_type = -1;
    for (uint32_t t = 0; t < mp->memoryTypeCount; t++) {
        VkMemoryPropertyFlags fl = mp->memoryTypes[t].propertyFlags;
        uint64_t heap = mp->memoryHeaps[mp->memoryTypes[t].heapIndex].size;
        int local = (fl & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT) && heap == best_local;
        if (dev_type < 0 && local) dev_type = (int)t;
        if (dev_only < 0 && local && !(fl & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT)) dev_only = (int)t;
        if (uma_type < 0 && (fl & uma) == uma && heap * 2 >= best_local) uma_type = (int)t;
        if (host_type < 0 && (fl & host) == host) host_type = (int)t;
        if (cached_type < 0 && (fl & (host | VK_MEMORY_PROPERTY_HOST_CACHED_BIT)) ==
                                   (host | VK_MEMORY_PROPERTY_HOST_CACHED_BIT))
            cached_type = (int)t;
    }
    if (!discrete && uma_type >= 0) {
        dev->device_memory_type = (uint32_t)uma_type;
        dev->device_memory_mapped = 1;
    } else {
        int t = dev_only >= 0 ? dev_only : dev_type;
        dev->device_memory_type = (uint32_t)(t >= 0 ? t : 0);
        dev->device_memory_mapped = 0;
    }
    int h = cached_type >= 0 ? cached_type : host_type;
    dev->host_memory_type = (uint32_t)(h >= 0 ? h : (int)dev->device_memory_type);
    dev->info.total_memory = mp->memoryHeaps[mp->memoryTypes[dev->device_memory_type].heapIndex].size;
    dev->info.features.unified_memory = dev->device_memory_mapped;
}

static rs_status fill_info(const rs_candidate *c, int index, rs_device_info *info,
                           VkExtensionProperties **ext_out, uint32_t *next_out) {
    memset(info, 0, sizeof *info);
    info->float16_conversions = -1; /* decided when the device is made (device_checks.c) */
    info->division = -1;
    uint32_t next = 0;
    vkEnumerateDeviceExtensionProperties(c->physical, NULL, &next, NULL);
    VkExtensionProperties *ext = calloc(next ? next : 1, sizeof *ext);
    if (!ext) return rs_error(RS_ERR_OOM, "russet: out of host memory");
    vkEnumerateDeviceExtensionProperties(c->physical, NULL, &next, ext);
    VkPhysicalDeviceProperties props;
    query_features(c->physical, ext, next, &info->features, &props);

    VkPhysicalDeviceDriverProperties drv = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &drv};
    vkGetPhysicalDeviceProperties2(c->physical, &p2);
    snprintf(info->name, sizeof info->name, "%s", props.deviceName);
    snprintf(info->driver, sizeof info->driver, "%s %s", drv.driverName, drv.driverInfo);
    snprintf(info->vendor, sizeof info->vendor, "%s", vendor_name(props.vendorID));
    info->vendor_id = props.vendorID;
    info->device_id = props.deviceID;
    info->api_version = props.apiVersion;
    info->is_cpu = props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
    info->physical_index = c->physical_index;
    info->timestamp_period_ns = props.limits.timestampPeriod;
    info->profile = rs_profile_current();
    (void)index;
    /* timestamps: the first compute queue family must have valid bits */
    uint32_t nq = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(c->physical, &nq, NULL);
    VkQueueFamilyProperties qf[32];
    if (nq > 32) nq = 32;
    vkGetPhysicalDeviceQueueFamilyProperties(c->physical, &nq, qf);
    for (uint32_t i = 0; i < nq; i++)
        if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
            info->features.has_timestamps = qf[i].timestampValidBits > 0;
            break;
        }
    if (info->profile == RS_PROFILE_APPLE) apply_apple_mask(&info->features);

    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(c->physical, &mp);
    rs_device tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.memprops = mp;
    tmp.info = *info;
    choose_memory(&tmp, props.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU);
    info->total_memory = tmp.info.total_memory;
    info->features.unified_memory = tmp.info.features.unified_memory;
    if (ext_out) {
        *ext_out = ext;
        *next_out = next;
    } else {
        free(ext);
    }
    return RS_OK;
}

rs_status rs_device_info_get(int index, rs_device_info *out) {
    int n = rs_device_count();
    if (index < 0 || index >= n)
        return rs_error(RS_ERR_NO_DEVICE, "russet: invalid device index %d (%d devices)", index, n);
    pthread_mutex_lock(&g_lock);
    rs_device *dev = g_devices[index];
    pthread_mutex_unlock(&g_lock);
    if (dev) {
        *out = dev->info;
        return RS_OK;
    }
    return fill_info(&g_cands[index], index, out, NULL, NULL);
}

static rs_status create_device(int index, rs_device **out) {
    rs_device *dev = calloc(1, sizeof *dev);
    if (!dev) return rs_error(RS_ERR_OOM, "russet: out of host memory");
    dev->index = index;
    dev->physical = g_cands[index].physical;
    pthread_mutex_init(&dev->queue_lock, NULL);
    pthread_mutex_init(&dev->streams_lock, NULL);
    pthread_mutex_init(&dev->sites_lock, NULL);
    pthread_mutex_init(&dev->alloc.lock, NULL);
    pthread_mutex_init(&dev->kernels.lock, NULL);
    pthread_mutex_init(&dev->tables_lock, NULL);
    pthread_mutex_init(&dev->prof_lock, NULL);

    VkExtensionProperties *ext = NULL;
    uint32_t next = 0;
    rs_status st = fill_info(&g_cands[index], index, &dev->info, &ext, &next);
    if (st) {
        free(dev);
        return st;
    }
    vkGetPhysicalDeviceMemoryProperties(dev->physical, &dev->memprops);
    VkPhysicalDeviceProperties pprops;
    vkGetPhysicalDeviceProperties(dev->physical, &pprops);
    choose_memory(dev, pprops.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU);
    const rs_features *f = &dev->info.features;
    /* never under the apple profile (no cooperative matrices on Apple GPUs) */
    dev->coopmat_khr = dev->info.profile != RS_PROFILE_APPLE ? query_coopmat_khr(dev->physical, ext, next) : 0;

    /* queue: the first family with compute */
    uint32_t nq = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(dev->physical, &nq, NULL);
    VkQueueFamilyProperties qf[32];
    if (nq > 32) nq = 32;
    vkGetPhysicalDeviceQueueFamilyProperties(dev->physical, &nq, qf);
    int family = -1;
    for (uint32_t i = 0; i < nq; i++)
        if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
            family = (int)i;
            break;
        }
    if (family < 0) {
        free(ext);
        rs_status e = rs_error(RS_ERR_NO_DEVICE, "russet: %s has no compute queue", dev->info.name);
        free(dev);
        return e;
    }
    dev->queue_family = (uint32_t)family;
    dev->timestamp_valid_bits = qf[family].timestampValidBits;
    dev->info.features.has_timestamps = dev->timestamp_valid_bits > 0;

    /* enable exactly the effective features: under the apple profile a
     * kernel that uses fp64 fails here too, as it would on a Mac */
    VkPhysicalDeviceShaderAtomicFloatFeaturesEXT af = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_FLOAT_FEATURES_EXT,
        .shaderBufferFloat32AtomicAdd = (VkBool32)f->has_atomic_float32_add,
        .shaderBufferFloat64AtomicAdd = (VkBool32)f->has_atomic_float64_add};
    VkPhysicalDeviceVulkan12Features f12 = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
        .bufferDeviceAddress = VK_TRUE,
        .timelineSemaphore = VK_TRUE,
        .hostQueryReset = VK_FALSE,
        .storageBuffer8BitAccess = (VkBool32)f->has_storage8,
        .shaderInt8 = (VkBool32)f->has_int8,
        .shaderFloat16 = (VkBool32)f->has_fp16,
        .shaderBufferInt64Atomics = (VkBool32)f->has_atomic_int64};
    VkPhysicalDeviceVulkan11Features f11 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES,
                                            .pNext = &f12,
                                            .storageBuffer16BitAccess = (VkBool32)f->has_storage16};
    VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f11};
    f2.features.shaderFloat64 = (VkBool32)f->has_fp64;
    f2.features.shaderInt64 = (VkBool32)f->has_int64;
    f2.features.shaderInt16 = (VkBool32)f->has_int16;
    const char *dext[8];
    uint32_t ndext = 0;
    VkPhysicalDeviceCooperativeMatrixFeaturesNV cmf = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_NV,
        .cooperativeMatrix = VK_TRUE};
    if (f->has_cooperative_matrix) { /* kernels/gemm_coopmat.comp */
        dext[ndext++] = VK_NV_COOPERATIVE_MATRIX_EXTENSION_NAME;
        f12.vulkanMemoryModel = VK_TRUE;
        cmf.pNext = f2.pNext;
        f2.pNext = &cmf;
    }
    rs_coopmat_features_khr kcf = {.sType = RS_ST_COOPMAT_FEATURES_KHR, .cooperativeMatrix = VK_TRUE};
    rs_bf16_features_khr kbf = {.sType = RS_ST_BF16_FEATURES_KHR,
                                .shaderBFloat16Type = VK_TRUE,
                                .shaderBFloat16CooperativeMatrix = VK_TRUE};
    if (dev->coopmat_khr) { /* kernels/gemm_coopmat_khr.comp */
        dext[ndext++] = RS_COOPMAT_KHR_NAME;
        f12.vulkanMemoryModel = VK_TRUE;
        f12.shaderFloat16 = VK_TRUE;
        f11.storageBuffer16BitAccess = VK_TRUE;
        kcf.pNext = f2.pNext;
        f2.pNext = &kcf;
    }
    if (dev->coopmat_khr & RS_COOPMAT_KHR_BF16) {
        dext[ndext++] = RS_BF16_KHR_NAME;
        kbf.pNext = f2.pNext;
        f2.pNext = &kbf;
    }
    dev->exact_math = rs_env_flag("RUSSET_EXACT_MATH", 1);
    /* RUSSET_CONTRACTION=opaque: every float32 scalar product through its
     * bits, for a device that contracts in spite of NoContraction (the H200
     * does in some kernels: docs/gpu-testing.md, seventeenth session). Off
     * by default until the H200 has run with it. */
    const char *ct = getenv("RUSSET_CONTRACTION");
    dev->contraction = ct && strcmp(ct, "opaque") == 0 ? RS_CONTRACT_OPAQUE : RS_CONTRACT_DECORATE;
    /* RUSSET_PIPELINE_STATS=1: the driver's statistics of every pipeline
     * (registers, spills, ...), for bench/gemm_probe.c; off by default, since
     * capturing them may bypass the pipeline cache */
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR pef = {
        .sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
    int want_stats = rs_env_flag("RUSSET_PIPELINE_STATS", 0) &&
                     has_extension(ext, next, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    if (want_stats) {
        VkPhysicalDeviceFeatures2 q = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &pef};
        vkGetPhysicalDeviceFeatures2(dev->physical, &q);
        want_stats = pef.pipelineExecutableInfo == VK_TRUE;
        pef.pNext = NULL;
    }
    if (want_stats) {
        dext[ndext++] = VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME;
        pef.pNext = f2.pNext;
        f2.pNext = &pef;
    }
    if (has_extension(ext, next, "VK_KHR_portability_subset")) dext[ndext++] = "VK_KHR_portability_subset";
    if (f->has_atomic_float32_add || f->has_atomic_float64_add) {
        dext[ndext++] = VK_EXT_SHADER_ATOMIC_FLOAT_EXTENSION_NAME;
        f12.pNext = &af;
    }
    free(ext);
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                   .queueFamilyIndex = dev->queue_family,
                                   .queueCount = 1,
                                   .pQueuePriorities = &prio};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                              .pNext = &f2,
                              .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &qci,
                              .enabledExtensionCount = ndext,
                              .ppEnabledExtensionNames = dext};
    VkResult r = vkCreateDevice(dev->physical, &dci, NULL, &dev->device);
    if (r != VK_SUCCESS) {
        free(dev);
        return rs_vk_error(r, "vkCreateDevice");
    }
    vkGetDeviceQueue(dev->device, dev->queue_family, 0, &dev->queue);
    if (want_stats) {
        dev->exec_props = (PFN_vkGetPipelineExecutablePropertiesKHR)vkGetDeviceProcAddr(
            dev->device, "vkGetPipelineExecutablePropertiesKHR");
        dev->exec_stats = (PFN_vkGetPipelineExecutableStatisticsKHR)vkGetDeviceProcAddr(
            dev->device, "vkGetPipelineExecutableStatisticsKHR");
        dev->exec_irs = (PFN_vkGetPipelineExecutableInternalRepresentationsKHR)vkGetDeviceProcAddr(
            dev->device, "vkGetPipelineExecutableInternalRepresentationsKHR");
        if (!dev->exec_props || !dev->exec_stats || !dev->exec_irs)
            dev->exec_props = NULL, dev->exec_stats = NULL, dev->exec_irs = NULL;
    }

    dev->push_size = f->max_push_constants < 128 ? f->max_push_constants : 128;
    VkPushConstantRange pcr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, dev->push_size};
    VkPipelineLayoutCreateInfo lci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                      .pushConstantRangeCount = 1,
                                      .pPushConstantRanges = &pcr};
    r = vkCreatePipelineLayout(dev->device, &lci, NULL, &dev->layout);
    if (r != VK_SUCCESS) {
        vkDestroyDevice(dev->device, NULL);
        free(dev);
        return rs_vk_error(r, "vkCreatePipelineLayout");
    }
    if ((st = rs_allocator_init(dev)) || (st = rs_hostbuf_create(dev, 64, &dev->error_flag)) ||
        (st = rs_kernels_init(dev))) {
        rs_status keep = st;
        char msg[2048];
        snprintf(msg, sizeof msg, "%s", rs_last_error());
        *out = dev;
        /* tear down what exists; streams are none yet */
        rs_kernels_destroy(dev);
        if (dev->error_flag.buffer) rs_hostbuf_destroy(dev, &dev->error_flag);
        rs_allocator_destroy(dev);
        vkDestroyPipelineLayout(dev->device, dev->layout, NULL);
        vkDestroyDevice(dev->device, NULL);
        free(dev);
        *out = NULL;
        return rs_error(keep, "%s", msg);
    }
    memset(dev->error_flag.host, 0, 64);
    *out = dev;
    rs_f16_check(dev);
    rs_division_check(dev);
    return RS_OK;
}

rs_status rs_device_get(int index, rs_device **out) {
    int n = rs_device_count();
    if (index < 0 || index >= n) {
        if (n == 0) return RS_ERR_NO_DEVICE; /* rs_device_count said why (no device, or a forked child) */
        return rs_error(RS_ERR_NO_DEVICE, "russet: invalid device index %d (%d devices)", index, n);
    }
    pthread_mutex_lock(&g_lock);
    rs_status st = RS_OK;
    if (!g_devices[index]) st = create_device(index, &g_devices[index]);
    if (g_devices[index]) g_started = 1;
    *out = g_devices[index];
    pthread_mutex_unlock(&g_lock);
    return st;
}

const rs_features *rs_device_features(rs_device *dev) { return &dev->info.features; }
int rs_device_index(rs_device *dev) { return dev->index; }

/* ---- the device error flag */

uint64_t rs_device_error_address(rs_device *dev) { return dev->error_flag.address; }

uint32_t rs_device_error_site(rs_device *dev, const char *op_name) {
    /* called for every launch of a checking kernel: a hash lookup */
    uint64_t h = rs_fnv1a(RS_FNV_SEED, op_name, strlen(op_name));
    if (!h) h = 1;
    pthread_mutex_lock(&dev->sites_lock);
    uint32_t id = (uint32_t)(uintptr_t)rs_map_get(&dev->site_ids, h);
    if (id && strcmp(dev->sites[id - 1], op_name) != 0) id = 0; /* a hash collision: scan */
    for (uint32_t i = 0; !id && i < dev->nsites; i++)
        if (strcmp(dev->sites[i], op_name) == 0) id = i + 1;
    if (!id && dev->nsites < RS_MAX_ERROR_SITES) {
        dev->sites[dev->nsites] = strdup(op_name);
        if (dev->sites[dev->nsites]) {
            id = ++dev->nsites;
            rs_map_put(&dev->site_ids, h, (void *)(uintptr_t)id);
        }
    }
    pthread_mutex_unlock(&dev->sites_lock);
    return id;
}

rs_status rs_device_check_error(rs_device *dev) {
    volatile uint32_t *w = dev->error_flag.host;
    uint32_t site = w[0];
    if (!site) return RS_OK;
    uint32_t code = w[1];
    int64_t value;
    memcpy(&value, (const void *)(w + 2), sizeof value);
    w[0] = 0;
    w[1] = 0;
    pthread_mutex_lock(&dev->sites_lock);
    const char *op = (site <= dev->nsites) ? dev->sites[site - 1] : "unknown op";
    char name[256];
    snprintf(name, sizeof name, "%s", op);
    pthread_mutex_unlock(&dev->sites_lock);
    if (code == 1)
        return rs_error(RS_ERR_DEVICE_ASSERT,
                        "russet: device-side assertion in %s: index %lld is out of bounds", name,
                        (long long)value);
    if (code == 2)
        return rs_error(RS_ERR_DEVICE_ASSERT, "ZeroDivisionError (integer division by zero in %s)", name);
    if (code == 3 || code == 4)
        return rs_error(RS_ERR_DEVICE_ASSERT, "%s: all elements of %s should be between 0 and 1", name,
                        code == 3 ? "input" : "target");
    if (code == 7)
        return rs_error(RS_ERR_DEVICE_ASSERT, "%s: offsets must be non-decreasing (a bag ends at %lld, before "
                        "it starts)", name, (long long)value);
    if (code == 8)
        return rs_error(RS_ERR_DEVICE_ASSERT, "%s: Number of elements of source < number of ones in mask", name);
    if (code == 9)
        return rs_error(RS_ERR_DEVICE_ASSERT, "%s: target out of range (a target of %lld)", name, (long long)value);
    if (code == 10)
        return rs_error(RS_ERR_DEVICE_ASSERT, "%s: argument #%lld '%s' is out of range", name, (long long)value,
                        value == 5 ? "is_target" : "target");
    if (code == 11) {
        static const char *const multinomial[4] = {
            "probability tensor contains either `inf`, `nan` or element < 0",
            "invalid multinomial distribution (encountering probability entry < 0)",
            "invalid multinomial distribution (encountering probability entry = infinity or NaN)",
            "invalid multinomial distribution (sum of probabilities <= 0)"};
        return rs_error(RS_ERR_DEVICE_ASSERT, "%s: %s", name, value >= 0 && value < 4 ? multinomial[value] : "?");
    }
    if (code == 12)
        return rs_error(RS_ERR_DEVICE_ASSERT, "%s(): found batch item of length %lld when max length specified "
                        "by padded input is smaller", name, (long long)value);
    if (code == 13)
        return rs_error(RS_ERR_DEVICE_ASSERT, "%s(): final offset should match total_L value (the final "
                        "offset is %lld)", name, (long long)value);
    if (code == 5)
        return rs_error(RS_ERR_DEVICE_ASSERT, "%s: Expected segment_length >= 0 to be true, but got false "
                        "(a segment of length %lld)", name, (long long)value);
    return rs_error(RS_ERR_DEVICE_ASSERT, "russet: device-side assertion in %s (code %u, value %lld)",
                    name, code, (long long)value);
}

rs_status rs_device_wait_idle(rs_device *dev) {
    for (int i = 0; i < RS_MAX_STREAMS; i++) {
        pthread_mutex_lock(&dev->streams_lock);
        rs_stream *s = dev->streams[i];
        pthread_mutex_unlock(&dev->streams_lock);
        if (!s) continue;
        pthread_mutex_lock(&s->lock);
        rs_status st = rs_stream_flush_locked(s);
        uint64_t v = s->submitted;
        pthread_mutex_unlock(&s->lock);
        if (st) return st;
        if ((st = rs_stream_wait_value(s, v))) return st;
    }
    return RS_OK;
}

rs_status rs_device_synchronize(rs_device *dev) {
    atomic_fetch_add_explicit(&dev->host_waits, 1, memory_order_relaxed);
    rs_status st = rs_device_wait_idle(dev);
    return st ? st : rs_device_check_error(dev);
}

static void destroy_device(rs_device *dev) {
    rs_device_wait_idle(dev);
    vkDeviceWaitIdle(dev->device);
    rs_pipeline_cache_save(dev);
    for (int i = 0; i < RS_MAX_STREAMS; i++)
        if (dev->streams[i]) rs_stream_destroy(dev->streams[i]);
    rs_kernels_destroy(dev);
    free(dev->prof_recs);
    rs_hostbuf_destroy(dev, &dev->error_flag);
    rs_allocator_destroy(dev);
    vkDestroyPipelineLayout(dev->device, dev->layout, NULL);
    vkDestroyDevice(dev->device, NULL);
    for (uint32_t i = 0; i < dev->nsites; i++) free(dev->sites[i]);
    rs_map_free(&dev->site_ids);
    pthread_mutex_destroy(&dev->queue_lock);
    pthread_mutex_destroy(&dev->streams_lock);
    pthread_mutex_destroy(&dev->sites_lock);
    pthread_mutex_destroy(&dev->alloc.lock);
    pthread_mutex_destroy(&dev->kernels.lock);
    pthread_mutex_destroy(&dev->tables_lock);
    free(dev);
}

void rs_shutdown(void) {
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < RS_MAX_PHYSICAL; i++) {
        if (g_devices[i]) destroy_device(g_devices[i]);
        g_devices[i] = NULL;
    }
    if (g_instance) vkDestroyInstance(g_instance, NULL);
    g_instance = VK_NULL_HANDLE;
    g_count = 0; /* the physical devices died with the instance */
    g_discovered = 0;
    g_started = 0; /* a child forked from now on starts afresh */
    rs_kernels_forget_dir();
    pthread_mutex_unlock(&g_lock);
}

int rs_device_coopmat_khr(rs_device *dev) { return dev->coopmat_khr; }

int rs_device_hw_f16(rs_device *dev) { return dev->info.float16_conversions > 0; }

uint64_t rs_device_host_waits(rs_device *dev) {
    return (uint64_t)atomic_load_explicit(&dev->host_waits, memory_order_relaxed);
}
