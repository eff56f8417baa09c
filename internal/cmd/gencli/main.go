// Command gencli writes docs/cli.md, the command-line reference, from the
// help (-h) of the repository's commands: protoavro and its commands,
// protoavro-kafka and its commands, protoavro-beam and protoc-gen-avro. The
// usage strings of the commands are the one source of the reference.
//
// Run it from anywhere in the repository:
//
//	go run ./internal/cmd/gencli          # rewrites docs/cli.md
//	go run ./internal/cmd/gencli -check   # fails if docs/cli.md is stale
//
// It builds the four commands in the workspace of go.work (the Go build
// cache makes a rebuild of unchanged commands quick).
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/protoavro/protoavro/internal/clidocs"
)

func main() {
	check := flag.Bool("check", false, "fail if docs/cli.md differs from what would be written, instead of writing it")
	flag.Parse()
	if err := run(*check); err != nil {
		fmt.Fprintln(os.Stderr, "gencli:", err)
		os.Exit(1)
	}
}

func run(check bool) error {
	root, err := clidocs.Root()
	if err != nil {
		return err
	}
	bin, err := os.MkdirTemp("", "gencli")
	if err != nil {
		return err
	}
	defer os.RemoveAll(bin)
	if err := clidocs.Build(root, bin); err != nil {
		return err
	}
	ref, err := clidocs.Collect(bin)
	if err != nil {
		return err
	}
	want := clidocs.Markdown(ref)
	path := filepath.Join(root, "docs", "cli.md")
	if check {
		got, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !bytes.Equal(got, want) {
			return fmt.Errorf("docs/cli.md is stale: run %s", clidocs.Generator)
		}
		return nil
	}
	return os.WriteFile(path, want, 0o644)
}
