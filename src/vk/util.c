/* Hashing, a small open-addressing map (uint64 -> pointer), and reading
 * switches and knobs from the environment. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vk/internal.h"

int rs_env_flag(const char *name, int fallback) {
    const char *e = getenv(name);
    if (!e || !*e) return fallback;
    return strcmp(e, "0") != 0;
}

long long rs_env_int(const char *name, long long fallback, long long lo, long long hi) {
    const char *e = getenv(name);
    if (!e || !*e) return fallback;
    char *end = NULL;
    errno = 0;
    long long v = strtoll(e, &end, 0);
    if (errno || end == e || *end || v < lo || v > hi) return fallback;
    return v;
}

uint64_t rs_fnv1a(uint64_t h, const void *data, size_t n) {
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static size_t slot_of(uint64_t key, size_t cap) {
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (size_t)key & (cap - 1);
}

static int grow(rs_map *m) {
    size_t ncap = m->cap ? m->cap * 2 : 64;
    uint64_t *keys = calloc(ncap, sizeof *keys);
    void **vals = calloc(ncap, sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->keys[i]) continue;
        size_t j = slot_of(m->keys[i], ncap);
        while (keys[j]) j = (j + 1) & (ncap - 1);
        keys[j] = m->keys[i];
        vals[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->cap = ncap;
    return 0;
}

int rs_map_put(rs_map *m, uint64_t key, void *val) {
    if ((m->count + 1) * 4 > m->cap * 3 && grow(m)) return -1;
    size_t i = slot_of(key, m->cap);
    while (m->keys[i] && m->keys[i] != key) i = (i + 1) & (m->cap - 1);
    if (!m->keys[i]) m->count++;
    m->keys[i] = key;
    m->vals[i] = val;
    return 0;
}

void *rs_map_get(const rs_map *m, uint64_t key) {
    if (!m->cap) return NULL;
    size_t i = slot_of(key, m->cap);
    while (m->keys[i]) {
        if (m->keys[i] == key) return m->vals[i];
        i = (i + 1) & (m->cap - 1);
    }
    return NULL;
}

/* Backward-shift deletion keeps probe chains intact without tombstones. */
void *rs_map_remove(rs_map *m, uint64_t key) {
    if (!m->cap) return NULL;
    size_t i = slot_of(key, m->cap);
    while (m->keys[i] && m->keys[i] != key) i = (i + 1) & (m->cap - 1);
    if (!m->keys[i]) return NULL;
    void *val = m->vals[i];
    size_t j = i;
    for (;;) {
        j = (j + 1) & (m->cap - 1);
        if (!m->keys[j]) break;
        size_t home = slot_of(m->keys[j], m->cap);
        /* move j into the hole at i if its home is not in (i, j] */
        if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
            m->keys[i] = m->keys[j];
            m->vals[i] = m->vals[j];
            i = j;
        }
    }
    m->keys[i] = 0;
    m->vals[i] = NULL;
    m->count--;
    return val;
}

void rs_map_free(rs_map *m) {
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}
