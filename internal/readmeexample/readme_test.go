package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// fenceRe is a fenced code block of a Markdown document: its language and
// its text.
var fenceRe = regexp.MustCompile("(?ms)^```([a-z]*)\\n(.*?)^```\\n")

// TestREADMEProgram checks that README.md's Go program is main.go, byte
// for byte, and that the output README shows after it (the next fenced
// block) is what the program prints.
func TestREADMEProgram(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	blocks := fenceRe.FindAllStringSubmatch(string(readme), -1)
	var program, output string
	for i, b := range blocks {
		if b[1] == "go" && strings.HasPrefix(b[2], "package main\n") {
			if program != "" {
				t.Fatal("README.md has two Go programs")
			}
			program = b[2]
			if i+1 < len(blocks) {
				output = blocks[i+1][2]
			}
		}
	}
	if program == "" {
		t.Fatal("README.md has no Go program (a go block starting with \"package main\")")
	}
	if program != string(src) {
		t.Errorf("README.md's Go program is not internal/readmeexample/main.go; copy main.go into README.md")
	}
	if got := runMain(t); got != output {
		t.Errorf("the program prints\n%s\nREADME.md shows, in the block after the program,\n%s", got, output)
	}
}

// runMain runs main and returns what it printed on standard output.
func runMain(t *testing.T) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	done := make(chan []byte)
	go func() {
		var b bytes.Buffer
		io.Copy(&b, r)
		done <- b.Bytes()
	}()
	func() {
		defer func() { os.Stdout = stdout }()
		main()
	}()
	w.Close()
	out := <-done
	r.Close()
	return string(out)
}
