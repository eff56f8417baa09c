package clidocs

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Program is one of the repository's commands.
type Program struct {
	// Name is the command's name, as a user types it.
	Name string
	// Package is its main package, relative to the repository root.
	Package string
	// Subcommands tells whether it takes a command first.
	Subcommands bool
}

// Programs are the commands whose help the reference holds, in its order.
var Programs = []Program{
	{"protoavro", "./cmd/protoavro", true},
	{"protoavro-kafka", "./kafka/cmd/protoavro-kafka", true},
	{"protoavro-beam", "./beam/cmd/protoavro-beam", false},
	{"protoc-gen-avro", "./cmd/protoc-gen-avro", false},
}

// Help is the help text of a program or of one of its commands.
type Help struct {
	// Command is the program, or the program and a command
	// ("protoavro encode").
	Command string
	// Text is what "Command -h" prints.
	Text string
}

// Reference is what the programs accept, read from their help.
type Reference struct {
	// Helps are the help texts, each program's followed by its commands'.
	Helps []Help
	// Subcommands are the commands of each program that takes one.
	Subcommands map[string][]string
	// Flags are the flags of each program or program command.
	Flags map[string][]string
}

var (
	// flagRe is a flag as help text writes it.
	flagRe = regexp.MustCompile(`(?:^|[\s\[(|,"'` + "`" + `])(--?[A-Za-z][A-Za-z0-9_.-]*)`)
	// subcommandRe is a command as a program's top-level help lists it.
	subcommandRe = regexp.MustCompile(`(?m)^  ([a-z][a-z0-9-]*)\s{2,}\S`)
)

// Root returns the repository root: the nearest directory above the
// working directory that holds go.work.
func Root() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.work above the working directory")
		}
		dir = parent
	}
}

// Build builds the programs of the repository at root into dir, in the
// workspace of its go.work (so that the nested modules' commands build
// with the library of the checkout).
func Build(root, dir string) error {
	args := []string{"build", "-o", dir + string(filepath.Separator)}
	for _, p := range Programs {
		args = append(args, p.Package)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %w\n%s", err, out)
	}
	return nil
}

// helpEnv is the environment the programs print their help in: a fixed
// one, so that no default read from the environment (a temporary
// directory, a cloud project) makes the reference differ between machines.
var helpEnv = []string{"PATH=/usr/bin:/bin", "HOME=/nonexistent", "TMPDIR=/tmp", "LANG=C"}

// help runs the program at path as name with args and -h, and returns what
// it printed on standard output and standard error.
func help(path, name string, args ...string) (string, error) {
	cmd := exec.Command(path, append(args, "-h")...)
	cmd.Args[0] = name // the name the help text shows
	cmd.Env = helpEnv
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return "", fmt.Errorf("%s: %w", name, err)
	}
	if out.Len() == 0 {
		return "", fmt.Errorf("%s %s -h printed nothing", name, strings.Join(args, " "))
	}
	if err != nil {
		return "", fmt.Errorf("%s %s -h: %w\n%s", name, strings.Join(args, " "), err, out.Bytes())
	}
	return out.String(), nil
}

// Collect reads the reference from the help of the programs built into
// bin: each program's, and each of its commands'.
func Collect(bin string) (*Reference, error) {
	ref := &Reference{Subcommands: map[string][]string{}, Flags: map[string][]string{}}
	for _, p := range Programs {
		path := filepath.Join(bin, p.Name)
		top, err := help(path, p.Name)
		if err != nil {
			return nil, err
		}
		ref.Helps = append(ref.Helps, Help{p.Name, top})
		ref.Flags[p.Name] = flagsOf(top)
		if !p.Subcommands {
			continue
		}
		for _, m := range subcommandRe.FindAllStringSubmatch(top, -1) {
			sub := m[1]
			ref.Subcommands[p.Name] = append(ref.Subcommands[p.Name], sub)
			if p.Name == "protoavro" && sub == "kafka" {
				continue // protoavro-kafka's help
			}
			text, err := help(path, p.Name, sub)
			if err != nil {
				return nil, err
			}
			key := p.Name + " " + sub
			ref.Helps = append(ref.Helps, Help{key, text})
			ref.Flags[key] = flagsOf(text)
		}
		if len(ref.Subcommands[p.Name]) == 0 {
			return nil, fmt.Errorf("%s -h lists no commands:\n%s", p.Name, top)
		}
	}
	return ref, nil
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

// Generator is the command that writes the reference.
const Generator = "go run ./internal/cmd/gencli"

// Markdown renders the reference as docs/cli.md: the help of every
// program and command, verbatim.
func Markdown(ref *Reference) []byte {
	var b bytes.Buffer
	b.WriteString("# Command-line reference\n\n")
	fmt.Fprintf(&b, "<!-- Generated by %s from the commands' -h output; do not edit. -->\n\n", Generator)
	b.WriteString("The help of each command, as `-h` prints it. Flags take one dash or two (`-codec` or\n")
	b.WriteString("`--codec`). The guides: [README](../README.md), [Kafka](kafka.md), [Beam](beam.md),\n")
	b.WriteString("[mapping](mapping.md), [limits](limits.md).\n\n")
	for _, h := range ref.Helps {
		level := "##"
		if strings.Contains(h.Command, " ") {
			level = "###"
		}
		fmt.Fprintf(&b, "%s %s\n\n", level, h.Command)
		if h.Command == "protoavro" {
			b.WriteString("`protoavro kafka ARGS` runs `protoavro-kafka ARGS` (below).\n\n")
		}
		b.WriteString("```text\n")
		b.WriteString(strings.TrimRight(h.Text, "\n"))
		b.WriteString("\n```\n\n")
	}
	return append(bytes.TrimRight(b.Bytes(), "\n"), '\n')
}
