//go:build race

package protoavro

func init() { raceEnabled = true }
