# russet: the two commands are `make demo` and `make test` (README.md).
# Both set the machine up first (scripts/setup.sh), then build incrementally.

SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
BUILD := build

# ccache: CCACHE_BASEDIR makes paths relative, so a fresh clone hits the cache.
export CCACHE_BASEDIR := $(CURDIR)
export CCACHE_SLOPPINESS := include_file_mtime,include_file_ctime,time_macros
export CCACHE_NOHASHDIR := 1
CCACHE := $(shell command -v ccache 2>/dev/null)
CC := $(CCACHE) gcc
CXX := $(CCACHE) g++

SHADERC_VERSION := $(shell pkg-config --modversion shaderc 2>/dev/null || echo unknown)
COMMON_FLAGS := -O2 -g0 -fPIC -fvisibility=hidden -Wall -Wextra -Wno-unused-parameter -Wno-format-truncation -Iinclude -Isrc
CFLAGS := -std=c11 -D_GNU_SOURCE $(COMMON_FLAGS) -Ikernels -DRS_SHADERC_VERSION='"$(SHADERC_VERSION)"'
SHADERC_LIBS := $(shell CC=gcc bash tools/shaderc_libs.sh)
VK_LIBS := -lvulkan $(SHADERC_LIBS) -lpthread -lm

# ---- the C core (runtime + engines), no torch
CORE_SRC := $(wildcard src/vk/*.c) $(wildcard src/engine/*.c)
KERNEL_FILES := $(shell find kernels -type f \( -name '*.comp' -o -name '*.glsl' -o -name '*.h' -o -name '*.spv' \) | sort)
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/%.o) $(BUILD)/kernels_embedded.o
CORE_LIB := $(BUILD)/librusset_core.a

# ---- the C++ adapter (needs torch from the venv)
ADAPTER_SRC := $(wildcard src/torch/*.cpp src/torch/runtime/*.cpp src/torch/ops/*.cpp src/torch/sparse/*.cpp src/torch/nested/*.cpp src/torch/quantized/*.cpp)
ADAPTER_OBJ := $(ADAPTER_SRC:%.cpp=$(BUILD)/%.o)
EXT := python/russet/_russet.so
# Asked of torch once, on first use (after setup made the venv), and without
# autoloading russet: the half-built package must not be imported by its own build.
TORCH_DIR = $(eval TORCH_DIR := $(shell TORCH_DEVICE_BACKEND_AUTOLOAD=0 $(PY) -c 'import os, torch; print(os.path.dirname(torch.__file__))'))$(TORCH_DIR)
CXXFLAGS = -std=c++17 $(COMMON_FLAGS) -D_GLIBCXX_USE_CXX11_ABI=1 -isystem $(TORCH_DIR)/include
# the profiler plugin includes Kineto's headers, which include each other by bare name
$(BUILD)/src/torch/runtime/profiler.o: CXXFLAGS += -isystem $(TORCH_DIR)/include/kineto
# torch 2.15's headers need C++20 (<=>, concepts, std::bit_width); older
# torch builds as C++17, as before (gcc takes the last -std). Read once
# from torch's version.py (no second import of torch).
TORCH_STD = $(eval TORCH_STD := $(shell $(PY) -c 'import re, sys; v = re.search(r"__version__ = .(\d+)\.(\d+)", open(sys.argv[1]).read()); print("-std=c++20" if (int(v[1]), int(v[2])) >= (2, 15) else "")' $(TORCH_DIR)/version.py))$(TORCH_STD)
$(ADAPTER_OBJ): CXXFLAGS += $(TORCH_STD)

# ---- C tests (ASan + UBSan build of the core)
CTEST_SRC := $(wildcard tests/c/test_*.c)
CTEST_BIN := $(CTEST_SRC:tests/c/%.c=$(BUILD)/tests/%)
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer
ASAN_OBJ := $(CORE_SRC:%.c=$(BUILD)/asan/%.o) $(BUILD)/asan/kernels_embedded.o

.PHONY: all setup build core ctest pytest test demo info bench clean
# keep the sanitizer objects between builds (they are intermediate to make)
.SECONDARY:
all: build

setup:
	@bash scripts/setup.sh

build: setup
	@$(MAKE) --no-print-directory $(EXT) $(CTEST_BIN)

core: $(CORE_LIB)

$(BUILD)/kernels_embedded.c: tools/embed_kernels.py $(KERNEL_FILES)
	@mkdir -p $(@D)
	python3 tools/embed_kernels.py kernels $@

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/kernels_embedded.o: $(BUILD)/kernels_embedded.c
	$(CC) $(CFLAGS) -c $< -o $@

$(CORE_LIB): $(CORE_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/%.o: %.cpp
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) -MMD -MP -c $< -o $@

# the whole core goes into the library: Python calls its C API through ctypes
ifeq ($(shell uname),Darwin)
WHOLE_CORE = -Wl,-force_load,$(CORE_LIB) -undefined dynamic_lookup
else
WHOLE_CORE = -Wl,--whole-archive $(CORE_LIB) -Wl,--no-whole-archive
endif

$(EXT): $(CORE_LIB) $(ADAPTER_OBJ)
	$(CXX) -shared -o $@ $(ADAPTER_OBJ) $(WHOLE_CORE) \
	    -L$(TORCH_DIR)/lib -Wl,-rpath,$(TORCH_DIR)/lib -ltorch_cpu -lc10 $(VK_LIBS)

$(BUILD)/asan/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -MMD -MP -c $< -o $@

$(BUILD)/asan/kernels_embedded.o: $(BUILD)/kernels_embedded.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) -c $< -o $@

$(BUILD)/tests/%: tests/c/%.c tests/c/ctest.h $(ASAN_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(SAN) $< $(ASAN_OBJ) -o $@ $(VK_LIBS)

# The C core's own tests: no Python, no torch; ASan/UBSan/LSan on.
ctest: build
	@bash tests/c/run.sh $(CTEST_BIN)

pytest: build
	RUSSET_PROFILE=$${RUSSET_PROFILE:-apple} $(PY) -m pytest -q tests/python
	RUSSET_PROFILE=$${RUSSET_PROFILE:-apple} $(PY) -m pytest -q tests/conformance

# The README's test command.
test: ctest pytest

# The README's first command.
demo: build
	$(PY) -m russet demo

info: build
	$(PY) -m russet info

bench: build
	$(PY) -m russet bench

clean:
	rm -rf $(BUILD) $(EXT)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
