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
	"maps"
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
	// Cause is the error this failure came from, if any, for errors.Is and
	// errors.As (Unwrap returns it). It stays in the process: neither the
	// envelope's JSON nor the plugin protocol carries it (the message
	// should already say what it means).
	Cause error `json:"-"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Unwrap returns the cause, so errors.Is(err, context.DeadlineExceeded)
// sees through an *Error made from a context's error.
func (e *Error) Unwrap() error { return e.Cause }

// Errorf returns an *Error with a formatted message. As with fmt.Errorf, a
// %w verb formats its error like %v and makes it the cause.
func Errorf(code, format string, args ...any) *Error {
	err := fmt.Errorf(format, args...)
	e := &Error{Code: code, Message: err.Error()}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		e.Cause = u.Unwrap()
	case interface{ Unwrap() []error }:
		e.Cause = err
	}
	return e
}

// WithDetails returns a copy of e with the given details merged into its
// own; e itself is unchanged, so an *Error shared by several callers (a
// package-level one, or one found in a chain) can be given details safely.
func (e *Error) WithDetails(kv map[string]any) *Error {
	c := *e
	c.Details = make(map[string]any, len(e.Details)+len(kv))
	maps.Copy(c.Details, e.Details)
	maps.Copy(c.Details, kv)
	return &c
}

// AsError finds an *Error in err's chain. When there is none it wraps err
// as an MM_INTERNAL_ERROR (err its cause), so callers always get a code.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeInternal, Message: err.Error(), Cause: err}
}
