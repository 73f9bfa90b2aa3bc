// peers.cc is the Google Benchmark side of bench/peers: the same kernels as
// package kernels, registered as benchmarks, with results written as JSON
// (--benchmark_format=json) for the Go driver to read.
//
// Built by the driver: g++ -O2 -fno-tree-vectorize -o peers_gb peers.cc
// -lbenchmark -lpthread. Usage, after Google Benchmark's own flags:
//
//	peers_gb [--benchmark_...] table          the table's five kernels
//	peers_gb [--benchmark_...] detect A B     ADD chains of A and B links (continued), named A and B
//	peers_gb [--benchmark_...] startup N      one ADD chain of N links (continued)
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

// The chains are the instructions of ../../internal/chain/chain_amd64.s in AT&T
// syntax: register operands only, 16 links per iteration, then one at a time.
// They are assembly so that no compiler can fold or reorder them.
extern "C" uint64_t add_chain(uint64_t x, uint64_t inc, long n);
extern "C" uint64_t imul_chain(uint64_t x, uint64_t mul, long n);
asm(R"(
	.text
	.globl add_chain
	.type add_chain, @function
	.p2align 4
add_chain:
	movq %rdi, %rax
	movq %rdx, %rcx
	shrq $4, %rdx
	andq $15, %rcx
	testq %rdx, %rdx
	jz 2f
1:
	addq %rsi, %rax
	addq %rsi, %rax
	addq %rsi, %rax
	addq %rsi, %rax
	addq %rsi, %rax
	addq %rsi, %rax
	addq %rsi, %rax
	addq %rsi, %rax
	addq %rsi, %rax
	addq %rsi, %rax
	addq %rsi, %rax
	addq %rsi, %rax
	addq %rsi, %rax
	addq %rsi, %rax
	addq %rsi, %rax
	addq %rsi, %rax
	decq %rdx
	jnz 1b
2:
	testq %rcx, %rcx
	jz 4f
3:
	addq %rsi, %rax
	decq %rcx
	jnz 3b
4:
	ret
	.size add_chain, .-add_chain
	.globl imul_chain
	.type imul_chain, @function
	.p2align 4
imul_chain:
	movq %rdi, %rax
	movq %rdx, %rcx
	shrq $4, %rdx
	andq $15, %rcx
	testq %rdx, %rdx
	jz 2f
1:
	imulq %rsi, %rax
	imulq %rsi, %rax
	imulq %rsi, %rax
	imulq %rsi, %rax
	imulq %rsi, %rax
	imulq %rsi, %rax
	imulq %rsi, %rax
	imulq %rsi, %rax
	imulq %rsi, %rax
	imulq %rsi, %rax
	imulq %rsi, %rax
	imulq %rsi, %rax
	imulq %rsi, %rax
	imulq %rsi, %rax
	imulq %rsi, %rax
	imulq %rsi, %rax
	decq %rdx
	jnz 1b
2:
	testq %rcx, %rcx
	jz 4f
3:
	imulq %rsi, %rax
	decq %rcx
	jnz 3b
4:
	ret
	.size imul_chain, .-imul_chain
)");

// The operands are read from volatile globals, as the Go side passes them
// as arguments: their values are unknown to the compiler.
static volatile uint64_t inc = 1;
static volatile uint64_t mul = 0x9E3779B97F4A7C15ull;
static uint64_t sink;

// sum is the realistic kernel, plain C++ as package kernels' Sum is plain Go;
// -fno-tree-vectorize keeps it a scalar loop with one accumulator, as gc
// compiles it (the driver's README shows both loops).
__attribute__((noinline)) static int64_t sum(const int64_t *s, long n) {
	int64_t t = 0;
	for (long i = 0; i < n; i++) t += s[i];
	return t;
}

static std::vector<int64_t> data;

static void AddContinued(benchmark::State &st) {
	long n = st.range(0);
	for (auto _ : st) sink = add_chain(sink, inc, n);
	benchmark::DoNotOptimize(sink);
}
static void AddRestarted(benchmark::State &st) {
	long n = st.range(0);
	for (auto _ : st) sink = add_chain(0, inc, n);
	benchmark::DoNotOptimize(sink);
}
static void ImulContinued(benchmark::State &st) {
	long n = st.range(0);
	for (auto _ : st) sink = imul_chain(sink | 1, mul, n);
	benchmark::DoNotOptimize(sink);
}
static void ImulRestarted(benchmark::State &st) {
	long n = st.range(0);
	for (auto _ : st) sink = imul_chain(3, mul, n);
	benchmark::DoNotOptimize(sink);
}
static void Sum(benchmark::State &st) {
	for (auto _ : st) sink = (uint64_t)sum(data.data(), (long)data.size());
	benchmark::DoNotOptimize(sink);
}

static int usage() {
	std::fprintf(stderr, "peers_gb: usage: peers_gb [--benchmark_...] table | detect A B | startup N\n");
	return 2;
}

static bool parse_len(const char *s, long *n) {
	char *end = nullptr;
	long v = std::strtol(s, &end, 10);
	if (end == s || *end != 0 || v < 1 || v > 100000000) return false;
	*n = v;
	return true;
}

int main(int argc, char **argv) {
	benchmark::Initialize(&argc, argv);
	if (argc < 2) return usage();
	std::string mode = argv[1];
	// The names are the keys of package kernels' table.
	if (mode == "table" && argc == 2) {
		data.resize(1000);
		for (size_t i = 0; i < data.size(); i++) data[i] = (int64_t)(i * 7 + 3);
		benchmark::RegisterBenchmark("add-continued", AddContinued)->Arg(1000);
		benchmark::RegisterBenchmark("add-restarted", AddRestarted)->Arg(1000);
		benchmark::RegisterBenchmark("imul-continued", ImulContinued)->Arg(1000);
		benchmark::RegisterBenchmark("imul-restarted", ImulRestarted)->Arg(1000);
		benchmark::RegisterBenchmark("sum", Sum)->Arg(1000);
	} else if (mode == "detect" && argc == 4) {
		long a, b;
		if (!parse_len(argv[2], &a) || !parse_len(argv[3], &b)) return usage();
		benchmark::RegisterBenchmark("A", AddContinued)->Arg(a);
		benchmark::RegisterBenchmark("B", AddContinued)->Arg(b);
	} else if (mode == "startup" && argc == 3) {
		long n;
		if (!parse_len(argv[2], &n)) return usage();
		benchmark::RegisterBenchmark("startup", AddContinued)->Arg(n);
	} else {
		return usage();
	}
	benchmark::RunSpecifiedBenchmarks();
	benchmark::Shutdown();
	return 0;
}
