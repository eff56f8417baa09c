package kafkaconf

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

// maxToken bounds an OAUTHBEARER token read from a file or a command.
const maxToken = 64 << 10

// tokenCommandTimeout bounds a token command's run (a variable for the
// tests).
var tokenCommandTimeout = time.Minute

// tokenCommandWaitDelay bounds how long a token command's run waits, once
// the command is stopped or has exited, for its output to close: a process
// that left the command's process group may hold it.
const tokenCommandWaitDelay = 2 * time.Second

// tokenSource gives OAUTHBEARER's token: a file's content, a command's
// standard output, or a fixed token, read again at each connection.
type tokenSource struct {
	file, command string
	fixed         Secret
}

// check reports a source that is not exactly one of the three.
func (s tokenSource) check() error {
	n := 0
	for _, set := range []bool{s.file != "", s.command != "", s.fixed != ""} {
		if set {
			n++
		}
	}
	if n != 1 {
		return fmt.Errorf("%w: SASL OAUTHBEARER needs one token source: a file (--oauth-token-file, sasl.oauthbearer.token.file), a command (--oauth-token-command, sasl.oauthbearer.token.command) or $%s", ErrConfig, EnvOAuthToken)
	}
	return nil
}

// token returns the token, trimmed of surrounding white space. Its errors
// say where the token was looked for, never what it holds.
func (s tokenSource) token(ctx context.Context) (Secret, error) {
	var b []byte
	switch {
	case s.fixed != "":
		return s.fixed, nil
	case s.file != "":
		f, err := os.Open(s.file)
		if err != nil {
			return "", fmt.Errorf("%w: OAUTHBEARER token file: %w", ErrConfig, err)
		}
		defer f.Close()
		if b, err = io.ReadAll(io.LimitReader(f, maxToken+1)); err != nil {
			return "", fmt.Errorf("%w: OAUTHBEARER token file %s: %w", ErrConfig, s.file, err)
		}
	default:
		cctx, cancel := context.WithTimeout(ctx, tokenCommandTimeout)
		defer cancel()
		cmd := exec.CommandContext(cctx, "sh", "-c", s.command)
		// The command runs in a process group of its own, which a timeout
		// or a cancellation kills whole: killing sh alone would leave its
		// children running and holding the output, and Run waiting on
		// them.
		inOwnGroup(cmd)
		cmd.WaitDelay = tokenCommandWaitDelay
		var out bytes.Buffer
		cmd.Stdout = &limitedWriter{w: &out, left: maxToken + 1}
		cmd.Stderr = os.Stderr
		err := cmd.Run()
		// The command itself may hold a secret: no error quotes it.
		switch {
		case ctx.Err() != nil:
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return "", fmt.Errorf("OAUTHBEARER token command: timed out at the connection's deadline: %w", context.Cause(ctx))
			}
			return "", fmt.Errorf("OAUTHBEARER token command: cancelled: %w", context.Cause(ctx))
		case cctx.Err() != nil:
			return "", fmt.Errorf("%w: OAUTHBEARER token command: timed out after %v: %w", ErrConfig, tokenCommandTimeout, cctx.Err())
		case errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil && cmd.ProcessState.Success():
			// It exited well, leaving a process that held its output:
			// the output it wrote is the token.
		case err != nil:
			return "", fmt.Errorf("%w: OAUTHBEARER token command: %w", ErrConfig, err)
		}
		b = out.Bytes()
	}
	if len(b) > maxToken {
		return "", fmt.Errorf("%w: OAUTHBEARER token longer than %d bytes", ErrConfig, maxToken)
	}
	t := bytes.TrimSpace(b)
	if len(t) == 0 {
		return "", fmt.Errorf("%w: OAUTHBEARER token is empty", ErrConfig)
	}
	return Secret(t), nil
}

// limitedWriter keeps the first left bytes written to it and drops the
// rest.
type limitedWriter struct {
	w    io.Writer
	left int
}

func (l *limitedWriter) Write(p []byte) (int, error) {
	n := len(p)
	if l.left > 0 {
		k := min(len(p), l.left)
		l.left -= k
		if _, err := l.w.Write(p[:k]); err != nil {
			return 0, err
		}
	}
	return n, nil
}
