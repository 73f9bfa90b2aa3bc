//go:build arm64 && !noasm

#include "textflag.h"

// Each chain runs 16 links per iteration, then one at a time. The loop
// counters (R2, R3) form independent chains.

// func addChain(x uint64, n int) uint64
// n dependent ADDs of a register on R0, starting from x; R1 is loaded from
// memory (addend, 1).
TEXT ·addChain(SB), NOSPLIT, $0-24
	MOVD n+8(FP), R3
	MOVD x+0(FP), R0
	MOVD ·addend(SB), R1
	LSR  $4, R3, R2
	AND  $15, R3, R3
	CBZ  R2, addrem
addloop:
	ADD  R1, R0, R0
	ADD  R1, R0, R0
	ADD  R1, R0, R0
	ADD  R1, R0, R0
	ADD  R1, R0, R0
	ADD  R1, R0, R0
	ADD  R1, R0, R0
	ADD  R1, R0, R0
	ADD  R1, R0, R0
	ADD  R1, R0, R0
	ADD  R1, R0, R0
	ADD  R1, R0, R0
	ADD  R1, R0, R0
	ADD  R1, R0, R0
	ADD  R1, R0, R0
	ADD  R1, R0, R0
	SUB  $1, R2, R2
	CBNZ R2, addloop
addrem:
	CBZ  R3, adddone
addone:
	ADD  R1, R0, R0
	SUB  $1, R3, R3
	CBNZ R3, addone
adddone:
	MOVD R0, ret+16(FP)
	RET

// func addImmChain(x uint64, n int) uint64
// n dependent ADDs of the immediate 1 on R0, starting from x.
TEXT ·addImmChain(SB), NOSPLIT, $0-24
	MOVD n+8(FP), R3
	MOVD x+0(FP), R0
	LSR  $4, R3, R2
	AND  $15, R3, R3
	CBZ  R2, immrem
immloop:
	ADD  $1, R0, R0
	ADD  $1, R0, R0
	ADD  $1, R0, R0
	ADD  $1, R0, R0
	ADD  $1, R0, R0
	ADD  $1, R0, R0
	ADD  $1, R0, R0
	ADD  $1, R0, R0
	ADD  $1, R0, R0
	ADD  $1, R0, R0
	ADD  $1, R0, R0
	ADD  $1, R0, R0
	ADD  $1, R0, R0
	ADD  $1, R0, R0
	ADD  $1, R0, R0
	ADD  $1, R0, R0
	SUB  $1, R2, R2
	CBNZ R2, immloop
immrem:
	CBZ  R3, immdone
immone:
	ADD  $1, R0, R0
	SUB  $1, R3, R3
	CBNZ R3, immone
immdone:
	MOVD R0, ret+16(FP)
	RET

// func imulChain(x uint64, n int) uint64
// n dependent 64-bit MULs on R0, starting from x, by the constant in R1.
TEXT ·imulChain(SB), NOSPLIT, $0-24
	MOVD n+8(FP), R3
	MOVD x+0(FP), R0
	MOVD $0x9E3779B97F4A7C15, R1
	LSR  $4, R3, R2
	AND  $15, R3, R3
	CBZ  R2, mulrem
mulloop:
	MUL  R1, R0, R0
	MUL  R1, R0, R0
	MUL  R1, R0, R0
	MUL  R1, R0, R0
	MUL  R1, R0, R0
	MUL  R1, R0, R0
	MUL  R1, R0, R0
	MUL  R1, R0, R0
	MUL  R1, R0, R0
	MUL  R1, R0, R0
	MUL  R1, R0, R0
	MUL  R1, R0, R0
	MUL  R1, R0, R0
	MUL  R1, R0, R0
	MUL  R1, R0, R0
	MUL  R1, R0, R0
	SUB  $1, R2, R2
	CBNZ R2, mulloop
mulrem:
	CBZ  R3, muldone
mulone:
	MUL  R1, R0, R0
	SUB  $1, R3, R3
	CBNZ R3, mulone
muldone:
	MOVD R0, ret+16(FP)
	RET

// func branchLoop(x uint64, n int) uint64
// n iterations of one taken branch.
TEXT ·branchLoop(SB), NOSPLIT, $0-24
	MOVD n+8(FP), R3
	MOVD x+0(FP), R0
	ADD  R3, R0, R0
branchloop:
	SUB  $1, R3, R3
	CBNZ R3, branchloop
	MOVD R0, ret+16(FP)
	RET

// func wideLoop(x uint64, n int) uint64
// n iterations of eight independent ADDs of R1 (1, from memory) into
// R4 to R11.
TEXT ·wideLoop(SB), NOSPLIT, $0-24
	MOVD n+8(FP), R3
	MOVD ·addend(SB), R1
	MOVD ZR, R4
	MOVD ZR, R5
	MOVD ZR, R6
	MOVD ZR, R7
	MOVD ZR, R8
	MOVD ZR, R9
	MOVD ZR, R10
	MOVD ZR, R11
wideloop:
	ADD  R1, R4, R4
	ADD  R1, R5, R5
	ADD  R1, R6, R6
	ADD  R1, R7, R7
	ADD  R1, R8, R8
	ADD  R1, R9, R9
	ADD  R1, R10, R10
	ADD  R1, R11, R11
	SUB  $1, R3, R3
	CBNZ R3, wideloop
	ADD  R5, R4, R4
	ADD  R6, R4, R4
	ADD  R7, R4, R4
	ADD  R8, R4, R4
	ADD  R9, R4, R4
	ADD  R10, R4, R4
	ADD  R11, R4, R4
	MOVD x+0(FP), R0
	ADD  R4, R0, R0
	MOVD R0, ret+16(FP)
	RET
