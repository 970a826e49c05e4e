// Package mmerr is mmcp's error type: a domain failure with an MM_* code,
// a one-sentence message and structured details. It is what the host puts
// in an envelope's error object, what a plugin returns over the plugin
// protocol, and what the Go client hands its callers. It imports nothing
// but the standard library, so a client links neither gRPC nor go-plugin;
// sdk re-exports it (sdk.Error) with the codes.
package mmerr

import (
	"errors"
	"fmt"
)

// CodeInternal is the code of a failure that is no domain failure: any Go
// error that carries no *Error.
const CodeInternal = "MM_INTERNAL_ERROR"

// Error is a domain failure: something the caller asked for could not be
// done, and the code says why. It travels over the plugin protocol as data
// (not as a gRPC error) and ends up as the envelope's error object. Any
// other Go error returned by a plugin is treated as an internal failure.
type Error struct {
	// Code is one of sdk's Code* constants (or a plugin's own MM_* code).
	Code string `json:"code"`
	// Message is one sentence for a human or an agent; it should say what
	// to do next when there is something to do.
	Message string `json:"message"`
	// Details carries structured context (the offending field, a log tail).
	Details map[string]any `json:"details,omitempty"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf returns an *Error with a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithDetails returns e with the given details merged in.
func (e *Error) WithDetails(kv map[string]any) *Error {
	if e.Details == nil {
		e.Details = map[string]any{}
	}
	for k, v := range kv {
		e.Details[k] = v
	}
	return e
}

// AsError finds an *Error in err's chain. When there is none it wraps err
// as an MM_INTERNAL_ERROR, so callers always get a code.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeInternal, Message: err.Error()}
}
