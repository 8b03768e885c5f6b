// LD_PRELOAD shim: emulates the VEX-encoded AVX-VNNI instructions (vpdpbusd/vpdpbusds/vpdpwssd/vpdpwssds) in a
// SIGILL handler, for a llama.cpp build made on a CPU that has them, run on one that has AVX512-VNNI only.
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

static const int greg_of[16] = {REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI, REG_RDI,
                                REG_R8,  REG_R9,  REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};
static long count;

static void get_vec(uint8_t *xs, int r, int L, uint8_t *out) {
    memcpy(out, xs + 160 + 16 * r, 16);                 // XMM r in the legacy area
    if (L) memcpy(out + 16, xs + 576 + 16 * r, 16);     // YMM_Hi128 component
    else memset(out + 16, 0, 16);
}

static void handler(int sig, siginfo_t *si, void *uc_) {
    ucontext_t *uc = uc_;
    uint8_t *ip = (uint8_t *)uc->uc_mcontext.gregs[REG_RIP];
    if (ip[0] != 0xC4) { fprintf(stderr, "vnni shim: SIGILL at %p, bytes %02x %02x %02x %02x\n", ip, ip[0], ip[1], ip[2], ip[3]); abort(); }
    uint8_t b1 = ip[1], b2 = ip[2], opc = ip[3], modrm = ip[4];
    if ((b1 & 0x1f) != 2 || (b2 & 3) != 1 || opc < 0x50 || opc > 0x53) {
        fprintf(stderr, "vnni shim: unknown VEX instruction %02x %02x %02x %02x\n", ip[0], b1, b2, opc); abort();
    }
    int R = !(b1 & 0x80), X = !(b1 & 0x40), B = !(b1 & 0x20);
    int vvvv = (~b2 >> 3) & 0xF, L = (b2 >> 2) & 1;
    int mod = modrm >> 6, reg = ((modrm >> 3) & 7) | (R << 3), rm = modrm & 7;
    int len = 5;
    uint8_t *xs = (uint8_t *)uc->uc_mcontext.fpregs;
    // A component in its initial state (XSTATE_BV bit clear) has stale bytes in the frame: make it explicit.
    uint64_t *bv = (uint64_t *)(xs + 512);
    if (!(*bv & 2)) { memset(xs + 160, 0, 256); *bv |= 2; }
    if (!(*bv & 4)) { memset(xs + 576, 0, 256); *bv |= 4; }
    int zmm = (*bv & 64) != 0;
    uint8_t a[32], b[32], d[32];
    get_vec(xs, reg, L, d);
    get_vec(xs, vvvv, L, a);
    if (mod == 3) {
        get_vec(xs, rm | (B << 3), L, b);
    } else {
        uint64_t addr = 0;
        if (rm == 4) { // SIB
            uint8_t sib = ip[5]; len++;
            int scale = sib >> 6, idx = ((sib >> 3) & 7) | (X << 3), base = (sib & 7) | (B << 3);
            if (idx != 4) addr += (uint64_t)uc->uc_mcontext.gregs[greg_of[idx]] << scale;
            if ((sib & 7) == 5 && mod == 0) { addr += (int64_t)*(int32_t *)(ip + len); len += 4; }
            else addr += uc->uc_mcontext.gregs[greg_of[base]];
        } else if (rm == 5 && mod == 0) {
            addr = (uint64_t)(ip + 5 + 4) + *(int32_t *)(ip + 5); len += 4; // RIP-relative: next instruction
        } else {
            addr = uc->uc_mcontext.gregs[greg_of[rm | (B << 3)]];
        }
        if (mod == 1) { addr += *(int8_t *)(ip + len); len += 1; }
        if (mod == 2) { addr += *(int32_t *)(ip + len); len += 4; }
        if (rm == 5 && mod == 0) { /* RIP-relative: the displacement counted from the end of the instruction */
            int64_t disp = *(int32_t *)(ip + 5);
            addr = (uint64_t)(ip + len) + disp;
        }
        memcpy(b, (void *)addr, L ? 32 : 16);
        if (!L) memset(b + 16, 0, 16);
    }
    int n = L ? 8 : 4;
    for (int i = 0; i < n; i++) {
        int32_t acc; memcpy(&acc, d + 4 * i, 4);
        int64_t s = acc;
        if (opc <= 0x51) { // u8 × s8, 4 per dword
            for (int k = 0; k < 4; k++) s += (int32_t)a[4 * i + k] * (int32_t)(int8_t)b[4 * i + k];
        } else {           // s16 × s16, 2 per dword
            for (int k = 0; k < 2; k++) {
                int16_t x, y; memcpy(&x, a + 4 * i + 2 * k, 2); memcpy(&y, b + 4 * i + 2 * k, 2);
                s += (int32_t)x * (int32_t)y;
            }
        }
        if (opc == 0x51 || opc == 0x53) { if (s > INT32_MAX) s = INT32_MAX; if (s < INT32_MIN) s = INT32_MIN; }
        int32_t r = (int32_t)(uint32_t)(uint64_t)s;
        memcpy(d + 4 * i, &r, 4);
    }
    memcpy(xs + 160 + 16 * reg, d, 16);
    memcpy(xs + 576 + 16 * reg, L ? d + 16 : (uint8_t[16]){0}, 16);
    if (zmm) memset(xs + 1152 + 32 * reg, 0, 32);       // ZMM_Hi256: VEX zeroes the upper half
    uc->uc_mcontext.gregs[REG_RIP] += len;
    count++;
}

__attribute__((constructor)) static void install(void) {
    struct sigaction sa = {0};
    sa.sa_sigaction = handler;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGILL, &sa, NULL);
}
__attribute__((destructor)) static void report(void) { if (getenv("VNNI_SHIM_COUNT")) fprintf(stderr, "vnni shim: %ld instructions emulated\n", count); }
