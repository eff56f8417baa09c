//go:build !race

package protoavrobeam

// raceEnabled reports a test binary built with -race.
const raceEnabled = false
