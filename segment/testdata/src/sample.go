// Package p does things.
package p

import (
	"fmt"
	str "strings"
)

const Answer = 42

// Server serves.
type Server struct {
	Name string
}

type (
	A int
	B string
)

// Run runs.
func (s *Server) Run(ctx context.Context) error {
	fmt.Println(str.ToUpper(s.Name))
	return helper(s)
}

func helper(s *Server) error { return nil }

var x = 1
