package main

// The commands the README and the guides in docs/ show must run as
// written. Each cyclebench command line in them is parsed by the
// subcommand's own flag set (run with -h after the line's arguments, so
// nothing is measured); those that only read files (compare and cpe on
// files in the repository) are run for real.

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// docCommand is one cyclebench command line found in a markdown file.
type docCommand struct {
	file string   // markdown file, relative to the repository root
	line int      // where the command starts
	text string   // the command line as written
	args []string // the words after "cyclebench" (or "go run ./cmd/cyclebench")
	dir  string   // the directory it runs in, after a cd earlier in its block
	// literal is false when a word holds something a shell would expand
	// ($VAR, $(...)): such a line is parsed but never run.
	literal bool
}

// TestDocCommands fails when README.md or a markdown file under docs/
// names a subcommand or a flag that does not exist, gives a flag a value
// it refuses, or shows a compare or cpe of files in the repository that
// does not succeed.
func TestDocCommands(t *testing.T) {
	t.Chdir(filepath.Join("..", "..")) // the docs' commands run from the repository root
	files := []string{"README.md"}
	err := filepath.WalkDir("docs", func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".md") {
			files = append(files, filepath.ToSlash(path))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var cmds []docCommand
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, docCommands(f, string(b))...)
	}
	// The README alone shows about twenty; fewer in all means the extraction broke.
	if len(cmds) < 20 {
		t.Fatalf("found %d cyclebench commands in %v, want at least 20", len(cmds), files)
	}
	for _, c := range cmds {
		t.Run(fmt.Sprintf("%s:%d", c.file, c.line), func(t *testing.T) {
			help, err := parseDocCommand(c)
			if err == nil && c.literal {
				var ran bool
				ran, err = runFileCommand(c, help)
				if ran {
					t.Logf("ran %s", c.text)
				}
			}
			if err != nil {
				t.Errorf("%s:%d: %s\n\t%v", c.file, c.line, c.text, err)
			}
		})
	}
}

// parseDocCommand parses c's arguments with its subcommand's flag set,
// measuring nothing, and returns the subcommand's help.
func parseDocCommand(c docCommand) (string, error) {
	// Two -h: should the line end in a flag that wants a value, the first
	// -h becomes that value and the second still stops before anything
	// is measured; the check below reports the missing value.
	var stdout, stderr bytes.Buffer
	if err := run(append(slices.Clone(c.args), "-h", "-h"), &stdout, &stderr); err != nil {
		return "", err
	}
	help := stdout.String()
	if !strings.Contains(help, "usage: cyclebench") {
		return "", fmt.Errorf("printed no usage for -h:\n%s", help)
	}
	if n := len(c.args); n > 0 {
		last := c.args[n-1]
		if name, ok := strings.CutPrefix(last, "-"); ok && !strings.Contains(name, "=") && takesValue(help)[strings.TrimPrefix(name, "-")] {
			return "", fmt.Errorf("flag %s at the end of the line needs a value", last)
		}
	}
	return help, nil
}

