//go:build amd64 || arm64 || riscv64 || loong64

package main

import (
	"os"
	"syscall"
)

// syncFileRangeWrite is sync_file_range's SYNC_FILE_RANGE_WRITE: start the
// write of the range's dirty pages, do not wait for it.
const syncFileRangeWrite = 2

// startWriteback starts writing n bytes of f from off to disk
// (sync_file_range(2) with SYNC_FILE_RANGE_WRITE) and returns without
// waiting. A failure is ignored: the file's sync reports the disk's errors.
func startWriteback(f *os.File, off, n int64) {
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		_, _, _ = syscall.Syscall6(syscall.SYS_SYNC_FILE_RANGE, fd, uintptr(off), uintptr(n), syncFileRangeWrite, 0, 0)
	})
}
