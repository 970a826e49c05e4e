// Package proc starts child processes (yarn, Anvil) in their own process
// group so that the whole tree can be killed at once, and so that they die
// with the process that started them.
package proc