// helpFlag matches a flag as -h lists it: "  -name PLACEHOLDER" or "  -name".
var helpFlag = regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)( \S+)?$`)

// takesValue returns the flags of a subcommand's help, true for those
// that take a value (-h shows a placeholder after them).
func takesValue(help string) map[string]bool {
	m := map[string]bool{}
	for _, sm := range helpFlag.FindAllStringSubmatch(help, -1) {
		m[sm[1]] = m[sm[1]] || sm[2] != ""
	}
	return m
}

// runFileCommand runs c when it is a compare or cpe of files that exist
// in the repository (the fleet recipe's gathering step, fits of saved go
// test output): these read files and measure nothing. -o and -plot write
// into a temporary directory instead of the path in the docs. It reports
// whether it ran c.
func runFileCommand(c docCommand, help string) (bool, error) {
	if len(c.args) == 0 || (c.args[0] != "compare" && c.args[0] != "cpe") {
		return false, nil
	}
	values := takesValue(help)
	tmp, err := os.MkdirTemp("", "doccmd")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(tmp)
	var args []string
	files := 0
	for i := 1; i < len(c.args); i++ {
		a := c.args[i]
		name, isFlag := strings.CutPrefix(a, "-")
		name = strings.TrimPrefix(name, "-")
		switch {
		case a == "--":
			return false, nil // no doc writes this; keep the rule simple
		case isFlag && strings.Contains(name, "="):
			k, v, _ := strings.Cut(name, "=")
			if k == "o" || k == "plot" {
				v = filepath.Join(tmp, filepath.Base(v))
			}
			args = append(args, "-"+k+"="+v)
		case isFlag && values[name] && i+1 < len(c.args):
			v := c.args[i+1]
			if name == "o" || name == "plot" {
				v = filepath.Join(tmp, filepath.Base(v))
			}
			args = append(args, a, v)
			i++
		case isFlag:
			args = append(args, a)
		default:
			paths := []string{filepath.Join(c.dir, a)}
			if strings.ContainsAny(a, "*?[") {
				paths, _ = filepath.Glob(paths[0])
			}
			for _, p := range paths {
				if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
					return false, nil // a file the reader makes, or a package: parsing was the check
				}
			}
			files += len(paths)
			args = append(args, paths...)
		}
	}
	if files == 0 {
		return false, nil
	}
	args = append([]string{c.args[0]}, args...)
	var stdout, stderr bytes.Buffer
	if err := run(args, &stdout, &stderr); err != nil {
		return true, fmt.Errorf("ran as cyclebench %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return true, nil
}

// docCommands returns the cyclebench command lines of a markdown file:
// every line of its sh (shell, bash) blocks, the run steps and script
// lines of its yaml blocks, and its inline code spans that start with
// the command (a span may wrap onto the next line of its paragraph).
func docCommands(file, text string) []docCommand {
	var cmds []docCommand
	var para []string // the lines of the paragraph being read
	paraStart := 0
	flush := func() {
		for _, span := range inlineCode(strings.Join(para, "\n")) {
			if isCommandStart(span.text) {
				cmds = append(cmds, shellCommands(file, paraStart+span.line, []string{span.text})...)
			}
		}
		para = nil
	}
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines); i++ {
		trimmed := strings.TrimSpace(lines[i])
		fence, isFence := fenceOpening(trimmed)
		// A table row is a paragraph of its own: its cells cannot wrap.
		if isFence || trimmed == "" || strings.HasPrefix(trimmed, "|") {
			flush()
		}
		switch {
		case isFence:
			lang := strings.ToLower(strings.TrimSpace(strings.TrimLeft(trimmed, fence[:1])))
			start := i + 1
			for i++; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), fence); i++ {
			}
			body := lines[start:min(i, len(lines))]
			switch lang {
			case "sh", "shell", "bash":
				cmds = append(cmds, shellCommands(file, start+1, body)...)
			case "yaml", "yml":
				for j, l := range body {
					l = strings.TrimSpace(l)
					l = strings.TrimPrefix(l, "- ")
					l = strings.TrimPrefix(l, "run: ")
					if isCommandStart(l) {
						cmds = append(cmds, shellCommands(file, start+j+1, []string{l})...)
					}
				}
			}
		case strings.HasPrefix(trimmed, "|"):
			for _, span := range inlineCode(strings.ReplaceAll(lines[i], `\|`, "|")) {
				if isCommandStart(span.text) {
					cmds = append(cmds, shellCommands(file, i+1, []string{span.text})...)
				}
			}
		case trimmed != "":
			if para == nil {
				paraStart = i + 1
			}
			para = append(para, trimmed)
		}
	}
	flush()
	return cmds
}

// fenceOpening reports whether line opens a fenced code block, and the
// fence that closes it.
func fenceOpening(line string) (string, bool) {
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(line, f) {
			n := len(line) - len(strings.TrimLeft(line, f[:1]))
			return strings.Repeat(f[:1], n), true
		}
	}
	return "", false
}

// codeSpan is an inline code span: its text, with a line break inside it
// turned into a space, and the line of its paragraph it starts on
// (0-based).
type codeSpan struct {
	text string
	line int
}

// inlineCode returns the code spans of a paragraph.
func inlineCode(para string) []codeSpan {
	var spans []codeSpan
	line := 0
	for {
		before, rest, ok := strings.Cut(para, "`")
		if !ok {
			return spans
		}
		line += strings.Count(before, "\n")
		text, after, ok := strings.Cut(rest, "`")
		if !ok {
			return spans
		}
		spans = append(spans, codeSpan{strings.ReplaceAll(text, "\n", " "), line})
		line += strings.Count(text, "\n")
		para = after
	}
}

