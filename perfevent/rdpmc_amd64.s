//go:build linux && amd64 && !noasm

#include "textflag.h"

// func rdpmc(counter uint32) uint64
// LFENCE before the read: earlier instructions have completed locally.
// LFENCE after: no later instruction starts before the read. RDPMC returns
// the counter in EDX:EAX; ECX selects it.
TEXT ·rdpmc(SB), NOSPLIT, $0-16
	MOVL counter+0(FP), CX
	LFENCE
	RDPMC
	LFENCE
	SHLQ $32, DX
	ORQ  DX, AX
	MOVQ AX, ret+8(FP)
	RET
