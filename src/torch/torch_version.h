// The torch the adapter is compiled against, where CPU's behaviour changed
// between versions (docs/torch-versions.md): RUSSET_TORCH_2_15 is 1 for
// torch 2.15 and later, else 0; RUSSET_TORCH_BEFORE_2_13 is 1 for torch
// 2.12 and older (the H200 image's 2.11), else 0.
#pragma once
#if __has_include(<torch/headeronly/version.h>)
#include <torch/headeronly/version.h>  // TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR
#endif
#if defined(TORCH_VERSION_MAJOR) && (TORCH_VERSION_MAJOR > 2 || TORCH_VERSION_MINOR >= 15)
#define RUSSET_TORCH_2_15 1
#else
#define RUSSET_TORCH_2_15 0
#endif
#if defined(TORCH_VERSION_MAJOR) && TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR < 13
#define RUSSET_TORCH_BEFORE_2_13 1
#else
#define RUSSET_TORCH_BEFORE_2_13 0
#endif
