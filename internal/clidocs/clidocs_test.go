package clidocs

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// commands are the programs whose command lines the documents quote.
var commands = []string{"protoavro", "protoavro-kafka", "protoavro-beam", "protoc-gen-avro"}

// withSubcommands are the programs that take a command first.
var withSubcommands = map[string]bool{"protoavro": true, "protoavro-kafka": true}

// reference is what the programs accept: the commands of each, and the
// flags of each program or program command ("protoavro encode").
type reference struct {
	subcommands map[string][]string
	flags       map[string][]string
}

var (
	// commandRe finds a program at the start of a command: at the start of
	// the text or after a space, "$", "(", "|", ";" or "&", and followed by
	// a space or the end (not "cmd/protoavro" nor "protoavro@v0.1.0").
	commandRe = regexp.MustCompile(`(?:^|[\s$(|;&])(` + strings.Join(commands, "|") + `)(?:\s|$)`)
	// flagRe is a flag as help text writes it.
	flagRe = regexp.MustCompile(`(?:^|[\s\[(|,"'` + "`" + `])(--?[A-Za-z][A-Za-z0-9_.-]*)`)
	// subcommandRe is a command as the top-level help lists it.
	subcommandRe = regexp.MustCompile(`(?m)^  ([a-z][a-z0-9-]*)\s{2,}\S`)
	// wordRe is a command named in a document (not a placeholder).
	wordRe   = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
	fenceRe  = regexp.MustCompile("(?ms)^\\s*```[^\\n]*\\n(.*?)^\\s*```")
	inlineRe = regexp.MustCompile("`([^`\\n]+)`")
)

// codeOf returns the code of a Markdown document: its fenced blocks, with
// continued lines joined, and its inline code spans, each with the line it
// is on.
func codeOf(doc string) []snippet {
	var out []snippet
	line := func(off int) int { return strings.Count(doc[:off], "\n") + 1 }
	blocks := fenceRe.FindAllStringSubmatchIndex(doc, -1)
	rest := doc
	for i := len(blocks) - 1; i >= 0; i-- {
		b := blocks[i]
		first := line(b[2])
		lines := strings.Split(doc[b[2]:b[3]], "\n")
		for j := 0; j < len(lines); j++ {
			text, at := lines[j], first+j
			for strings.HasSuffix(strings.TrimRight(text, " "), "\\") && j+1 < len(lines) {
				j++
				text = strings.TrimSuffix(strings.TrimRight(text, " "), "\\") + " " + lines[j]
			}
			out = append(out, snippet{at, text})
		}
		// Blank the block out, so that its backquotes are not inline code.
		rest = rest[:b[0]] + strings.Repeat("\n", strings.Count(rest[b[0]:b[1]], "\n")) + rest[b[1]:]
	}
	for _, m := range inlineRe.FindAllStringSubmatchIndex(rest, -1) {
		out = append(out, snippet{line(m[2]), rest[m[2]:m[3]]})
	}
	return out
}

type snippet struct {
	line int
	text string
}

// check returns a line for every command or flag in the code of doc that
// ref does not have, prefixed with name and the line number.
func check(name, doc string, ref reference) []string {
	var bad []string
	for _, s := range codeOf(doc) {
		locs := commandRe.FindAllStringSubmatchIndex(s.text, -1)
		for _, loc := range locs {
			prog := s.text[loc[2]:loc[3]]
			args := strings.Fields(commandLine(s.text[loc[3]:]))
			if prog == "protoavro" && len(args) > 0 && args[0] == "kafka" {
				prog, args = "protoavro-kafka", args[1:]
			}
			key := prog
			if withSubcommands[prog] && len(args) > 0 && !strings.HasPrefix(args[0], "-") {
				if !wordRe.MatchString(args[0]) {
					continue // a placeholder such as <command>
				}
				if !slices.Contains(ref.subcommands[prog], args[0]) {
					bad = append(bad, fmt.Sprintf("%s:%d: %s has no command %q: %s", name, s.line, prog, args[0], s.text))
					continue
				}
				key = prog + " " + args[0]
				args = args[1:]
			}
			for _, a := range args {
				f, _, _ := strings.Cut(a, "=")
				if !flagRe.MatchString(f) || !strings.HasPrefix(f, "-") {
					continue
				}
				f = strings.TrimRight(f, ".,:;)")
				if !slices.Contains(ref.flags[key], f) && !slices.Contains(ref.flags[key], alternate(f)) {
					bad = append(bad, fmt.Sprintf("%s:%d: %s has no flag %s: %s", name, s.line, key, f, s.text))
				}
			}
		}
	}
	return bad
}

