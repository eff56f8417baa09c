package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKafkaPlugin runs "protoavro kafka" against an executable
// protoavro-kafka on PATH (a shell script that shows its arguments and
// standard input and exits with the status of its first argument), and
// without one.
func TestKafkaPlugin(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\necho \"args: $*\"\nwhile read -r l; do echo \"$l\"; done\necho oops >&2\nexit \"$1\"\n"
	if err := os.WriteFile(filepath.Join(dir, kafkaPlugin), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	for _, tc := range []struct {
		status string
		want   int
	}{{"0", exitOK}, {"1", exitData}, {"2", exitUsage}} {
		var out, errb bytes.Buffer
		code := run([]string{"kafka", tc.status, "--brokers", "h:1"}, strings.NewReader("from stdin\n"), &out, &errb)
		if code != tc.want {
			t.Errorf("status %s: exit %d, want %d (stderr %q)", tc.status, code, tc.want, errb.String())
		}
		if want := "args: " + tc.status + " --brokers h:1\nfrom stdin\n"; out.String() != want {
			t.Errorf("stdout %q, want %q", out.String(), want)
		}
		if !strings.HasPrefix(errb.String(), "oops\n") {
			t.Errorf("stderr %q", errb.String())
		}
	}

	t.Setenv("PATH", t.TempDir())
	var out, errb bytes.Buffer
	if code := run([]string{"kafka", "bridge"}, strings.NewReader(""), &out, &errb); code != exitUsage {
		t.Errorf("missing plugin: exit %d", code)
	}
	if !strings.Contains(errb.String(), "protoavro-kafka is not installed") {
		t.Errorf("missing plugin: stderr %q", errb.String())
	}
	// Until a version is tagged, the install from a checkout comes first.
	for where, text := range map[string]string{"error": errb.String(), "help": kafkaCommand.usage} {
		checkout := strings.Index(text, "go install ./kafka/cmd/protoavro-kafka")
		tagged := strings.Index(text, "go install github.com/protoavro/protoavro/kafka/cmd/protoavro-kafka@")
		if checkout < 0 || tagged < 0 || checkout > tagged {
			t.Errorf("%s: want the install from a checkout, then by version: %q", where, text)
		}
	}
}

// TestKafkaInstallPath checks that the path the install hint gives from
// the root of a checkout is the protoavro-kafka command.
func TestKafkaInstallPath(t *testing.T) {
	t.Parallel()
	main, err := os.ReadFile(filepath.Join("..", "..", "kafka", "cmd", kafkaPlugin, "main.go"))
	if err != nil || !strings.Contains(string(main), "package main") {
		t.Errorf("kafka/cmd/%s/main.go: %v", kafkaPlugin, err)
	}
}
