//go:build amd64 && !noasm

#include "textflag.h"

// Each chain runs 16 links per iteration, then one at a time. The loop
// counters (DX, CX) form independent chains that execute in parallel.

// func addChain(x uint64, n int) uint64
// n dependent ADDs of a register on AX, starting from x. BX is loaded from
// memory (addend, 1), so no renamer knows its value and every link costs one cycle.
TEXT ·addChain(SB), NOSPLIT, $0-24
	MOVQ n+8(FP), CX
	MOVQ x+0(FP), AX
	MOVQ ·addend(SB), BX
	MOVQ CX, DX
	SHRQ $4, DX
	ANDQ $15, CX
	TESTQ DX, DX
	JZ   addrem
addloop:
	ADDQ BX, AX
	ADDQ BX, AX
	ADDQ BX, AX
	ADDQ BX, AX
	ADDQ BX, AX
	ADDQ BX, AX
	ADDQ BX, AX
	ADDQ BX, AX
	ADDQ BX, AX
	ADDQ BX, AX
	ADDQ BX, AX
	ADDQ BX, AX
	ADDQ BX, AX
	ADDQ BX, AX
	ADDQ BX, AX
	ADDQ BX, AX
	DECQ DX
	JNZ  addloop
addrem:
	TESTQ CX, CX
	JZ   adddone
addone:
	ADDQ BX, AX
	DECQ CX
	JNZ  addone
adddone:
	MOVQ AX, ret+16(FP)
	RET

// func addImmChain(x uint64, n int) uint64
// n dependent ADDs of the immediate 1 on AX, starting from x: folded at rename on
// Golden Cove-class Intel cores (about 0.2 cycles per link), one cycle elsewhere.
TEXT ·addImmChain(SB), NOSPLIT, $0-24
	MOVQ n+8(FP), CX
	MOVQ x+0(FP), AX
	MOVQ CX, DX
	SHRQ $4, DX
	ANDQ $15, CX
	TESTQ DX, DX
	JZ   immrem
immloop:
	ADDQ $1, AX
	ADDQ $1, AX
	ADDQ $1, AX
	ADDQ $1, AX
	ADDQ $1, AX
	ADDQ $1, AX
	ADDQ $1, AX
	ADDQ $1, AX
	ADDQ $1, AX
	ADDQ $1, AX
	ADDQ $1, AX
	ADDQ $1, AX
	ADDQ $1, AX
	ADDQ $1, AX
	ADDQ $1, AX
	ADDQ $1, AX
	DECQ DX
	JNZ  immloop
immrem:
	TESTQ CX, CX
	JZ   immdone
immone:
	ADDQ $1, AX
	DECQ CX
	JNZ  immone
immdone:
	MOVQ AX, ret+16(FP)
	RET

// func imulChain(x uint64, n int) uint64
// n dependent 64-bit IMULs on AX, starting from x, by the constant in BX.
TEXT ·imulChain(SB), NOSPLIT, $0-24
	MOVQ n+8(FP), CX
	MOVQ x+0(FP), AX
	MOVQ $0x9E3779B97F4A7C15, BX
	MOVQ CX, DX
	SHRQ $4, DX
	ANDQ $15, CX
	TESTQ DX, DX
	JZ   mulrem
mulloop:
	IMULQ BX, AX
	IMULQ BX, AX
	IMULQ BX, AX
	IMULQ BX, AX
	IMULQ BX, AX
	IMULQ BX, AX
	IMULQ BX, AX
	IMULQ BX, AX
	IMULQ BX, AX
	IMULQ BX, AX
	IMULQ BX, AX
	IMULQ BX, AX
	IMULQ BX, AX
	IMULQ BX, AX
	IMULQ BX, AX
	IMULQ BX, AX
	DECQ DX
	JNZ  mulloop
mulrem:
	TESTQ CX, CX
	JZ   muldone
mulone:
	IMULQ BX, AX
	DECQ CX
	JNZ  mulone
muldone:
	MOVQ AX, ret+16(FP)
	RET

// func branchLoop(x uint64, n int) uint64
// n iterations of one taken branch (DECQ and JNZ fuse into one uop).
TEXT ·branchLoop(SB), NOSPLIT, $0-24
	MOVQ n+8(FP), CX
	MOVQ x+0(FP), AX
	ADDQ CX, AX
branchloop:
	DECQ CX
	JNZ  branchloop
	MOVQ AX, ret+16(FP)
	RET

// func wideLoop(x uint64, n int) uint64
// n iterations of eight independent ADDs of BX (1, from memory) into
// AX, DX, SI, DI, R8, R9, R10, R11.
TEXT ·wideLoop(SB), NOSPLIT, $0-24
	MOVQ n+8(FP), CX
	MOVQ ·addend(SB), BX
	XORQ AX, AX
	XORQ DX, DX
	XORQ SI, SI
	XORQ DI, DI
	XORQ R8, R8
	XORQ R9, R9
	XORQ R10, R10
	XORQ R11, R11
wideloop:
	ADDQ BX, AX
	ADDQ BX, DX
	ADDQ BX, SI
	ADDQ BX, DI
	ADDQ BX, R8
	ADDQ BX, R9
	ADDQ BX, R10
	ADDQ BX, R11
	DECQ CX
	JNZ  wideloop
	ADDQ DX, AX
	ADDQ SI, AX
	ADDQ DI, AX
	ADDQ R8, AX
	ADDQ R9, AX
	ADDQ R10, AX
	ADDQ R11, AX
	ADDQ x+0(FP), AX
	MOVQ AX, ret+16(FP)
	RET