// commandLine returns the arguments of a command that starts text: up to
// the end of the command (a pipe, a redirection, a list operator).
func commandLine(text string) string {
	if i := strings.IndexAny(text, "|;&<>#"); i >= 0 {
		text = text[:i]
	}
	return text
}

// alternate returns a flag with one dash for two, or two for one: Go's
// flag package accepts both.
func alternate(f string) string {
	if strings.HasPrefix(f, "--") {
		return f[1:]
	}
	return "-" + f
}

// flagsOf returns the flags a help text names.
func flagsOf(help string) []string {
	var fs []string
	for _, m := range flagRe.FindAllStringSubmatch(help, -1) {
		fs = append(fs, strings.TrimRight(m[1], ".-"))
	}
	slices.Sort(fs)
	return slices.Compact(fs)
}

// build builds the programs into a temporary directory, in the workspace
// of the repository's go.work, and returns it.
func build(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	cmd := exec.Command("go", "build", "-o", bin+string(filepath.Separator),
		"./cmd/protoavro", "./cmd/protoc-gen-avro", "./kafka/cmd/protoavro-kafka", "./beam/cmd/protoavro-beam")
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// help runs a program with args and -h and returns what it printed.
func help(t *testing.T, bin, prog string, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, prog), append(args, "-h")...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Run() // -h exits 0 or 2, depending on the program
	if out.Len() == 0 {
		t.Fatalf("%s %s -h printed nothing", prog, strings.Join(args, " "))
	}
	return out.String()
}

// referenceOf reads the commands and flags of the programs from their help.
func referenceOf(t *testing.T, bin string) reference {
	ref := reference{subcommands: map[string][]string{}, flags: map[string][]string{}}
	for _, prog := range commands {
		top := help(t, bin, prog)
		ref.flags[prog] = flagsOf(top)
		if !withSubcommands[prog] {
			continue
		}
		for _, m := range subcommandRe.FindAllStringSubmatch(top, -1) {
			sub := m[1]
			ref.subcommands[prog] = append(ref.subcommands[prog], sub)
			if prog == "protoavro" && sub == "kafka" {
				continue // protoavro-kafka's
			}
			ref.flags[prog+" "+sub] = flagsOf(help(t, bin, prog, sub))
		}
		if len(ref.subcommands[prog]) == 0 {
			t.Fatalf("%s -h lists no commands:\n%s", prog, top)
		}
	}
	return ref
}

// TestDocumentedCommandLines checks every command line quoted in README.md
// and docs/*.md against the programs' help.
func TestDocumentedCommandLines(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the four programs")
	}
	ref := referenceOf(t, build(t))
	names, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	names = append([]string{filepath.Join("..", "..", "README.md")}, names...)
	var bad []string
	lines := 0
	for _, name := range names {
		doc, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range codeOf(string(doc)) {
			lines += len(commandRe.FindAllString(s.text, -1))
		}
		bad = append(bad, check(filepath.Base(name), string(doc), ref)...)
	}
	if lines == 0 {
		t.Fatal("no command line found in the documents")
	}
	for _, b := range bad {
		t.Error(b)
	}

	// A document with an invented command and invented flags fails.
	synthetic := "Run\n\n```\nprotoavro encode -m a.B --in x.bin --no-such-flag 1 \\\n  --out y.avro\nprotoavro frobnicate x\n" +
		"protoavro-kafka bridge --brokers h:1 --nope\n```\n\nand `protoavro-beam --input x --invented` or `protoavro schema --json-ish`.\n"
	got := check("synthetic.md", synthetic, ref)
	for _, want := range []string{"no flag --no-such-flag", `no command "frobnicate"`, "no flag --nope", "no flag --invented", "no flag --json-ish"} {
		if !slices.ContainsFunc(got, func(g string) bool { return strings.Contains(g, want) }) {
			t.Errorf("the synthetic document: no error with %q in %q", want, got)
		}
	}
	if len(got) != 5 {
		t.Errorf("the synthetic document: %d errors, want 5: %q", len(got), got)
	}
}
