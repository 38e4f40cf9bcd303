/*
 * Counts the bytes a process copies with memcpy/memmove, per call site: what callgrind
 * hides (it counts a `rep movsb` as one instruction however much it copies).
 *
 *   gcc -O2 -shared -fPIC bench/http/tools/memcopies.c -o /tmp/memcopies.so -ldl
 *   LD_PRELOAD=/tmp/memcopies.so target/release/runtime-echo 127.0.0.1:8931 &
 *   kill -USR1 $!    # start counting (after a warm-up)
 *   ...load...
 *   kill -USR2 $!    # write /tmp/memcopies.<pid>: "return-address calls bytes" per site
 *   cp /proc/$!/maps /tmp/memcopies.maps
 *   python3 bench/http/tools/memcopies.py /tmp/memcopies.<pid> /tmp/memcopies.maps REQUESTS
 *
 * Only copies made through the PLT are seen (Rust's are; glibc's own are not). The table is
 * fixed-size and lock-free; sites past its capacity are dropped.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define SLOTS 65536

static struct {
    uintptr_t site;
    uint64_t calls, bytes;
} table[SLOTS];
static volatile sig_atomic_t counting = 0;
static void *(*real_memmove)(void *, const void *, size_t);

static void count(uintptr_t site, size_t bytes) {
    if (!counting) return;
    uintptr_t start = (site * 0x9E3779B97F4A7C15ull) >> 48;
    for (int probe = 0; probe < 64; probe++) {
        size_t slot = (start + probe) & (SLOTS - 1);
        uintptr_t seen = __atomic_load_n(&table[slot].site, __ATOMIC_RELAXED);
        if (seen == 0) {
            uintptr_t empty = 0;
            __atomic_compare_exchange_n(&table[slot].site, &empty, site, 0, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED);
            seen = __atomic_load_n(&table[slot].site, __ATOMIC_RELAXED);
        }
        if (seen == site) {
            __atomic_fetch_add(&table[slot].calls, 1, __ATOMIC_RELAXED);
            __atomic_fetch_add(&table[slot].bytes, bytes, __ATOMIC_RELAXED);
            return;
        }
    }
}

static void start(int signal) {
    (void)signal;
    memset(table, 0, sizeof table);
    counting = 1;
}

static void dump(int signal) {
    (void)signal;
    counting = 0;
    char path[64];
    snprintf(path, sizeof path, "/tmp/memcopies.%d", (int)getpid());
    FILE *out = fopen(path, "w");
    if (!out) return;
    for (size_t slot = 0; slot < SLOTS; slot++)
        if (table[slot].site)
            fprintf(out, "%lx %lu %lu\n", (unsigned long)table[slot].site,
                    (unsigned long)table[slot].calls, (unsigned long)table[slot].bytes);
    fclose(out);
}

__attribute__((constructor)) static void install(void) {
    real_memmove = dlsym(RTLD_NEXT, "memmove");
    signal(SIGUSR1, start);
    signal(SIGUSR2, dump);
}

void *memcpy(void *to, const void *from, size_t bytes) {
    count((uintptr_t)__builtin_return_address(0), bytes);
    return real_memmove(to, from, bytes);
}

void *memmove(void *to, const void *from, size_t bytes) {
    count((uintptr_t)__builtin_return_address(0), bytes);
    return real_memmove(to, from, bytes);
}
