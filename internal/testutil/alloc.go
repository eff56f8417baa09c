package testutil

import "runtime"

// Allocated returns the bytes that fn allocates (runtime.MemStats'
// TotalAlloc), after a collection so that earlier garbage does not count:
// the measure of the tests that hold work on hostile input to a budget of
// memory rather than of time.
func Allocated(fn func()) uint64 {
	bytes, _ := Allocations(fn)
	return bytes
}

// Allocations returns the bytes and the heap objects that fn allocates
// (runtime.MemStats' TotalAlloc and Mallocs), measured as Allocated
// measures them, from one call of fn. The allocations of other goroutines
// running meanwhile count too: a test that measures does not run in
// parallel with others.
func Allocations(fn func()) (bytes, objects uint64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc, after.Mallocs - before.Mallocs
}
