//go:build amd64 && !noasm

#include "textflag.h"

// func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func lfence()
TEXT ·lfence(SB), NOSPLIT, $0-0
	LFENCE
	RET

// func rdtsc() uint64
TEXT ·rdtsc(SB), NOSPLIT, $0-8
	RDTSC
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, ret+0(FP)
	RET

// func startTSC() uint64
// LFENCE before the read: earlier instructions have completed locally.
// LFENCE after: no later instruction starts before the read.
TEXT ·startTSC(SB), NOSPLIT, $0-8
	LFENCE
	RDTSC
	LFENCE
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, ret+0(FP)
	RET

// func startTSCP() (ticks uint64, aux uint32)
TEXT ·startTSCP(SB), NOSPLIT, $0-12
	LFENCE
	RDTSCP
	LFENCE
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, ticks+0(FP)
	MOVL CX, aux+8(FP)
	RET

// func stopTSCP() (ticks uint64, aux uint32)
// RDTSCP waits for all earlier instructions to execute before reading;
// the LFENCE keeps later instructions from starting before the read.
TEXT ·stopTSCP(SB), NOSPLIT, $0-12
	RDTSCP
	LFENCE
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, ticks+0(FP)
	MOVL CX, aux+8(FP)
	RET

// func pairTSC() uint64
// The start and stop sequences back to back, with no call in between.
TEXT ·pairTSC(SB), NOSPLIT, $0-8
	LFENCE
	RDTSC
	LFENCE
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, BX
	RDTSCP
	LFENCE
	SHLQ $32, DX
	ORQ  DX, AX
	SUBQ BX, AX
	MOVQ AX, ret+0(FP)
	RET
