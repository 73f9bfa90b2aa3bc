//go:build amd64 && !noasm

#include "textflag.h"

// func addChain(n int) uint64
// n dependent ADDs on AX: 16 per iteration, then one at a time. The loop
// counters (DX, CX) form independent chains that execute in parallel.
TEXT ·addChain(SB), NOSPLIT, $0-16
	MOVQ n+0(FP), CX
	XORL AX, AX
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
	MOVQ AX, ret+8(FP)
	RET

// func imulChain(n int) uint64
// n dependent 64-bit IMULs on AX by the constant in BX.
TEXT ·imulChain(SB), NOSPLIT, $0-16
	MOVQ n+0(FP), CX
	MOVQ $1, AX
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
	MOVQ AX, ret+8(FP)
	RET
