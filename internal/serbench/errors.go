package serbench

import (
	"fmt"
	"strings"
)

// Error is one problem with one input record. It prints as
// "file:line: field: message"; Line is 0 for problems that belong to a whole
// file, and Field is empty when no single field is at fault.
type Error struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Field != "" {
		b.WriteString(": ")
		b.WriteString(e.Field)
	}
	b.WriteString(": ")
	b.WriteString(e.Msg)
	return b.String()
}

// Errors is a list of input problems, in file and line order.
type Errors []*Error

func (es Errors) Error() string {
	switch len(es) {
	case 0:
		return "no errors"
	case 1:
		return es[0].Error()
	}
	var b strings.Builder
	b.WriteString(es[0].Error())
	fmt.Fprintf(&b, " (and %d more)", len(es)-1)
	return b.String()
}

// Err returns es as an error, or nil when it is empty.
func (es Errors) Err() error {
	if len(es) == 0 {
		return nil
	}
	return es
}

// errs accumulates Errors for one file.
type errs struct {
	file string
	list Errors
}

func (e *errs) add(line int, field, format string, args ...any) {
	e.list = append(e.list, &Error{File: e.file, Line: line, Field: field, Msg: fmt.Sprintf(format, args...)})
}
