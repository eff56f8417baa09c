package bridge

import "time"

// SetBatchTimeout sets how long a batch may take after the run's context is
// done, for the tests, and returns a function that restores it.
func SetBatchTimeout(d time.Duration) (restore func()) {
	old := batchTimeout
	batchTimeout = d
	return func() { batchTimeout = old }
}
