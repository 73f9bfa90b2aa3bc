package sums_test

import (
	"fmt"

	"example.com/sums"
)

func ExampleSum1() {
	fmt.Println(sums.Sum1([]int64{1, 2, 3, 4, 5}))
	// Output: 15
}

func ExampleSum4() {
	fmt.Println(sums.Sum4([]int64{1, 2, 3, 4, 5}))
	// Output: 15
}
