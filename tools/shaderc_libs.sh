#!/usr/bin/env bash
# Prints the linker flags that make libshaderc's C API link on this system.
# Debian 12's libshaderc.so leaves glslang's symbols undefined, so there
# the static shaderc_combined and glslang libraries are linked instead; other systems (Debian 13,
# Homebrew) ship a shaderc that links alone. Tries each candidate in turn.
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/t.c" <<'C'
#include <shaderc/shaderc.h>
#include <string.h>
int main(void) {
    const char *src = "#version 450\nlayout(local_size_x = 1) in;\nvoid main() {}\n";
    shaderc_compiler_t c = shaderc_compiler_initialize();
    shaderc_compilation_result_t r =
        shaderc_compile_into_spv(c, src, strlen(src), shaderc_compute_shader, "probe", "main", 0);
    int ok = shaderc_result_get_compilation_status(r) == shaderc_compilation_status_success;
    shaderc_result_release(r);
    shaderc_compiler_release(c);
    return ok ? 0 : 1;
}
C
pc=$(pkg-config --libs shaderc 2>/dev/null || echo -lshaderc)
glslang="-lglslang -lMachineIndependent -lGenericCodeGen -lOSDependent -lOGLCompiler -lHLSL -lSPIRV -lSPIRV-Tools-opt -lSPIRV-Tools -lglslang-default-resource-limits -lstdc++ -lpthread -lm"
for libs in "$pc" "-lshaderc_shared" "-lshaderc_combined $glslang"; do
    if ${CC:-cc} "$tmp/t.c" -o "$tmp/t" $libs >/dev/null 2>&1 && "$tmp/t"; then
        echo "$libs"
        exit 0
    fi
done
echo "$pc"
