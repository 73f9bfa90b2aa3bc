//go:build amd64 && !noasm

#include "textflag.h"

// func addChain(x uint64, n int) uint64
// n dependent ADDs on AX, starting from x: 16 per iteration, then one at a time. The loop
// counters (DX, CX) form independent chains that execute in parallel.
TEXT ·addChain(SB), NOSPLIT, $0-24
	MOVQ n+8(FP), CX
	MOVQ x+0(FP), AX
	MOVQ CX, DX
	SHRQ $4, DX
	ANDQ $15, CX
	TESTQ DX, DX
	JZ   addrem
addloop:
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
	JNZ  addloop
addrem:
	TESTQ CX, CX
	JZ   adddone
addone:
	ADDQ $1, AX
	DECQ CX
	JNZ  addone
adddone:
	MOVQ AX, ret+16(FP)
	RET

// func imulChain(x uint64, n int) uint64
// n dependent 64-bit IMULs on AX, starting from x by the constant in BX.
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
