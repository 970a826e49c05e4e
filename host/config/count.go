package config

import (
	"fmt"
	"strconv"
)

// Count is a number setting whose 0 is a value of its own (--standby 0:
// none), so a flag or the environment saying 0 still wins over the config
// file. Given says whether anything set it.
type Count struct {
	N     int
	Given bool
}

// String implements flag.Value.
func (c *Count) String() string {
	if c == nil {
		return "0"
	}
	return strconv.Itoa(c.N)
}

// Set implements flag.Value: a whole number (its range is checked by
// Resolve, which names the setting).
func (c *Count) Set(v string) error {
	n, err := strconv.Atoi(v)
	if err != nil {
		return fmt.Errorf("want a whole number, got %q", v)
	}
	*c = Count{N: n, Given: true}
	return nil
}

// Get implements flag.Getter.
func (c *Count) Get() any { return c.N }
