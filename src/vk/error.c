/* Errors: a message per thread, returned with a status, never printed. */
#include <stdio.h>

#include "vk/internal.h"

static _Thread_local char g_message[2048];

rs_status rs_error(rs_status st, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_message, sizeof g_message, fmt, ap);
    va_end(ap);
    return st;
}

const char *rs_last_error(void) { return g_message; }

const char *rs_status_name(rs_status s) {
    switch (s) {
    case RS_OK: return "RS_OK";
    case RS_ERR_VULKAN: return "RS_ERR_VULKAN";
    case RS_ERR_NO_DEVICE: return "RS_ERR_NO_DEVICE";
    case RS_ERR_OOM: return "RS_ERR_OOM";
    case RS_ERR_INVALID: return "RS_ERR_INVALID";
    case RS_ERR_COMPILE: return "RS_ERR_COMPILE";
    case RS_ERR_DEVICE_ASSERT: return "RS_ERR_DEVICE_ASSERT";
    case RS_ERR_UNSUPPORTED: return "RS_ERR_UNSUPPORTED";
    case RS_ERR_IO: return "RS_ERR_IO";
    }
    return "RS_ERR_UNKNOWN";
}

const char *rs_vk_result_name(VkResult r) {
    switch (r) {
#define C(x) case x: return #x;
    C(VK_SUCCESS) C(VK_NOT_READY) C(VK_TIMEOUT) C(VK_INCOMPLETE)
    C(VK_ERROR_OUT_OF_HOST_MEMORY) C(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    C(VK_ERROR_INITIALIZATION_FAILED) C(VK_ERROR_DEVICE_LOST) C(VK_ERROR_MEMORY_MAP_FAILED)
    C(VK_ERROR_LAYER_NOT_PRESENT) C(VK_ERROR_EXTENSION_NOT_PRESENT)
    C(VK_ERROR_FEATURE_NOT_PRESENT) C(VK_ERROR_INCOMPATIBLE_DRIVER)
    C(VK_ERROR_TOO_MANY_OBJECTS) C(VK_ERROR_FORMAT_NOT_SUPPORTED)
    C(VK_ERROR_FRAGMENTED_POOL) C(VK_ERROR_UNKNOWN)
    C(VK_ERROR_INVALID_SHADER_NV) C(VK_ERROR_OUT_OF_POOL_MEMORY)
#undef C
    default: return "VkResult(?)";
    }
}

rs_status rs_vk_error(VkResult r, const char *what) {
    rs_status st = (r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY)
                       ? RS_ERR_OOM : RS_ERR_VULKAN;
    return rs_error(st, "russet: %s failed: %s (%d)", what, rs_vk_result_name(r), (int)r);
}
