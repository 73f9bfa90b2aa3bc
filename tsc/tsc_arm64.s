//go:build arm64 && !noasm

#include "textflag.h"

// func cntvct() uint64
TEXT ·cntvct(SB), NOSPLIT, $0-8
	MRS  CNTVCT_EL0, R0
	MOVD R0, ret+0(FP)
	RET

// func cntvctISB() uint64
// ISB before: earlier instructions complete before the read.
// ISB after: later instructions are not fetched before it.
TEXT ·cntvctISB(SB), NOSPLIT, $0-8
	ISB  $15
	MRS  CNTVCT_EL0, R0
	ISB  $15
	MOVD R0, ret+0(FP)
	RET

// func isb()
TEXT ·isb(SB), NOSPLIT, $0-0
	ISB  $15
	RET

// func cntfrq() uint64
TEXT ·cntfrq(SB), NOSPLIT, $0-8
	MRS  CNTFRQ_EL0, R0
	MOVD R0, ret+0(FP)
	RET

// func pairCNTVCT() uint64
TEXT ·pairCNTVCT(SB), NOSPLIT, $0-8
	ISB  $15
	MRS  CNTVCT_EL0, R1
	ISB  $15
	ISB  $15
	MRS  CNTVCT_EL0, R0
	ISB  $15
	SUB  R1, R0, R0
	MOVD R0, ret+0(FP)
	RET
