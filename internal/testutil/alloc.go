package testutil

import "runtime"

// Allocated returns the bytes that fn allocates (runtime.MemStats'
// TotalAlloc), after a collection so that earlier garbage does not count:
// the measure of the tests that hold work on hostile input to a budget of
// memory rather than of time.
func Allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}
