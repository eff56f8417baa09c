//go:build unix

package kafkaconf

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// inOwnGroup makes cmd start a process group of its own, which cancelling
// cmd kills whole (SIGKILL to the group).
func inOwnGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
}
