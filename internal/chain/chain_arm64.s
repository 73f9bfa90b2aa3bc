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
