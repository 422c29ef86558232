/*
 * An LD_PRELOAD library that makes a process see this CPU without its VNNI and AVX-512
 * instructions, so that onnxruntime, numpy and OpenCV pick the kernels they pick on an
 * AVX2-only CPU (a laptop of 2015-2020, or the AMD EPYC without VNNI that sessions 46 to 49
 * and 68 to 70 ran on). Why: the detection target (150 ms a 1280x720 frame) is met here on a
 * CPU with VNNI and was missed on one without; without a way to run the other code path on
 * demand, that half of the target went unmeasured for fifty sessions.
 *
 * How: Linux can make the CPUID instruction fault (arch_prctl ARCH_SET_CPUID, on CPUs whose
 * /proc/cpuinfo lists cpuid_fault). The constructor turns faulting on; every CPUID then raises
 * SIGSEGV, and the handler runs the real CPUID with faulting briefly off, clears the feature
 * bits below and steps over the instruction. The setting is inherited by threads and children
 * (an execve clears it, and the preload sets it again). The arithmetic then runs on this
 * machine's cores at their own clock: the figures are those of the AVX2 kernels on this
 * microarchitecture, not of any particular older CPU.
 *
 * Built and used by tools/without-vnni.sh. Once CPUID faults it sets AUGUR_CPUID_MASKED=1 in the
 * environment, which the process's children inherit (they say nothing more) and which the
 * benches' first line reads (vision/environment.py): /proc/cpuinfo still lists the hidden flags.
 */
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <cpuid.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#ifndef ARCH_SET_CPUID
#define ARCH_SET_CPUID 0x1012
#endif

/* Leaf 7, subleaf 0, EBX: AVX512F 16, DQ 17, IFMA 21, PF 26, ER 27, CD 28, BW 30, VL 31. */
static const unsigned LEAF7_EBX_OFF = (1u << 16) | (1u << 17) | (1u << 21) | (1u << 26) |
                                      (1u << 27) | (1u << 28) | (1u << 30) | (1u << 31);
/* Leaf 7, subleaf 0, ECX: AVX512_VBMI 1, VBMI2 6, AVX512_VNNI 11, BITALG 12, VPOPCNTDQ 14. */
static const unsigned LEAF7_ECX_OFF = (1u << 1) | (1u << 6) | (1u << 11) | (1u << 12) |
                                      (1u << 14);
/* Leaf 7, subleaf 0, EDX: 4VNNIW 2, 4FMAPS 3, VP2INTERSECT 8, AMX-BF16 22, AVX512_FP16 23,
 * AMX-TILE 24, AMX-INT8 25. */
static const unsigned LEAF7_EDX_OFF = (1u << 2) | (1u << 3) | (1u << 8) | (1u << 22) |
                                      (1u << 23) | (1u << 24) | (1u << 25);
/* Leaf 7, subleaf 1, EAX: AVX-VNNI 4, AVX512_BF16 5, AVX-IFMA 23. */
static const unsigned LEAF7_1_EAX_OFF = (1u << 4) | (1u << 5) | (1u << 23);
/* Leaf 7, subleaf 1, EDX: AVX-VNNI-INT8 4, AVX-NE-CONVERT 5, AVX-VNNI-INT16 10. */
static const unsigned LEAF7_1_EDX_OFF = (1u << 4) | (1u << 5) | (1u << 10);

static long set_faulting(int faulting) {
    /* ARCH_SET_CPUID takes 1 for "CPUID works" and 0 for "CPUID faults". */
    return syscall(SYS_arch_prctl, ARCH_SET_CPUID, faulting ? 0 : 1);
}

static void masked(unsigned leaf, unsigned sub, unsigned r[4]) {
    if (leaf == 7 && sub == 0) {
        r[1] &= ~LEAF7_EBX_OFF;
        r[2] &= ~LEAF7_ECX_OFF;
        r[3] &= ~LEAF7_EDX_OFF;
    } else if (leaf == 7 && sub == 1) {
        r[0] &= ~LEAF7_1_EAX_OFF;
        r[3] &= ~LEAF7_1_EDX_OFF;
    }
}

static void on_fault(int sig, siginfo_t *info, void *context) {
    ucontext_t *uc = (ucontext_t *)context;
    greg_t *g = uc->uc_mcontext.gregs;
    const unsigned char *ip = (const unsigned char *)g[REG_RIP];
    (void)info;
    if (ip[0] != 0x0f || ip[1] != 0xa2) {
        /* A real fault: let it crash as it would have without us. */
        signal(sig, SIG_DFL);
        return;
    }
    unsigned leaf = (unsigned)g[REG_RAX], sub = (unsigned)g[REG_RCX];
    unsigned r[4];
    set_faulting(0);
    __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
    set_faulting(1);
    masked(leaf, sub, r);
    g[REG_RAX] = r[0];
    g[REG_RBX] = r[1];
    g[REG_RCX] = r[2];
    g[REG_RDX] = r[3];
    g[REG_RIP] += 2;
}

__attribute__((constructor)) static void start(void) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fault;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    const char *said = getenv("AUGUR_CPUID_MASKED");
    if (sigaction(SIGSEGV, &action, NULL) != 0 || set_faulting(1) != 0) {
        /* Running on with the CPU unmasked would measure the wrong thing: stop. */
        fprintf(stderr, "cpuid-mask: this CPU or kernel cannot make CPUID fault "
                        "(no cpuid_fault in /proc/cpuinfo?); nothing was run\n");
        _exit(3);
    }
    if (!(said && *said == '1'))
        fprintf(stderr, "cpuid-mask: AVX-512 and VNNI hidden from this process\n");
    setenv("AUGUR_CPUID_MASKED", "1", 1);
}
