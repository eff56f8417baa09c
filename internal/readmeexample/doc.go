// Command readmeexample is the Go program README.md shows under "Use the
// library from your module", kept here so that it is built, vetted and run:
// TestREADMEProgram fails when README's copy differs from main.go or when
// the program's output differs from the output README shows.
package main
