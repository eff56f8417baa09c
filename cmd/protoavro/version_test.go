package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestVersionCommand(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"version"}, {"--version"}, {"-version"}} {
		r := runCmd(t, args...)
		if r.code != 0 || r.stderr != "" || !strings.HasPrefix(r.stdout, "protoavro ") || !strings.HasSuffix(r.stdout, "\n") ||
			strings.Count(r.stdout, "\n") != 1 {
			t.Errorf("%v: exit code %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
	}
	if r := runCmd(t, "version", "extra"); r.code != 2 || !strings.Contains(r.stderr, `version takes no arguments, got "extra"`) {
		t.Errorf("version extra: exit code %d, stderr %q", r.code, r.stderr)
	}
	if r := runCmd(t, "help", "version"); r.code != 0 || !strings.HasPrefix(r.stdout, "Usage: protoavro version") {
		t.Errorf("help version: exit code %d, stdout %q", r.code, r.stdout)
	}
}

// TestVersionInstalled installs the commands with go install into a
// temporary GOBIN, as README's install section does from a checkout, and
// checks that "protoavro version" prints the module path and the VCS
// revision of the commit it was built from. The go command records the
// revision only in a repository whose .git is a directory, so from a git
// worktree (where .git is a file) the test builds a local clone of HEAD.
func TestVersionInstalled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the commands")
	}
	t.Parallel()
	gitPath, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed: no revision to compare with")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.Command(gitPath, "-C", root, "rev-parse", "HEAD").Output(); err != nil {
		t.Skipf("%s is not a git checkout: %v", root, err)
	}
	src := root
	if st, err := os.Stat(filepath.Join(root, ".git")); err != nil || !st.IsDir() {
		src = filepath.Join(t.TempDir(), "src")
		if out, err := exec.Command(gitPath, "clone", "--quiet", "--no-hardlinks", root, src).CombinedOutput(); err != nil {
			t.Fatalf("git clone: %v\n%s", err, out)
		}
	}
	rev, err := exec.Command(gitPath, "-C", src, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	gobin := t.TempDir()
	cmd := exec.Command("go", "install", "./cmd/...")
	cmd.Dir = src
	cmd.Env = append(os.Environ(), "GOBIN="+gobin, "GOFLAGS=-buildvcs=true")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go install ./cmd/...: %v\n%s", err, out)
	}
	out, err := exec.Command(filepath.Join(gobin, "protoavro"), "version").CombinedOutput()
	if err != nil {
		t.Fatalf("protoavro version: %v\n%s", err, out)
	}
	want := regexp.MustCompile(`^protoavro github\.com/protoavro/protoavro \S+ \(revision ` + strings.TrimSpace(string(rev)) + `, \d{4}-\d\d-\d\dT[^)]*\) go\d`)
	if !want.Match(out) {
		t.Errorf("protoavro version printed %q, want the module and revision %s", out, strings.TrimSpace(string(rev)))
	}
}