// isCommandStart reports whether s begins with the cyclebench command.
func isCommandStart(s string) bool {
	return strings.HasPrefix(s, "cyclebench ") || s == "cyclebench" || strings.HasPrefix(s, "go run ./cmd/cyclebench")
}

// shellCommands splits lines of shell (joined at a trailing backslash)
// into simple commands and returns those that run cyclebench. A cd
// earlier in the lines sets the directory of the commands after it.
func shellCommands(file string, firstLine int, lines []string) []docCommand {
	var cmds []docCommand
	dir := "."
	for i := 0; i < len(lines); i++ {
		start, text := i, lines[i]
		for strings.HasSuffix(text, `\`) && i+1 < len(lines) {
			i++
			text = strings.TrimSuffix(text, `\`) + " " + strings.TrimSpace(lines[i])
		}
		for _, sc := range splitShell(text) {
			words := sc.words
			for len(words) > 0 && (isAssignment(words[0]) || slices.Contains([]string{"do", "then", "else", "time", "!", "{", "("}, words[0])) {
				words = words[1:]
			}
			var args []string
			switch {
			case len(words) >= 2 && words[0] == "cd":
				dir = filepath.Join(dir, words[1])
				continue
			case len(words) >= 1 && words[0] == "cyclebench":
				args = words[1:]
			case len(words) >= 3 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/cyclebench":
				args = words[3:]
			default:
				continue
			}
			cmds = append(cmds, docCommand{file: file, line: firstLine + start, text: strings.TrimSpace(text), args: args, dir: dir, literal: sc.literal})
		}
	}
	return cmds
}

func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	return ok && name != "" && !strings.HasPrefix(name, "-") && strings.Trim(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") == ""
}

// simpleCommand is the words of one simple shell command, quotes removed,
// redirections left out.
type simpleCommand struct {
	words   []string
	literal bool // no word holds an expansion ($...)
}

// splitShell splits a line of shell into simple commands at ; & && || |,
// with quotes ('...', "...", \x) removed, redirections (>, >>, <, 2>&1
// and their targets) and a comment left out. It knows enough shell for
// the docs' command lines, not all of it.
func splitShell(line string) []simpleCommand {
	var cmds []simpleCommand
	cur := simpleCommand{literal: true}
	var word strings.Builder
	inWord, redirect := false, false
	endWord := func() {
		if !inWord {
			return
		}
		if redirect {
			redirect = false
		} else {
			cur.words = append(cur.words, word.String())
		}
		word.Reset()
		inWord = false
	}
	endCommand := func() {
		endWord()
		if len(cur.words) > 0 {
			cmds = append(cmds, cur)
		}
		cur = simpleCommand{literal: true}
	}
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case ch == '\'':
			inWord = true
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				j = len(line) - i - 1
			}
			word.WriteString(line[i+1 : i+1+j])
			i += j + 1
		case ch == '"':
			inWord = true
			for i++; i < len(line) && line[i] != '"'; i++ {
				if line[i] == '\\' && i+1 < len(line) && strings.IndexByte(`"\$`+"`", line[i+1]) >= 0 {
					i++
				} else if line[i] == '$' {
					cur.literal = false
				}
				word.WriteByte(line[i])
			}
		case ch == '\\' && i+1 < len(line):
			inWord = true
			i++
			word.WriteByte(line[i])
		case ch == ' ' || ch == '\t':
			endWord()
		case ch == '#' && !inWord:
			endCommand()
			return cmds
		case ch == ';' || ch == '&' || ch == '|':
			if ch == '&' && word.String() == "2>" { // 2>&1
				word.Reset()
				inWord, redirect = false, false
				i++
				continue
			}
			endCommand()
			if i+1 < len(line) && line[i+1] == ch {
				i++
			}
		case ch == '>' || ch == '<':
			if inWord && (word.String() == "2" || word.String() == "1") {
				word.Reset()
				inWord = false
			} else {
				endWord()
			}
			if i+1 < len(line) && line[i+1] == '>' {
				i++
			}
			if i+1 < len(line) && line[i+1] == '&' { // >&2
				i += 2
				continue
			}
			redirect = true
		default:
			if ch == '$' {
				cur.literal = false
			}
			inWord = true
			word.WriteByte(ch)
		}
	}
	endCommand()
	return cmds
}

// TestSplitShell pins down the bit of shell the docs' command lines use.
func TestSplitShell(t *testing.T) {
	tests := []struct {
		line string
		want [][]string
	}{
		{`go run ./cmd/cyclebench run      # the main job`, [][]string{{"go", "run", "./cmd/cyclebench", "run"}}},
		{`cyclebench cpe -bench 'Combine|Psum' -o "a b.json"`, [][]string{{"cyclebench", "cpe", "-bench", "Combine|Psum", "-o", "a b.json"}}},
		{`go test -run '^$' -bench . -count 6 > out.txt`, [][]string{{"go", "test", "-run", "^$", "-bench", ".", "-count", "6"}}},
		{`cd results && cyclebench compare -matrix *.json 2>&1 | tee m.txt`, [][]string{{"cd", "results"}, {"cyclebench", "compare", "-matrix", "*.json"}, {"tee", "m.txt"}}},
		{`for i in 1 2; do cyclebench validate -q; done`, [][]string{{"for", "i", "in", "1", "2"}, {"do", "cyclebench", "validate", "-q"}, {"done"}}},
		{`cyclebench run -o r.json 2>/dev/null || true`, [][]string{{"cyclebench", "run", "-o", "r.json"}, {"true"}}},
	}
	for _, tt := range tests {
		var got [][]string
		for _, c := range splitShell(tt.line) {
			got = append(got, c.words)
		}
		if fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("splitShell(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
	if c := splitShell(`cyclebench run -o "$NODE.json"`); c[0].literal {
		t.Errorf("a word with $ should not be literal")
	}
}

// TestDocCommandsCatch: the check fails on a subcommand or flag that does
// not exist, a refused value and a flag without its value, and passes a
// correct line.
func TestDocCommandsCatch(t *testing.T) {
	md := "```sh\n" +
		"cyclebench run -bench AddChain -count 3\n" +
		"cyclebench rnu\n" +
		"cyclebench run -no-such-flag\n" +
		"cyclebench run -mode fast\n" +
		"cyclebench compare a.json b.json -o\n" +
		"```\n\n" +
		"A span that wraps, `cyclebench run -bench\n" +
		"AddChain -no-such-flag`, is one command.\n\n" +
		"| a table | `cyclebench rnu` |\n"
	cmds := docCommands("x.md", md)
	if len(cmds) != 7 {
		t.Fatalf("found %d commands, want 7: %v", len(cmds), cmds)
	}
	if c := cmds[5]; c.line != 9 || strings.Join(c.args, " ") != "run -bench AddChain -no-such-flag" {
		t.Errorf("wrapped span: line %d, args %q; want line 9, run -bench AddChain -no-such-flag", c.line, c.args)
	}
	for i, c := range cmds {
		_, err := parseDocCommand(c)
		if ok := err == nil; ok != (i == 0) {
			t.Errorf("line %d (%s): parsed ok = %v (%v), want %v", c.line, c.text, ok, err, i == 0)
		}
	}
}

// TestReadmeConvergedRule fails when README.md no longer says when a
// result converges as run -h says it (convergedRule).
func TestReadmeConvergedRule(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	oneLine := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	if !strings.Contains(oneLine(string(b)), oneLine(convergedRule)) {
		t.Errorf("README.md does not say when a result converges; want %q", convergedRule)
	}
	var out bytes.Buffer
	if err := run([]string{"run", "-h"}, &out, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(oneLine(out.String()), oneLine(convergedRule)) {
		t.Errorf("run -h does not say when a result converges:\n%s", out.String())
	}
}
