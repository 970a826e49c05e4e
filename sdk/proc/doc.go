// Package proc starts child processes (yarn, Anvil) in their own process
// group so that the whole tree can be killed at once, and so that they die
// with the process that started them. Plugins use it for their children:
//
//	cmd := proc.Command("yarn", "build:test") // a supervised group
//	cmd.Dir = workspace
//	err := cmd.Start()
//	...
//	proc.KillGroup(cmd) // on cancel, and after Wait for stray grandchildren
//
// Setup alone covers a child that starts no children of its own (Anvil);
// Command covers a tree (yarn -> sh -> node): when the plugin dies, even by
// SIGKILL, the whole group dies with it.
package proc
