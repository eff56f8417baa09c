package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/protoavro/protoavro/internal/usage"
)

// kafkaPlugin is the program "protoavro kafka ARGS..." runs. It lives in the
// repository's kafka/ module, so that this module does not depend on a Kafka
// client.
const kafkaPlugin = "protoavro-kafka"

// kafkaCommand runs protoavro-kafka (found next to the protoavro binary, or
// on PATH) with the arguments, standard streams and exit status passed
// through.
var kafkaCommand = &command{
	name:    "kafka",
	summary: "Kafka bridge, Schema Registry register/check (runs protoavro-kafka)",
	usage: `Usage: protoavro kafka <bridge|register|check|dev> [arguments]

Runs protoavro-kafka with the arguments: Confluent-framed records, a Schema
Registry, and a protobuf-topic to Avro-topic bridge. protoavro-kafka -h lists
its commands. Until a release is tagged, install it from a checkout of the
repository, in its root directory:

  go install ./kafka/cmd/protoavro-kafka

Once a version is tagged, install it by module path and version:

  go install github.com/protoavro/protoavro/kafka/cmd/protoavro-kafka@latest
`,
	run: runKafka,
}

// findKafkaPlugin returns the path of protoavro-kafka: next to the running
// executable first, then on PATH.
func findKafkaPlugin() (string, error) {
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), kafkaPlugin)
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	p, err := exec.LookPath(kafkaPlugin)
	if err != nil {
		return "", usage.Errorf("kafka: %s is not installed (not next to protoavro, nor on PATH); install it in the root directory "+
			"of a checkout of the repository with: go install ./kafka/cmd/protoavro-kafka "+
			"(once a version is tagged: go install github.com/protoavro/protoavro/kafka/cmd/protoavro-kafka@latest)", kafkaPlugin)
	}
	return p, nil
}

func runKafka(args []string, std stdio) error {
	path, err := findKafkaPlugin()
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(std.ctx, path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = std.in, std.out, std.err
	// An interrupt reaches the plugin as SIGTERM, and it gets time to
	// commit what it has produced.
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = time.Minute
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ee.ExitCode() == exitUsage {
			return usage.Errorf("kafka: %s exited with status %d", kafkaPlugin, ee.ExitCode())
		}
		return fmt.Errorf("kafka: %s exited with status %d", kafkaPlugin, ee.ExitCode())
	}
	if err != nil {
		return fmt.Errorf("kafka: running %s: %w", path, err)
	}
	return nil
}
