package results

import "strings"

// variantOf splits a kernel's name (without its size and mode parts, as
// [Name.Base]) into a variant group and the variant, by the first rule
// that applies:
//
//  1. A name with sub-benchmarks is grouped by everything before its last
//     '/': "Sum/one" and "Sum/four" are variants "one" and "four" of
//     group "Sum"; "Combine/Combine4" is variant "Combine4" of "Combine".
//     This is the Go convention for variants of one benchmark
//     (b.Run("four", ...)).
//  2. A name ending in decimal digits after a non-digit is grouped by the
//     stem before them: "Combine4" is variant "4" of group "Combine",
//     "Psum1" variant "1" of "Psum" (the numbered versions of CS:APP's
//     loops, a user's Sum1 … Sum4).
//  3. Any other name ("AddChain", "SortInts") is in no group: ok is
//     false.
//
// A group needs two or more variants measured at the same size to be
// compared; the matrix checks that. Names that merely share a prefix
// ("SumLoop" and "SortInts") are not grouped: prefixes of CamelCase names
// tell nothing about what the code does. variantOf is pure.
func variantOf(kernel string) (group, variant string, ok bool) {
	if i := strings.LastIndexByte(kernel, '/'); i >= 0 {
		if i == 0 || i == len(kernel)-1 {
			return "", "", false
		}
		return kernel[:i], kernel[i+1:], true
	}
	i := len(kernel)
	for i > 0 && kernel[i-1] >= '0' && kernel[i-1] <= '9' {
		i--
	}
	if i == 0 || i == len(kernel) {
		return "", "", false
	}
	return kernel[:i], kernel[i:], true
}
