// vnni.c: an LD_PRELOAD shim that runs ../shared/bin/llama-native on a CPU without AVX-VNNI (AMD Zen 4 has
// AVX512-VNNI but not its VEX form). The native build's quantized dot products use the VEX-encoded vpdpbusd;
// each one traps (SIGILL) and this handler performs it on the saved registers and steps over it. Only vpdpbusd
// (u8 × s8, four per 32-bit lane, wrapping) is emulated: it is the only VEX-VNNI instruction libggml-cpu uses.
// Build: gcc -O2 -shared -fPIC vnni.c -o vnni.so
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

static const int gregs[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
                              REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};

// The XSAVE frame (standard form): XMM r at 160+16r, bits 128–255 of YMM r at 576+16r, bits 256–511 of ZMM r
// at 1152+32r, XSTATE_BV at 512.
enum { XMM = 160, YMM_HI = 576, ZMM_HI = 1152, XSTATE_BV = 512 };

static void load(uint8_t *xs, int r, int wide, uint8_t *v) {
    memcpy(v, xs + XMM + 16 * r, 16);
    memcpy(v + 16, wide ? xs + YMM_HI + 16 * r : (uint8_t[16]){0}, 16);
}

static void fail(const uint8_t *ip, const char *why) {
    fprintf(stderr, "vnni.so: %s at %p: %02x %02x %02x %02x %02x\n", why, (void *)ip, ip[0], ip[1], ip[2], ip[3], ip[4]);
    abort();
}

static void handler(int sig, siginfo_t *si, void *ctx) {
    (void)sig, (void)si;
    ucontext_t *uc = ctx;
    greg_t *g = uc->uc_mcontext.gregs;
    const uint8_t *ip = (const uint8_t *)g[REG_RIP];
    // VEX3: c4 [R̄ X̄ B̄ mmmmm=0F38] [W v̄vvv L pp=66] 50 modrm
    if (ip[0] != 0xc4 || (ip[1] & 0x1f) != 2 || (ip[2] & 3) != 1 || ip[3] != 0x50) fail(ip, "not a VEX vpdpbusd");
    int R = !(ip[1] & 0x80), B = !(ip[1] & 0x20), wide = (ip[2] >> 2) & 1, src1 = (~ip[2] >> 3) & 15;
    int modrm = ip[4], mod = modrm >> 6, dst = ((modrm >> 3) & 7) | R << 3, rm = modrm & 7, len = 5;
    uint8_t *xs = (uint8_t *)uc->uc_mcontext.fpregs;
    uint64_t *bv = (uint64_t *)(xs + XSTATE_BV);
    if (!(*bv & 2)) memset(xs + XMM, 0, 256), *bv |= 2; // a component in its initial state is not in the frame
    if (!(*bv & 4)) memset(xs + YMM_HI, 0, 256), *bv |= 4;
    uint8_t d[32], a[32], b[32];
    load(xs, dst, wide, d);
    load(xs, src1, wide, a);
    if (mod == 3) {
        load(xs, rm | B << 3, wide, b);
    } else {
        if (rm == 4 || (mod == 0 && rm == 5)) fail(ip, "an addressing form this shim does not decode");
        uint64_t addr = g[gregs[rm | B << 3]];
        if (mod == 1) addr += *(const int8_t *)(ip + 5), len += 1;
        if (mod == 2) addr += *(const int32_t *)(ip + 5), len += 4;
        memset(b, 0, 32);
        memcpy(b, (const void *)addr, wide ? 32 : 16);
    }
    for (int i = 0; i < (wide ? 8 : 4); i++) {
        uint32_t acc;
        memcpy(&acc, d + 4 * i, 4);
        for (int k = 0; k < 4; k++) acc += (uint32_t)((int32_t)a[4 * i + k] * (int32_t)(int8_t)b[4 * i + k]);
        memcpy(d + 4 * i, &acc, 4);
    }
    if (!wide) memset(d + 16, 0, 16); // VEX zeroes the bits above the destination
    memcpy(xs + XMM + 16 * dst, d, 16);
    memcpy(xs + YMM_HI + 16 * dst, d + 16, 16);
    if (*bv & 0x40) memset(xs + ZMM_HI + 32 * dst, 0, 32);
    g[REG_RIP] += len;
}

__attribute__((constructor)) static void install(void) {
    struct sigaction sa = {0};
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGILL, &sa, NULL);
}
