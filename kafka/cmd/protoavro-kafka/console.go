package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
)

// console writes a command's own lines on stderr (start-up notes,
// warnings, the error it exits with): as text lines starting with
// "protoavro-kafka", or, once the command chose JSON logs (bridge
// --log-format json), as JSON log records of log/slog, so that every line
// on stderr is one.
type console struct {
	w    io.Writer
	json *slog.Logger // nil: text lines
}

// useJSON makes the console write JSON log records and returns their
// logger.
func (c *console) useJSON() *slog.Logger {
	if c.json == nil {
		c.json = slog.New(slog.NewJSONHandler(c.w, nil))
	}
	return c.json
}

// note writes a line: the text line "protoavro-kafka: " and text, or the
// JSON record msg with attrs at level.
func (c *console) note(level slog.Level, text, msg string, attrs ...any) {
	if c.json != nil {
		c.json.Log(context.Background(), level, msg, attrs...)
		return
	}
	io.WriteString(c.w, "protoavro-kafka: "+text+"\n")
}

// fail writes the error command exits with, with its exit status: the
// text line "protoavro-kafka COMMAND: " and the error, or a JSON record
// "exiting" at level ERROR. An error text that starts with the command's
// name (the bridge package's "bridge: ...") is not prefixed twice.
func (c *console) fail(command string, err error, status int) {
	text := strings.TrimPrefix(err.Error(), command+": ")
	if c.json != nil {
		c.json.Error("exiting", "command", command, "error", text, "status", status)
		return
	}
	io.WriteString(c.w, "protoavro-kafka "+command+": "+text+"\n")
}

// jsonLogsAsked reports whether args (a bridge's) ask for JSON logs with
// --log-format json, the last --log-format before a "--" deciding, as
// when the flags are parsed. It is read before they are, so that a
// command line the flags refuse is reported in JSON too.
func jsonLogsAsked(args []string) bool {
	format := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "log-format" {
			continue
		}
		if !hasValue {
			if i+1 == len(args) {
				break
			}
			i++
			value = args[i]
		}
		format = value
	}
	return format == "json"
}
