/*
 * An LD_PRELOAD library that makes a process see this CPU without its VNNI and AVX-512
 * instructions, so that onnxruntime, numpy and OpenCV pick the kernels they pick on an
 * AVX2-only CPU (a laptop of 2015-2020, or the AMD EPYC without VNNI that sessions 46 to 49
 * and 68 to 70 ran on). Why: the detection target (150 ms a 1280x720 frame) is met here on a
 * CPU with VNNI and was missed on one without; without a way to run the other code path on
 * demand, that half of the target went unmeasured from session 49 to session 108.
 *
 * How: Linux can make the CPUID instruction fault (arch_prctl ARCH_SET_CPUID, on CPUs whose
 * /proc/cpuinfo lists cpuid_fault). The constructor turns faulting on; every CPUID then raises
 * SIGSEGV, and the handler runs the real CPUID with faulting briefly off, clears the feature
 * bits below and steps over the instruction. The setting is inherited by threads and children
 * (an execve clears it, and the preload sets it again). The arithmetic then runs on this
 * machine's cores at their own clock: the figures are those of the AVX2 kernels on this
 * microarchitecture, not of any particular older CPU.
 *
 * A program may install a SIGSEGV handler of its own (Python's faulthandler, which pytest turns on,
 * does): the library keeps its own handler installed, hands the program's to it as if it were
 * the one in place (sigaction and signal are wrapped for SIGSEGV alone), and passes every fault
 * that is not a CPUID on to it, so that such a program still dumps and dies as it would have.
 *
 * Built and used by tools/without-vnni.sh. Once CPUID faults it sets AUGUR_CPUID_MASKED in the
 * environment ("all", or "avx512" with AVX-VNNI kept), which the process's children inherit (they
 * say nothing more) and which the benches' first line reads (vision/environment.py):
 * /proc/cpuinfo still lists the hidden flags.
 */
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <cpuid.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

/* The mark left in the environment: vision/environment.py's MASKED_ENV (the tests check they agree). */
#define MASKED_ENV "AUGUR_CPUID_MASKED"

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
/* Leaf 7, subleaf 1, EDX: AVX-VNNI-INT8 4, AVX-NE-CONVERT 5, AVX-VNNI-INT16 10, AVX10 19 (which
 * promises AVX-512 by another name). */
static const unsigned LEAF7_1_EDX_OFF = (1u << 4) | (1u << 5) | (1u << 10) | (1u << 19);

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);

static int installed;                  /* our handler is in place: SIGSEGV is the program's in name only */
static struct sigaction program;       /* the SIGSEGV action the program believes is installed */

static sigaction_fn real_sigaction(void) {
    static sigaction_fn real;
    if (!real)
        real = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
    return real;
}

int sigaction(int sig, const struct sigaction *act, struct sigaction *old) {
    if (sig != SIGSEGV || !installed)
        return real_sigaction()(sig, act, old);
    if (old)
        *old = program;
    if (act)
        program = *act;
    return 0;
}

sighandler_t signal(int sig, sighandler_t handler) {
    struct sigaction act, old;
    memset(&act, 0, sizeof act);
    act.sa_handler = handler;
    act.sa_flags = SA_RESTART;          /* glibc's signal() keeps BSD semantics */
    sigemptyset(&act.sa_mask);
    if (sigaction(sig, &act, &old) != 0)
        return SIG_ERR;
    return old.sa_handler;              /* the same word as sa_sigaction (a union) */
}

static long set_faulting(int faulting) {
    /* ARCH_SET_CPUID takes 1 for "CPUID works" and 0 for "CPUID faults". */
    return syscall(SYS_arch_prctl, ARCH_SET_CPUID, faulting ? 0 : 1);
}

/* AVX-VNNI (256-bit, leaf 7.1 EAX bit 4): kept with AUGUR_CPUID_KEEP_AVX_VNNI=1, as on the
 * Intel laptop CPUs of 2021 on that have it without AVX-512. */
static const unsigned AVX_VNNI = 1u << 4;
static int keep_avx_vnni;

static void masked(unsigned leaf, unsigned sub, unsigned r[4]) {
    if (leaf == 7 && sub == 0) {
        r[1] &= ~LEAF7_EBX_OFF;
        r[2] &= ~LEAF7_ECX_OFF;
        r[3] &= ~LEAF7_EDX_OFF;
    } else if (leaf == 7 && sub == 1) {
        r[0] &= ~(keep_avx_vnni ? LEAF7_1_EAX_OFF & ~AVX_VNNI : LEAF7_1_EAX_OFF);
        r[3] &= ~LEAF7_1_EDX_OFF;
    }
}

static void on_fault(int sig, siginfo_t *info, void *context) {
    ucontext_t *uc = (ucontext_t *)context;
    greg_t *g = uc->uc_mcontext.gregs;
    const unsigned char *ip = (const unsigned char *)g[REG_RIP];
    if (ip[0] != 0x0f || ip[1] != 0xa2) {
        /* A real fault: the program's handler has it, or it ends the process as it would have. */
        if (program.sa_flags & SA_SIGINFO) {
            program.sa_sigaction(sig, info, context);
        } else if (program.sa_handler != SIG_DFL && program.sa_handler != SIG_IGN) {
            program.sa_handler(sig);
        } else {
            struct sigaction dfl;
            memset(&dfl, 0, sizeof dfl);
            dfl.sa_handler = SIG_DFL;
            installed = 0;
            real_sigaction()(SIGSEGV, &dfl, NULL);   /* returning re-runs the instruction: it dies */
        }
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
    action.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    const char *said = getenv(MASKED_ENV);
    const char *keep = getenv("AUGUR_CPUID_KEEP_AVX_VNNI");
    keep_avx_vnni = keep && *keep == '1';
    if (real_sigaction()(SIGSEGV, &action, &program) != 0 || set_faulting(1) != 0) {
        /* Running on with the CPU unmasked would measure the wrong thing: stop. */
        fprintf(stderr, "cpuid-mask: this CPU or kernel cannot make CPUID fault "
                        "(no cpuid_fault in /proc/cpuinfo?); nothing was run\n");
        _exit(3);
    }
    installed = 1;
    if (!said)
        fprintf(stderr, keep_avx_vnni ? "cpuid-mask: AVX-512 hidden from this process, AVX-VNNI kept\n"
                                      : "cpuid-mask: AVX-512 and VNNI hidden from this process\n");
    setenv(MASKED_ENV, keep_avx_vnni ? "avx512" : "all", 1);
}
