/* An LD_PRELOAD library that hides CPU features from a process (ONNX Runtime reads CPUID to
 * choose its kernels, and has no switch of its own). Linux CPUID faulting (arch_prctl
 * ARCH_SET_CPUID 0, /proc/cpuinfo flag `cpuid_fault`) makes every CPUID instruction raise
 * SIGSEGV; the handler runs the real CPUID with faulting off, clears the feature bits of the
 * class asked, and steps over the instruction. The flag is per thread and inherited by the
 * threads created later (the constructor runs before any), and dropped by execve.
 *
 * CPUID_MASK (environment): "avx2" hides AVX-512 (every subset), VNNI (AVX512_VNNI, AVX-VNNI,
 * AVX-VNNI-INT8) and AMX: the kernels of an AVX2-only CPU. "sse" also hides AVX, AVX2, FMA and
 * F16C: the SSE4 kernels. At exit it prints how many CPUIDs it answered (`testkit.kernels`
 * reads the line). Exit code 3 where the kernel cannot fault CPUID.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#define ARCH_SET_CPUID_ 0x1012

static volatile long answered;
static int hide_avx;

static long set_cpuid(int enabled) { return syscall(SYS_arch_prctl, ARCH_SET_CPUID_, enabled); }

static void masked(uint32_t leaf, uint32_t sub, uint32_t *r) {
    if (leaf == 1 && hide_avx) {
        r[2] &= ~((1u << 12) | (1u << 28) | (1u << 29)); /* ECX: FMA, AVX, F16C */
    }
    if (leaf == 7 && sub == 0) {
        /* EBX: AVX512F, DQ, IFMA, PF, ER, CD, BW, VL */
        r[1] &= ~((1u << 16) | (1u << 17) | (1u << 21) | (1u << 26) | (1u << 27) | (1u << 28) |
                  (1u << 30) | (1u << 31));
        if (hide_avx) r[1] &= ~(1u << 5); /* AVX2 */
        /* ECX: AVX512_VBMI, VBMI2, VNNI, BITALG, VPOPCNTDQ */
        r[2] &= ~((1u << 1) | (1u << 6) | (1u << 11) | (1u << 12) | (1u << 14));
        /* EDX: AVX512_4VNNIW, 4FMAPS, VP2INTERSECT, AMX-BF16, AVX512_FP16, AMX-TILE, AMX-INT8 */
        r[3] &= ~((1u << 2) | (1u << 3) | (1u << 8) | (1u << 22) | (1u << 23) | (1u << 24) |
                  (1u << 25));
    }
    if (leaf == 7 && sub == 1) {
        r[0] &= ~((1u << 4) | (1u << 5) | (1u << 23)); /* EAX: AVX-VNNI, AVX512_BF16, AVX-IFMA */
        r[3] &= ~((1u << 4) | (1u << 5) | (1u << 10) | (1u << 19)); /* EDX: AVX-VNNI-INT8, ... */
    }
}

static void on_fault(int sig, siginfo_t *info, void *context) {
    ucontext_t *uc = context;
    greg_t *regs = uc->uc_mcontext.gregs;
    const unsigned char *ip = (const unsigned char *)regs[REG_RIP];
    (void)info;
    if (ip[0] != 0x0f || ip[1] != 0xa2) { /* not CPUID: a real fault, ended as usual */
        signal(sig, SIG_DFL);
        return;
    }
    uint32_t leaf = (uint32_t)regs[REG_RAX], sub = (uint32_t)regs[REG_RCX], r[4];
    set_cpuid(1);
    __asm__ volatile("cpuid" : "=a"(r[0]), "=b"(r[1]), "=c"(r[2]), "=d"(r[3]) : "a"(leaf), "c"(sub));
    set_cpuid(0);
    masked(leaf, sub, r);
    regs[REG_RAX] = r[0];
    regs[REG_RBX] = r[1];
    regs[REG_RCX] = r[2];
    regs[REG_RDX] = r[3];
    regs[REG_RIP] += 2;
    answered++;
}

static void report(void) { fprintf(stderr, "cpuid_mask: answered %ld\n", answered); }

__attribute__((constructor)) static void start(void) {
    const char *mode = getenv("CPUID_MASK");
    hide_avx = mode != NULL && strcmp(mode, "sse") == 0;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fault;
    action.sa_flags = SA_SIGINFO;
    sigaction(SIGSEGV, &action, NULL);
    if (set_cpuid(0) != 0) {
        fprintf(stderr, "cpuid_mask: this kernel or CPU cannot fault CPUID\n");
        _exit(3);
    }
    atexit(report);
}
