package clidocs

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

// commands are the programs whose command lines the documents quote.
var commands = func() []string {
	var names []string
	for _, p := range Programs {
		names = append(names, p.Name)
	}
	return names
}()

// withSubcommands are the programs that take a command first.
var withSubcommands = func() map[string]bool {
	m := map[string]bool{}
	for _, p := range Programs {
		m[p.Name] = p.Subcommands
	}
	return m
}()

var (
	// commandRe finds a program at the start of a command: at the start of
	// the text or after a space, "$", "(", "|", ";" or "&", and followed by
	// a space or the end (not "cmd/protoavro" nor "protoavro@v0.1.0").
	commandRe = regexp.MustCompile(`(?:^|[\s$(|;&])(` + strings.Join(commands, "|") + `)(?:\s|$)`)
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
func check(name, doc string, ref *Reference) []string {
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
				if !slices.Contains(ref.Subcommands[prog], args[0]) {
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
				if f == "-h" || f == "-help" || f == "--help" {
					continue // every program takes it (Collect runs it)
				}
				if !slices.Contains(ref.Flags[key], f) && !slices.Contains(ref.Flags[key], alternate(f)) {
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

// documents returns the names of README.md and docs/*.md, but for the
// generated docs/cli.md, which is the help itself.
func documents(t *testing.T) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	names = slices.DeleteFunc(names, func(n string) bool { return filepath.Base(n) == "cli.md" })
	if len(names) < 6 {
		t.Fatalf("docs/*.md: %d documents, want the 6 guides at least: %q", len(names), names)
	}
	return append([]string{filepath.Join("..", "..", "README.md")}, names...)
}

// built is the reference read from the programs' help, built once for the
// tests that need it.
var built = sync.OnceValues(func() (*Reference, error) {
	bin, err := os.MkdirTemp("", "clidocs")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(bin)
	root, err := Root()
	if err != nil {
		return nil, err
	}
	if err := Build(root, bin); err != nil {
		return nil, err
	}
	return Collect(bin)
})

func builtReference(t *testing.T) *Reference {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the four programs")
	}
	ref, err := built()
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

// TestDocumentedCommandLines checks every command line quoted in README.md
// and docs/*.md (but the generated docs/cli.md) against the programs' help,
// and that a document naming a command or flag they lack fails the check.
func TestDocumentedCommandLines(t *testing.T) {
	ref := builtReference(t)
	names := documents(t)
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

// TestCLIReference checks that docs/cli.md is the programs' help as they
// print it now: what "go run ./internal/cmd/gencli" writes.
func TestCLIReference(t *testing.T) {
	ref := builtReference(t)
	got, err := os.ReadFile(filepath.Join("..", "..", "docs", "cli.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := Markdown(ref); !bytes.Equal(got, want) {
		t.Errorf("docs/cli.md is not the programs' help; run %s", Generator)
	}
	for _, p := range Programs {
		if !bytes.Contains(got, []byte("\n## "+p.Name+"\n")) {
			t.Errorf("docs/cli.md has no section for %s", p.Name)
		}
	}
}
